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
4. Hostile share links (issue 27), under gunicorn as the README runs it (its gunicorn_conf where the
   checkout has one, else gunicorn's default 30 s timeout): bundles uploaded through the API whose
   pages cost what their content decides (highlighting 1.5 MB of backticks, a quadratic
   reStructuredText shape and a 1.8 MB one-line YAML flow list; the offline copy of four
   10,000-message conversations; a case page asked for with a new ?utm_source each time), fetched
   by three clients in a loop for a while, and three agentv 5 prompt matrices of about 9 s of CPU
   each uploaded at once. Reported: answers by status per shape, 5xx, worker deaths, /healthz p50
   and p99 meanwhile. More shapes join through SHARE_LINK_SHAPES (and SHARE_LINK_SETUP for what is
   written before the link is fetched: the hostile comment bodies). `--share-links-only` runs this part alone.

Goals (issue 10): refused in under 100 ms by the guards or under 2 s by the bounded worker; no
render above 512 MB; /healthz p99 under 50 ms; zero worker deaths. The default CPU limit (20 s) is
not held to the 2 s goal: honest renders need up to 20 s (see bounded.Limits); RENDER_CPU_SECONDS=1
meets it. `--quick` (what CI runs) uses fewer /healthz requests, skips the 20 s runaway, and fails
(exit 1) on a crash, a worker death or a shape not refused, or when a time is ten times its goal.
"""

from __future__ import annotations

import argparse
import json
import math
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
import urllib.parse
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
    resource.setrlimit(resource.RLIMIT_AS, (2 * 1024**3, 2 * 1024**3))
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
    result = subprocess.run(
        [sys.executable, "-c", BACKSTOP, kind, str(cpu_seconds)],
        capture_output=True,
        text=True,
        env=environment,
        cwd=checkout,
        timeout=300,
    )
    try:
        return json.loads(result.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {"seconds": 0.0, "outcome": "crashed: " + result.stderr.strip()[-120:], "rss_mb": None}


def measure_shape(checkout: Path, path: str, files: dict[str, str]) -> dict:
    environment = dict(os.environ, PYTHONPATH=str(checkout))
    started = time.perf_counter()
    try:
        result = subprocess.run(
            [sys.executable, "-c", CHILD],
            input=json.dumps([path, files]),
            capture_output=True,
            text=True,
            env=environment,
            cwd=checkout,
            preexec_fn=_limit_child,
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        return {"seconds": 60.0, "outcome": "timed out", "rss_mb": None}
    if result.returncode < 0:
        name = signal.Signals(-result.returncode).name
        return {"seconds": time.perf_counter() - started, "outcome": f"killed by {name}", "rss_mb": None}
    try:
        return json.loads(result.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {
            "seconds": time.perf_counter() - started,
            "outcome": "crashed: " + result.stderr.strip()[-120:],
            "rss_mb": None,
        }


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
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
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
    environment = dict(
        os.environ,
        SQLITE_PATH=str(folder / "db.sqlite3"),
        CACHE_URL=(folder / "cache").as_uri(),
        DATABASE_URL="",
        SECRET_KEY="bench-hostile-" + "x" * 40,
    )
    environment.pop("DATABASE_URL")
    environment["PYTHONPATH"] = str(checkout)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v", "0"], cwd=checkout, env=environment, check=True
    )
    log = open(folder / "gunicorn.log", "w+")  # noqa: SIM115 - read back after the server stops
    server = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "gunicorn"),
            "inspector.wsgi",
            "-w",
            "3",
            "-b",
            f"127.0.0.1:{port}",
            "--timeout",
            "30",
        ],
        cwd=checkout,
        env=environment,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
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
        attackers = [
            threading.Thread(
                target=lambda shape=shape: statuses.append(
                    post_json(base + "/api/render", {"files": shape.files, "path": shape.path})
                )
            )
            for shape in (hostile * 2)[:6]
        ]
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


def _conversation(number: int, messages: int) -> str:
    # Escapes make each message's text read otherwise than its file (what made the offline copy
    # search whole files).
    return json.dumps(
        {
            "model": "gpt-4o",
            "messages": [
                {
                    "role": "user" if i % 2 == 0 else "assistant",
                    "content": f"message {number}-{i}\\n" + 'lorem "ipsum" dolor sit amet ' * 3,
                }
                for i in range(messages)
            ],
        },
        indent=1,
    )


def _prompt_matrix(prompts: int, tests: int) -> str:
    """An agentv 5 file whose prompts times tests make prompts * tests cases (100 x 200: about
    9 s of CPU to render, within the 20 s CPU limit; three of them are not within 30 s)."""
    lines = ["prompts:"]
    for p in range(prompts):
        lines += [
            f"  - id: p{p}",
            "    messages:",
            "      - role: system",
            f'        content: "{"Be precise. " * 10}"',
            "      - role: user",
            f'        content: "Prompt {p}: {{{{ q }}}}"',
        ]
    lines.append("tests:")
    for t in range(tests):
        lines += [f"  - id: t{t}", "    vars:", f"      q: question {t}", "    criteria: ok"]
    return "\n".join(lines) + "\n"


SMALL_EVAL = "tests:\n  - id: a\n    input: hello\n"
FLOW = "[" + ", ".join(str(i) for i in range(330_000)) + "]\n"


def _path(url: str) -> str:
    """An answer's link (absolute where SITE_ROOT or the host makes it so) as a path on the server."""
    return urllib.parse.urlsplit(url).path


def _source_link(path: str):
    return lambda created, n: f"{_path(created['url'])}source/{path}"


# name: (files to upload, the link to fetch given the upload's answer and a counter)
SHARE_LINK_SHAPES = {
    "highlight-rst-backticks": (
        {"docs/l.rst": "`" * 1_500_000, "e.yaml": SMALL_EVAL},
        _source_link("docs/l.rst"),
    ),
    "highlight-rst-quadratic": (
        {"docs/q.rst": "`a " * 100_000, "e.yaml": SMALL_EVAL},
        _source_link("docs/q.rst"),
    ),
    "highlight-yaml-flow": ({"data/flow.yaml": FLOW, "e.yaml": SMALL_EVAL}, _source_link("data/flow.yaml")),
    "offline-copy": (
        {f"c{k}.json": _conversation(k, 10_000) for k in range(4)},
        lambda created, n: f"{_path(created['url'])}offline.html",
    ),
    "query-busting": (
        {"c0.json": _conversation(0, 10_000)},
        lambda created, n: f"{_path(created['cases'][0]['cases'][0]['url'])}?utm_source={n}",
    ),
    # 30 comments of 10,000 characters of nested link and emphasis openers (one address's writes
    # for a minute, posted by _post_hostile_comments): the threads API and the case's review panel.
    "comment-bodies": (
        {"e.yaml": SMALL_EVAL},
        lambda created, n: (
            f"/api/bundles/{created['id']}/threads"
            if n % 2
            else f"{_path(created['url'])}review/panel/?document=e.yaml&case_id=a"
        ),
    ),
}
HOSTILE_COMMENT = "[*" * 5_000
HOSTILE_COMMENTS = 30


def _post_hostile_comments(base: str, created: dict) -> None:
    """What a share link's holder can write before a page shows it: comments are rendered when
    written, so showing them must cost what plain stored HTML costs."""
    anchor = {"kind": "message", "document": "e.yaml", "case_id": "a", "message_index": 0}
    for _ in range(HOSTILE_COMMENTS):
        fetch_status(
            f"{base}/api/bundles/{created['id']}/threads",
            {"anchor": anchor, "body": HOSTILE_COMMENT, "author": "bench"},
            60,
        )


# name: what to write once the shape's bundle is stored, before its link is fetched
SHARE_LINK_SETUP = {"comment-bodies": _post_hostile_comments}


def fetch_status(url: str, body: dict | None = None, timeout: float = 120) -> tuple[int, bytes]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data, {"Content-Type": "application/json"} if data else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except OSError:
        return 0, b""


def start_server(checkout: Path, folder: Path, port: int):
    environment = dict(
        os.environ,
        SQLITE_PATH=str(folder / "db.sqlite3"),
        CACHE_URL=(folder / "cache").as_uri(),
        SECRET_KEY="bench-hostile-" + "x" * 40,
        PYTHONPATH=str(checkout),
    )
    environment.pop("DATABASE_URL", None)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v", "0"], cwd=checkout, env=environment, check=True
    )
    configured = (checkout / "inspector" / "gunicorn_conf.py").exists()
    options = ["-c", "python:inspector.gunicorn_conf"] if configured else ["--timeout", "30"]
    log = open(folder / "gunicorn.log", "w+")  # noqa: SIM115 - read back after the server stops
    server = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "gunicorn"),
            *options,
            "inspector.wsgi",
            "-w",
            "3",
            "-b",
            f"127.0.0.1:{port}",
        ],
        cwd=checkout,
        env=environment,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            get(base + "/healthz", 1)
            break
        except OSError:
            time.sleep(0.1)
    return server, log, base


