"""Web benchmark (not a test): how long the server takes to build a case page of a 1,000-case eval
file, and how many case pages per second gunicorn serves under concurrent load, side by side with the
same server returning a trivial Django page (the floor).

    .venv/bin/python benchmarks/bench_web.py [--requests 400] [--concurrency 8] [--workers 3] \
        [--rounds 5]
    .venv/bin/python benchmarks/bench_web.py --quick   # 100 cases, 40 requests: what CI runs

Everything runs on loopback against a throwaway SQLite database; the load phase is bounded by
--requests and a timeout."""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def big_eval(cases: int = 1000) -> bytes:
    lines = ["description: Benchmark suite", "evalcases:"]
    for index in range(cases):
        lines += [
            f"  - id: case-{index:04d}",
            "    outcome: Answers correctly.",
            "    input_messages:",
            "      - role: system",
            "        content: You are a careful assistant.",
            "      - role: user",
            "        content:",
            "          - type: text",
            f"            value: Question number {index}. Explain the <b>difference</b> between A and B.",
            "          - type: file",
            "            value: guide.instructions.md",
        ]
    return ("\n".join(lines) + "\n").encode()


def large_prompt(messages: int = 500, chars: int = 100_000) -> bytes:
    per = chars // messages
    lines = ["evalcases:", "  - id: large", "    outcome: ok", "    input_messages:"]
    for index in range(messages):
        role = "user" if index % 2 == 0 else "assistant"
        lines += [f"      - role: {role}", f'        content: "{("word " * (per // 5))[:per]}"']
    return ("\n".join(lines) + "\n").encode()


def setup_database(path: str, cases: int) -> tuple[str, str]:
    os.environ["SQLITE_PATH"] = path
    # A cache of its own, so clearing it between runs leaves the user's alone.
    os.environ["CACHE_URL"] = Path(path).with_suffix(".cache").as_uri()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "inspector.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from inspector.bundles.ingest import store_bundle

    files = {
        "suite.yaml": big_eval(cases),
        "large.yaml": large_prompt(),
        "guide.instructions.md": b"# Guide\n\nBe precise.\n",
        ".agentv/config.yaml": b'guideline_patterns:\n  - "**/*.instructions.md"\n',
    }
    bundle, _ = store_bundle(files, title="bench")
    return bundle.pk, bundle.pk


def server_time(bundle_id: str, case_id: str, repeats: int) -> None:
    from django.test import Client

    from inspector.bundles import loading
    from inspector.cases.addresses import case_url
    from inspector.rendering.warmup import warm_up

    warm_up()  # as inspector.wsgi does when a worker starts
    client = Client()

    def timed(url: str, **headers) -> tuple[float, object]:
        start = time.perf_counter()
        response = client.get(url, headers=headers)
        return time.perf_counter() - start, response

    url = f"/b/{bundle_id}/"
    first, response = timed(url)  # right after the upload, whose outline of each file is kept
    warm = [timed(url)[0] for _ in range(repeats)]
    loading.clear_caches()
    cold = timed(url)[0]
    print(
        f"  {'bundle page':28s} first view {first * 1000:6.1f} ms   warm median "
        f"{statistics.median(warm) * 1000:5.1f} ms              render cache emptied "
        f"{cold * 1000:7.1f} ms   page {len(response.content) / 1024:5.0f} KiB"
    )
    for label, document, name in [
        (f"eval file, {case_id}", "suite.yaml", case_id),
        ("500 messages / 100k chars", "large.yaml", "large"),
    ]:
        url = case_url(bundle_id, document, name)
        first, response = timed(url)  # the upload's render is kept: only the page is built
        assert response.status_code == 200, response.status_code
        warm = [timed(url)[0] for _ in range(repeats)]
        revalidate = timed(url, **{"If-None-Match": response["ETag"]})[0]
        loading.clear_caches()
        cold = timed(url)[0]
        print(
            f"  {label:28s} first view {first * 1000:6.1f} ms   warm median "
            f"{statistics.median(warm) * 1000:5.1f} ms   304 {revalidate * 1000:4.1f} ms   "
            f"render cache emptied {cold * 1000:7.1f} ms   page {len(response.content) / 1024:5.0f} KiB"
        )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def load(url: str, requests: int, concurrency: int, timeout: float) -> tuple[float, float, int]:
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()

    def one(_):
        nonlocal errors
        start = time.perf_counter()
        try:
            with urllib.request.urlopen(url, timeout=timeout) as response:
                response.read()
                ok = response.status == 200
        except Exception:
            ok = False
        with lock:
            latencies.append(time.perf_counter() - start)
            if not ok:
                errors += 1

    start = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(one, range(requests)))
    elapsed = time.perf_counter() - start
    return requests / elapsed, statistics.quantiles(latencies, n=20)[18] * 1000, errors


