"""Upload benchmark (not a test): a 10 MB eval file through the upload API — every check, each
document rendered in the bounded worker, the renders kept — then the first view of its bundle page
and of a case, the way a user meets them.

    .venv/bin/python benchmarks/bench_upload.py            # 9.9 MB, about 11,500 cases
    .venv/bin/python benchmarks/bench_upload.py --quick    # 1 MB: what CI runs

Goals (issue 15): upload <= 2 s; bundle page first paint <= 300 ms with <= 1 MB of HTML."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def big_suite(target_bytes: int, run: int = 0) -> bytes:
    """About target_bytes of YAML; each run's file differs (its description), as each real upload
    does, so no run meets the parse the worker kept from the one before."""
    lines = [f"description: Upload benchmark, run {run}", "evalcases:"]
    size, index = 0, 0
    filler = "Explain the trade-offs in detail, citing the guideline where it applies. " * 8
    while size < target_bytes:
        block = [
            f"  - id: case-{index:05d}",
            "    outcome: Answers correctly.",
            "    input_messages:",
            "      - role: user",
            f'        content: "Question {index}. {filler}"',
        ]
        size += sum(len(line) + 1 for line in block)
        lines += block
        index += 1
    return ("\n".join(lines) + "\n").encode()


def cpu_seconds() -> tuple[float, float]:
    """CPU time of this process (the server) and of the live bounded workers (they serve the
    upload's render): on a machine shared with other jobs it says more than the wall clock, which
    counts the waits."""
    from inspector.core import bounded

    used = os.times()
    ticks = os.sysconf("SC_CLK_TCK")
    workers = 0.0
    for pool in bounded._pools.values():
        for worker in pool.idle:
            try:
                fields = Path(f"/proc/{worker.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            workers += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
    return used.user + used.system, workers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    target = 1_000_000 if args.quick else 9_900_000
    runs = 1 if args.quick else args.runs
    with tempfile.TemporaryDirectory() as folder:
        os.environ["SQLITE_PATH"] = str(Path(folder) / "bench.sqlite3")
        os.environ["CACHE_URL"] = (Path(folder) / "cache").as_uri()
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "inspector.settings")
        import django

        django.setup()
        from django.core.management import call_command
        from django.test import Client

        from inspector.rendering.warmup import warm_up

        call_command("migrate", verbosity=0)
        warm_up()
        client = Client()
        uploads, spent, served, rendered, pages, cases, sizes = [], [], [], [], [], [], []
        for run in range(runs):
            suite = big_suite(target, run)
            body = json.dumps({"files": {"evals/big.yaml": suite.decode()}, "title": "big"})
            (server, worker), start = cpu_seconds(), time.perf_counter()
            response = client.post("/api/bundles", body, content_type="application/json")
            uploads.append(time.perf_counter() - start)
            server_after, worker_after = cpu_seconds()
            served.append(server_after - server)
            rendered.append(worker_after - worker)
            spent.append(served[-1] + rendered[-1])
            assert response.status_code == 201, response.content[:300]
            answer = response.json()
            start = time.perf_counter()
            page = client.get(f"/b/{answer['id']}/")
            pages.append(time.perf_counter() - start)
            sizes.append(len(page.content))
            listed = answer["cases"][0]["cases"]
            case_path = "/" + listed[len(listed) // 2]["url"].split("://", 1)[-1].split("/", 1)[1]
            start = time.perf_counter()
            assert client.get(case_path).status_code == 200
            cases.append(time.perf_counter() - start)
        count = len(listed)
        print(f"{len(suite) / 1e6:.1f} MB YAML, {count:,} cases, {runs} run(s), median (min-max):")
        for label, values in (
            ("upload (API, validated, rendered)", uploads),
            ("  its CPU time, server and worker", spent),
            ("    the server's (web process)", served),
            ("    the bounded worker's", rendered),
            ("bundle page, first view", pages),
            ("a case page, first view", cases),
        ):
            print(
                f"  {label:36s} {statistics.median(values) * 1000:8.0f} ms "
                f"({min(values) * 1000:.0f}-{max(values) * 1000:.0f})"
            )
        print(f"  {'bundle page HTML':36s} {statistics.median(sizes) / 1024:8.0f} KiB")


if __name__ == "__main__":
    main()
