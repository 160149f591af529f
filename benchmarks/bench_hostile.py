"""Hostile files: how fast each is refused, how much memory that takes, and whether the server
stays responsive while six are rendered at once.

    .venv/bin/python benchmarks/bench_hostile.py [--quick] [--checkout DIR]

1. For each shape in tests/hostile.py: render it in a fresh process (the parse as the web worker
   would run it, guards included), report the time to refusal, the peak RSS and how it ended
   (refused, rendered, or killed by a signal). Each run has a 2 GB address-space limit and a 20 s
   CPU limit so that the "before" figures cannot take the machine down. `--checkout DIR` runs the
   same shapes against another checkout (e.g. a `git worktree` of an older commit).
2. The bounded worker as the backstop for what no guard foresaw: a runaway in C (a regular
   expression that backtracks forever) and a parse that keeps allocating (`json.loads` of fifteen
   million lists), each through a pool with the default limits (and the CPU one with
   RENDER_CPU_SECONDS=1): time to refusal and the worker's peak RSS.
3. Under gunicorn (3 sync workers, like the README), six POST /api/render with hostile shapes at
   once while /healthz is polled: its p50/p99, and how many gunicorn workers died.

Goals (issue 10): refused in under 100 ms by the guards or under 2 s by the bounded worker; no
render above 512 MB; /healthz p99 under 50 ms; zero worker deaths. The default CPU limit (20 s) is
not held to the 2 s goal: honest renders need up to 20 s (see bounded.Limits); RENDER_CPU_SECONDS=1
meets it. `--quick` (what CI runs) uses fewer /healthz requests, skips the 20 s runaway, and fails
(exit 1) on a crash, a worker death or a shape not refused, or when a time is ten times its goal.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.hostile import shapes  # noqa: E402

CHILD = r"""
import json, resource, sys, time
from inspector.core.bundle import MemoryBundle
from inspector.core.documents import render_document
from inspector.core.model import InputError
path, files = json.loads(sys.stdin.read())
for warm in ("w.yaml", "w.toml", "w.json"):  # import the loaders first: time the refusal alone
    try:
        render_document(MemoryBundle({warm: b"a = 1" if warm.endswith("toml") else b"{}"}), warm)
    except InputError:
        pass
started = time.perf_counter()
try:
    render_document(MemoryBundle({name: text.encode() for name, text in files.items()}), path)
    outcome = "rendered"
except InputError as error:
    outcome = "refused: " + str(error)
except RecursionError:
    outcome = "RecursionError"
except MemoryError:
    outcome = "MemoryError"
