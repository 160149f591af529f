"""The API's case answer (`GET /api/bundles/{id}/cases/{case}`) for a case whose system message holds
a 120-line guideline, which the answer traces line by line (issue 30): the time of a warm answer
(the render cached; what remains is serialising the case) and its size.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_case_api.py [--cases 200] [--repeats 30]

Runs against a throwaway SQLite database and cache. Run it from two checkouts (PYTHONPATH) to
compare before and after."""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_web import big_eval  # noqa: E402

GUIDELINE = "".join(f"Rule {number}: say what the line is for, in plain words.\n" for number in range(1, 121))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=30)
    arguments = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="bench-case-api-")
    os.environ["SQLITE_PATH"] = str(Path(folder) / "db.sqlite3")
    os.environ["CACHE_URL"] = (Path(folder) / "db.cache").as_uri()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "inspector.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client

    from inspector.bundles.ingest import store_bundle

    call_command("migrate", verbosity=0)
    files = {
        "suite.yaml": big_eval(arguments.cases),
        "guide.instructions.md": GUIDELINE.encode(),
        ".agentv/config.yaml": b'guideline_patterns:\n  - "**/*.instructions.md"\n',
    }
    bundle, _ = store_bundle(files, title="bench")
    client = Client()
    url = f"/api/bundles/{bundle.pk}/cases/case-0100"
    start = time.perf_counter()
    response = client.get(url)
    first = time.perf_counter() - start
    assert response.status_code == 200, response.content[:300]
    walls, cpus = [], []
    for _ in range(arguments.repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        client.get(url)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    segments = sum(len(message["segments"]) for message in response.json()["messages"])
    print(
        f"first {first * 1000:.1f} ms; warm wall median {statistics.median(walls) * 1000:.2f} ms "
        f"(min {min(walls) * 1000:.2f}), CPU median {statistics.median(cpus) * 1000:.2f} ms; "
        f"{segments} segments, {len(response.content) / 1024:.1f} KiB"
    )


if __name__ == "__main__":
    main()