def _fetch_in_a_loop(links: list[tuple[str, object]], until: float, answers: list) -> None:
    n = 0
    while time.monotonic() < until:
        for name, link in links:
            n += 1
            status, _ = fetch_status(link(n), timeout=120)  # type: ignore[operator]
            answers.append((name, status))


def serve_share_links(checkout: Path, seconds: float) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="bench-share-links-"))
    server, log, base = start_server(checkout, folder, free_port())
    uploads: dict[str, int] = {}
    answers: list[tuple[str, int]] = []
    times: list[float] = []
    try:
        links = []
        for name, (files, link) in SHARE_LINK_SHAPES.items():
            status, body = fetch_status(base + "/api/bundles", {"files": files, "title": name}, 300)
            uploads[name] = status
            if status == 201:
                created = json.loads(body)
                if name in SHARE_LINK_SETUP:
                    SHARE_LINK_SETUP[name](base, created)
                links.append((name, lambda n, link=link, created=created: base + link(created, n)))
        slow = {f"m{k}.yaml": _prompt_matrix(100, 200) for k in range(3)}
        until = time.monotonic() + seconds
        clients = [
            threading.Thread(target=_fetch_in_a_loop, args=(links[k:] + links[:k], until, answers))
            for k in range(3)
        ]
        clients.append(
            threading.Thread(
                target=lambda: answers.append(
                    ("slow-uploads", fetch_status(base + "/api/bundles", {"files": slow}, 300)[0])
                )
            )
        )
        for thread in clients:
            thread.start()
        while time.monotonic() < until:
            try:
                times.append(get(base + "/healthz", 60))
            except OSError:
                times.append(60.0)
            time.sleep(0.05)
        for thread in clients:
            thread.join()
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(60)
    log.seek(0)
    text = log.read()
    times.sort()
    by_shape: dict[str, dict[int, int]] = {}
    for name, status in answers:
        by_shape.setdefault(name, {}).setdefault(status, 0)
        by_shape[name][status] += 1
    return {
        "uploads": uploads,
        "answers": by_shape,
        "answers_5xx_or_lost": sum(1 for _, status in answers if status >= 500 or status == 0),
        # A worker gunicorn times out logs a timeout, then its replacement's boot: count it once.
        "worker_deaths": max(text.count("Booting worker") - 3, text.count("WORKER TIMEOUT"), 0),
        "healthz_requests": len(times),
        "healthz_p50_ms": 1000 * statistics.median(times) if times else None,
        "healthz_p99_ms": 1000 * times[math.ceil(len(times) * 0.99) - 1] if times else None,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--checkout", type=Path, default=ROOT)
    parser.add_argument("--no-server", action="store_true")
    parser.add_argument("--share-links-only", action="store_true")
    arguments = parser.parse_args()
    if arguments.share_links_only:
        return report_share_links(arguments.checkout, arguments.quick)

    # --quick runs in CI on busy machines: it fails on a crash, a death or a shape not refused, and
    # on times only past ten times the goals.
    slack = 10 if arguments.quick else 1
    missed = report_shapes(arguments.checkout, slack) + report_backstops(
        arguments.checkout, slack, arguments.quick
    )
    if not arguments.no_server:
        missed += report_server(arguments.checkout, slack, arguments.quick)
        if report_share_links(arguments.checkout, arguments.quick):
            missed.append("share links")
    if missed:
        print("goals missed:", ", ".join(missed))
    return 1 if missed and arguments.quick else 0


def report_shapes(checkout: Path, slack: int) -> list[str]:
    missed = []
    print(f"{'shape':26} {'ms':>9} {'RSS MB':>7}  outcome")
    for name, shape in shapes().items():
        found = measure_shape(checkout, shape.path, shape.files)
        rss = f"{found['rss_mb']:.0f}" if found["rss_mb"] else "-"
        print(f"{name:26} {1000 * found['seconds']:9.1f} {rss:>7}  {found['outcome'][:90]}")
        if (
            not found["outcome"].startswith("refused")
            or found["seconds"] > 2 * slack
            or (found["rss_mb"] or 0) > 512
        ):
            missed.append(name)
    return missed


def report_backstops(checkout: Path, slack: int, quick: bool) -> list[str]:
    # The 2 s goal holds for the CPU limit set to 1 s; the default (20 s) is reported only, and
    # how soon the memory limit is reached depends on how fast the file allocates.
    missed = []
    backstops = [("cpu", 1, True), ("memory", 0, False)]
    if not quick:
        backstops.insert(0, ("cpu", 0, False))
    for kind, cpu_seconds, held in backstops:
        name = f"worker-{kind}" + (f" (cpu {cpu_seconds} s)" if cpu_seconds else " (defaults)")
        found = measure_backstop(checkout, kind, cpu_seconds)
        rss = f"{found['rss_mb']:.0f}" if found["rss_mb"] else "-"
        print(f"{name:26} {1000 * found['seconds']:9.1f} {rss:>7}  {found['outcome'][:90]}")
        # The resident limit is sampled every 20 ms: allow what a render allocates in between.
        if (
            not found["outcome"].startswith("refused")
            or (found["rss_mb"] or 0) > 512 * 1.1
            or (held and found["seconds"] > 2 * slack)
        ):
            missed.append(name)
    return missed


def report_server(checkout: Path, slack: int, quick: bool) -> list[str]:
    served = serve_and_attack(checkout, 100 if quick else 1000)
    print(json.dumps(served, indent=2))
    if (
        served["healthz_p99_ms"] > 50 * slack
        or served["worker_deaths"]
        or any(status != 422 for status in served["hostile_statuses"])
    ):
        return ["server"]
    return []


def report_share_links(checkout: Path, quick: bool) -> int:
    """Issue 27's goals: no worker death, no 5xx, /healthz p99 under 1 s (ten times that in
    --quick, on busy machines). 1 when one is missed."""
    served = serve_share_links(checkout, 30 if quick else 90)
    print(json.dumps(served, indent=2))
    slack = 10 if quick else 1
    return int(
        bool(
            served["worker_deaths"]
            or served["answers_5xx_or_lost"]
            or (served["healthz_p99_ms"] or 0) > 1000 * slack
        )
    )


if __name__ == "__main__":
    sys.exit(main())