print(json.dumps({"seconds": time.perf_counter() - started, "outcome": outcome,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _limit_child() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 * 1024 ** 3, 2 * 1024 ** 3))
    resource.setrlimit(resource.RLIMIT_CPU, (20, 20))


# A runaway no guard foresaw, in a pool of the checkout's bounded workers. Only the standard library
# runs in the worker, so any checkout can be measured; its peak RSS is the reaped children's.
BACKSTOP = r"""
import json, re, resource, sys, time
from inspector.core import bounded
from inspector.core.model import InputError
kind, cpu_seconds = sys.argv[1], int(sys.argv[2])
pool = bounded.Pool(bounded.Limits(cpu_seconds=cpu_seconds) if cpu_seconds else bounded.Limits())
pool.call(len, "a worker started before the clock")
task = {"cpu": (re.match, "(a*)*b", "a" * 40),
        "memory": (json.loads, "[" + "[]," * 15_000_000 + "[]]")}[kind]
started = time.perf_counter()
try:
    pool.call(*task, path="x.json")
    outcome = "rendered"
except Exception as error:
    outcome = ("refused: " if isinstance(error, InputError) else "failed: ") + str(error)
seconds = time.perf_counter() - started
pool.close()
print(json.dumps({"seconds": seconds, "outcome": outcome,
                  "rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
"""


def measure_backstop(checkout: Path, kind: str, cpu_seconds: int) -> dict:
    environment = dict(os.environ, PYTHONPATH=str(checkout))
    result = subprocess.run([sys.executable, "-c", BACKSTOP, kind, str(cpu_seconds)],
                            capture_output=True, text=True, env=environment, cwd=checkout,
                            timeout=300)
    try:
        return json.loads(result.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {"seconds": 0.0, "outcome": "crashed: " + result.stderr.strip()[-120:],
                "rss_mb": None}


def measure_shape(checkout: Path, path: str, files: dict[str, str]) -> dict:
    environment = dict(os.environ, PYTHONPATH=str(checkout))
    started = time.perf_counter()
    try:
        result = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps([path, files]),
                                capture_output=True, text=True, env=environment, cwd=checkout,
                                preexec_fn=_limit_child, timeout=60)
    except subprocess.TimeoutExpired:
        return {"seconds": 60.0, "outcome": "timed out", "rss_mb": None}
    if result.returncode < 0:
        name = signal.Signals(-result.returncode).name
        return {"seconds": time.perf_counter() - started, "outcome": f"killed by {name}",
                "rss_mb": None}
    try:
        return json.loads(result.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {"seconds": time.perf_counter() - started,
                "outcome": "crashed: " + result.stderr.strip()[-120:], "rss_mb": None}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(url: str, timeout: float = 30) -> float:
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        answer.read()
    return time.perf_counter() - started


def post_json(url: str, body: dict) -> int:
    request = urllib.request.Request(url, json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return 0


def serve_and_attack(checkout: Path, healthz_requests: int) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="bench-hostile-"))
    port = free_port()
    environment = dict(os.environ, SQLITE_PATH=str(folder / "db.sqlite3"),
                       CACHE_URL=(folder / "cache").as_uri(), DATABASE_URL="",
                       SECRET_KEY="bench-hostile-" + "x" * 40)
    environment.pop("DATABASE_URL")
    environment["PYTHONPATH"] = str(checkout)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=checkout,
                   env=environment, check=True)
    log = open(folder / "gunicorn.log", "w+")  # noqa: SIM115 - read back after the server stops
    server = subprocess.Popen([str(Path(sys.executable).parent / "gunicorn"), "inspector.wsgi",
                               "-w", "3", "-b", f"127.0.0.1:{port}", "--timeout", "30"],
                              cwd=checkout, env=environment, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                get(base + "/healthz", 1)
                break
            except OSError:
                time.sleep(0.1)
        hostile = list(shapes().values())
        statuses: list[int] = []
        attackers = [threading.Thread(target=lambda shape=shape: statuses.append(
            post_json(base + "/api/render", {"files": shape.files, "path": shape.path})))
            for shape in (hostile * 2)[:6]]
        started = time.perf_counter()
        for thread in attackers:
            thread.start()
        times = []
        for _ in range(healthz_requests):
            times.append(get(base + "/healthz"))
            time.sleep(0.005)
        for thread in attackers:
            thread.join()
        attack_seconds = time.perf_counter() - started
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(30)
    log.seek(0)
    text = log.read()
    times.sort()
    return {
        "healthz_p50_ms": 1000 * statistics.median(times),
        "healthz_p99_ms": 1000 * times[int(len(times) * 0.99) - 1],
        "healthz_requests": len(times),
        "hostile_statuses": sorted(statuses),
        "attack_seconds": attack_seconds,
        # gunicorn logs a boot per worker; more than three means some died and were replaced.
        "worker_deaths": max(0, text.count("Booting worker") - 3) + text.count("WORKER TIMEOUT"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--checkout", type=Path, default=ROOT)
    parser.add_argument("--no-server", action="store_true")
    arguments = parser.parse_args()

    # --quick runs in CI on busy machines: it fails on a crash, a death or a shape not refused, and
    # on times only past ten times the goals.
    slack = 10 if arguments.quick else 1
    missed = []
    print(f"{'shape':26} {'ms':>9} {'RSS MB':>7}  outcome")
    for name, shape in shapes().items():
        found = measure_shape(arguments.checkout, shape.path, shape.files)
        rss = f"{found['rss_mb']:.0f}" if found["rss_mb"] else "-"
        print(f"{name:26} {1000 * found['seconds']:9.1f} {rss:>7}  {found['outcome'][:90]}")
        if not found["outcome"].startswith("refused") or found["seconds"] > 2 * slack \
                or (found["rss_mb"] or 0) > 512:
            missed.append(name)
    # The 2 s goal holds for the CPU limit set to 1 s; the default (20 s) is reported only, and
    # how soon the memory limit is reached depends on how fast the file allocates.
    backstops = [("cpu", 1, True), ("memory", 0, False)]
    if not arguments.quick:
        backstops.insert(0, ("cpu", 0, False))
    for kind, cpu_seconds, held in backstops:
        name = f"worker-{kind}" + (f" (cpu {cpu_seconds} s)" if cpu_seconds else " (defaults)")
        found = measure_backstop(arguments.checkout, kind, cpu_seconds)
        rss = f"{found['rss_mb']:.0f}" if found["rss_mb"] else "-"
        print(f"{name:26} {1000 * found['seconds']:9.1f} {rss:>7}  {found['outcome'][:90]}")
        # The resident limit is sampled every 20 ms: allow what a render allocates in between.
        if not found["outcome"].startswith("refused") or (found["rss_mb"] or 0) > 512 * 1.1 \
                or (held and found["seconds"] > 2 * slack):
            missed.append(name)
    if not arguments.no_server:
        served = serve_and_attack(arguments.checkout, 100 if arguments.quick else 1000)
        print(json.dumps(served, indent=2))
        if served["healthz_p99_ms"] > 50 * slack or served["worker_deaths"] \
                or any(status != 422 for status in served["hostile_statuses"]):
            missed.append("server")
    if missed:
        print("goals missed:", ", ".join(missed))
    return 1 if missed and arguments.quick else 0


if __name__ == "__main__":
    sys.exit(main())
