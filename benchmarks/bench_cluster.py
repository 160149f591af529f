"""Cluster benchmark (not a test): case pages a second from one app server and from two, on the
same machine, sharing one PostgreSQL database, one redis-server (the render and page cache, as
REDIS_URL) and one S3-compatible bucket (moto's server, as STORAGE_URL): the set-up the README's
Production section describes, with the load balancer played by the client (requests alternate).

    .venv/bin/python benchmarks/bench_cluster.py [--cases 1000] [--requests 400] \
        [--concurrency 8] [--workers 2] [--rounds 3]
    .venv/bin/python benchmarks/bench_cluster.py --quick   # 100 cases, 40 requests: what CI runs

Needs PostgreSQL (DATABASE_URL when it names one, else 127.0.0.1:5432), where it makes and drops
a database of its own, and Debian's redis-server. A third row, one server with as many workers as
the two together, tells apart what a second server adds from what more processes on the same
cores add: on one machine the cores are the limit, not the server."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.bench_web import big_eval, wait_up  # noqa: E402
from tests import servers  # noqa: E402
from tests.web.test_cluster import own_database  # noqa: E402


def start(environment: dict[str, str], workers: int) -> tuple[str, subprocess.Popen]:
    port = servers.free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "-c",
            "python:inspector.gunicorn_conf",
            "inspector.wsgi",
            "-w",
            str(workers),
            "-b",
            f"127.0.0.1:{port}",
            "--no-control-socket",
            "--log-level",
            "warning",
        ],
        cwd=REPO,
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    wait_up(base + "/readyz", time.time() + 30)
    return base, process


def upload(base: str, cases: int) -> str:
    import json

    body = json.dumps(
        {
            "title": "bench",
            "files": {
                "suite.yaml": big_eval(cases).decode(),
                "guide.instructions.md": "# Guide\n\nBe precise.\n",
                ".agentv/config.yaml": 'guideline_patterns:\n  - "**/*.instructions.md"\n',
            },
        }
    ).encode()
    request = urllib.request.Request(base + "/api/bundles", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as answer:
        return json.loads(answer.read())["id"]


def load(urls: list[str], requests: int, concurrency: int) -> tuple[float, float, int]:
    """Requests a second, p95 in ms and errors, for `requests` GETs spread over `urls` in turn."""
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()

    def one(number: int) -> None:
        nonlocal errors
        began = time.perf_counter()
        try:
            with urllib.request.urlopen(urls[number % len(urls)], timeout=30) as response:
                response.read()
                ok = response.status == 200
        except Exception:  # noqa: BLE001 - counted as an error
            ok = False
        with lock:
            latencies.append(time.perf_counter() - began)
            errors += not ok

    began = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(one, range(requests)))
    return (
        requests / (time.perf_counter() - began),
        statistics.quantiles(latencies, n=20)[18] * 1000,
        errors,
    )


def case_paths(bundle_id: str, cases: int, distinct: int) -> list[str]:
    from inspector.cases.addresses import case_url

    step = max(1, cases // distinct)
    return [case_url(bundle_id, "suite.yaml", f"case-{index:04d}") for index in range(0, cases, step)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers per server")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="100 cases, 40 requests, 1 worker")
    args = parser.parse_args()
    if args.quick:
        args.cases, args.requests, args.concurrency, args.workers, args.rounds = 100, 40, 2, 1, 1
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "inspector.settings")
    import django

    django.setup()
    with ExitStack() as stack:
        folder = stack.enter_context(tempfile.TemporaryDirectory())
        database = stack.enter_context(own_database())
        redis_url = stack.enter_context(servers.redis_server(Path(folder)))
        endpoint = stack.enter_context(servers.s3_server())
        os.environ.update(servers.S3_ENVIRONMENT)
        bucket = servers.new_bucket(endpoint)
        environment = {
            **os.environ,
            **servers.S3_ENVIRONMENT,
            "DATABASE_URL": database,
            "REDIS_URL": redis_url,
            "STORAGE_URL": servers.s3_storage_url(endpoint, bucket),
            "SECRET_KEY": "bench-cluster-" + uuid.uuid4().hex,
            "DEBUG": "false",
            "LOG_LEVEL": "ERROR",
            "STATIC_ROOT": str(Path(folder) / "static"),
        }
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--verbosity", "0"],
            cwd=REPO,
            env=environment,
            check=True,
        )
        layouts = {
            f"one server, {args.workers} workers": [args.workers],
            f"two servers, {args.workers} workers each": [args.workers, args.workers],
            f"one server, {2 * args.workers} workers": [2 * args.workers],
        }
        print(
            f"Case pages of a {args.cases}-case file ({min(50, args.cases)} distinct), "
            f"{args.requests} requests a round, {args.concurrency} concurrent, "
            f"{os.cpu_count()} CPUs, median of {args.rounds} rounds (range):"
        )
        bundle_id = ""
        for label, workers in layouts.items():
            started = [start(environment, count) for count in workers]
            try:
                bundle_id = bundle_id or upload(started[0][0], args.cases)
                paths = case_paths(bundle_id, args.cases, 50)
                urls = [base + path for path in paths for base, _ in started]
                load(urls, len(urls), args.concurrency)  # each page built once, into Redis
                rounds = [load(urls, args.requests, args.concurrency) for _ in range(args.rounds)]
            finally:
                for _, process in started:
                    process.terminate()
                    process.wait(10)
            rates = [rate for rate, _, _ in rounds]
            print(
                f"  {label:32s} {statistics.median(rates):7.0f} req/s "
                f"({min(rates):.0f}-{max(rates):.0f})   "
                f"p95 {statistics.median(p95 for _, p95, _ in rounds):6.1f} ms   "
                f"errors {sum(errors for _, _, errors in rounds)}"
            )


if __name__ == "__main__":
    main()