def load_in_rounds(
    pages: list[tuple[str, str]], requests: int, concurrency: int, rounds: int
) -> dict[str, list[tuple[float, float, int]]]:
    """Each page loaded once a round, starting one page later each round: a round takes a second
    or two, so a neighbour's burst on the shared machine falls on one round of every page rather
    than on the whole of one page's figure, and each round's share of the floor compares pages
    loaded moments apart."""
    results: dict[str, list[tuple[float, float, int]]] = {label: [] for label, _ in pages}
    for round_number in range(rounds):
        shift = round_number % len(pages)
        for label, url in pages[shift:] + pages[:shift]:
            results[label].append(load(url, requests, concurrency, 30))
    return results


def wait_up(url: str, deadline: float) -> None:
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except Exception:
            time.sleep(0.2)
    raise SystemExit("gunicorn did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="100 cases, 40 requests, 1 worker")
    args = parser.parse_args()
    cases = 100 if args.quick else 1000
    if args.quick:
        args.requests, args.concurrency, args.workers, args.rounds = 40, 2, 1, 1
    case_id = f"case-{cases // 2:04d}"
    with tempfile.TemporaryDirectory() as folder:
        db = str(Path(folder) / "bench.sqlite3")
        bundle_id, _ = setup_database(db, cases)
        print(f"Server time (Django test client, in process, {os.cpu_count()} CPUs, {cases}-case file):")
        server_time(bundle_id, case_id, 3 if args.quick else 20)

        from inspector.cases.addresses import case_url

        port = free_port()
        env = dict(
            os.environ,
            SQLITE_PATH=db,
            DEBUG="false",
            LOG_LEVEL="ERROR",
            SECRET_KEY=os.environ.get("SECRET_KEY") or "bench-web-" + "x" * 50,
        )
        command = [
            str(Path(sys.executable).parent / "gunicorn"),
            "inspector.wsgi",
            "-w",
            str(args.workers),
            "-b",
            f"127.0.0.1:{port}",
            "--log-level",
            "warning",
        ]
        server = subprocess.Popen(
            command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            base = f"http://127.0.0.1:{port}"
            wait_up(base + "/static/favicon.svg", time.time() + 30)
            pages = [
                ("static file (whitenoise)", base + "/static/favicon.svg"),
                ("trivial Django page (floor)", base + "/healthz"),
                (f"case page, {cases}-case file", base + case_url(bundle_id, "suite.yaml", case_id)),
                (f"bundle page, {cases} cases", base + f"/b/{bundle_id}/"),
            ]
            print(
                f"\nLoad: gunicorn -w {args.workers}, {args.requests} requests a round, "
                f"{args.concurrency} concurrent, loopback, median of {args.rounds} rounds "
                "(range):"
            )
            for _label, url in pages:
                load(url, args.concurrency * 4, args.concurrency, 30)  # warm every worker's cache
            results = load_in_rounds(pages, args.requests, args.concurrency, args.rounds)
            floor = [rate for rate, _, _ in results["trivial Django page (floor)"]]
            for label, rounds in results.items():
                rates = [rate for rate, _, _ in rounds]
                shares = [rate / base_rate for rate, base_rate in zip(rates, floor, strict=True)]
                print(
                    f"  {label:28s} {statistics.median(rates):7.0f} req/s "
                    f"({min(rates):.0f}-{max(rates):.0f})   "
                    f"p95 {statistics.median(p95 for _, p95, _ in rounds):6.1f} ms   "
                    f"errors {sum(errors for _, _, errors in rounds)}   "
                    f"of the floor {statistics.median(shares):4.0%} "
                    f"({min(shares):.0%}-{max(shares):.0%})"
                )
        finally:
            server.terminate()
            server.wait(timeout=10)


if __name__ == "__main__":
    main()
