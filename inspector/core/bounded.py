"""Rendering untrusted files where a crash or a runaway cannot hurt the caller.

The guards in `safe_parse` refuse the usual hostile shapes in milliseconds, but a parser written in C
can still die on a shape nobody foresaw, and a quadratic corner can still eat minutes and gigabytes.
So every render of uploaded content runs in a child process with a resident-memory limit (watched by
the parent), an address-space limit (RLIMIT_AS, for allocations faster than the watch), a CPU-time
limit and a wall-clock deadline. The children are a small pool reused across calls (a render costs a
pipe round trip, not a process start); a child that crashes or hits a limit is replaced, and its
caller gets a LimitExceeded naming the file.

Children are fresh interpreters (`python -m inspector.core.bounded`), never copies of a threaded web
worker, and they do not re-run the caller's main module the way multiprocessing's children do.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import math
import os
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from . import collector
from .model import InputError
from .safe_parse import LimitExceeded

_PRELOAD = [
    "inspector.core.documents",
    "inspector.core.agentv",
    "inspector.core.decks",
    "inspector.core.conversations",
    "inspector.core.context",
    "inspector.core.export",
    "inspector.core.highlight",
]


MB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """The memory and CPU limits are 0 for none. Measured on honest files: a 10 MB bundle of small
    cases, or a 60 KB agentv 5 file whose prompts and tests multiply into 20,000 cases, takes 8 to
    25 s of CPU and at most 400 MB resident (500 MB of address space). So the CPU limit is not issue
    10's 2 s goal; the resident limit is its 512 MB."""

    memory_bytes: int = 1024 * MB  # address space: a backstop with headroom over resident_bytes
    cpu_seconds: float = 20
    deadline_seconds: float = 30.0
    workers: int = 2
    resident_bytes: int = 512 * MB  # watched by the parent


def _worker_main(connection, limits: Limits) -> None:
    """The child: apply the limits, then answer tasks until the pipe closes."""
    if limits.memory_bytes:
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C belongs to the parent
    signal.signal(signal.SIGPROF, signal.SIG_DFL)  # the CPU budget: terminates
    while True:
        try:
            function, args = connection.recv()
        except (EOFError, OSError):
            return
        if limits.cpu_seconds:
            # The profiling timer counts this task's CPU time to the millisecond, and its signal
            # kills even inside C code. RLIMIT_CPU, whole seconds over the process's life, is the
            # backstop.
            signal.setitimer(signal.ITIMER_PROF, limits.cpu_seconds)
            used = resource.getrusage(resource.RUSAGE_SELF)
            spent = used.ru_utime + used.ru_stime
            _, hard = resource.getrlimit(resource.RLIMIT_CPU)
            resource.setrlimit(resource.RLIMIT_CPU, (math.ceil(spent + limits.cpu_seconds) + 1, hard))
        try:
            with collector.paused():
                answer: tuple = ("ok", function(*args))
        except LimitExceeded as error:
            answer = ("limit", _diagnostic(error))
        except InputError as error:
            answer = ("input", _diagnostic(error))
        except MemoryError:
            answer = ("memory", None)
        except RecursionError:
            answer = ("deep", None)
        except Exception as error:  # noqa: BLE001 - the caller decides; the child keeps serving
            answer = ("error", f"{type(error).__name__}: {error}")
        signal.setitimer(signal.ITIMER_PROF, 0)
        try:
            connection.send(answer)
        except MemoryError:
            connection.send(("memory", None))
        if answer[0] == "memory":
            return  # the heap may be in a poor state: let the pool start a fresh child


def _diagnostic(error: InputError) -> tuple:
    found = error.diagnostic
    return found.message, found.path, found.line, found.column, found.likely_start


class Busy(LimitExceeded):
    """Every worker stayed busy until the deadline: a matter of load, not of the file."""


class OverBudget(Busy):
    """The request's shared budget ran out: about this request, not the file (never kept as the
    file's refusal)."""


@dataclass
class _Budget:
    ends: float  # time.monotonic()
    seconds: float
    busy: bool = False  # a call inside was refused for load or time, not for its content


_budget: contextvars.ContextVar[_Budget | None] = contextvars.ContextVar("bounded_budget", default=None)


@contextlib.contextmanager
def budget(seconds: float) -> Iterator[None]:
    """Every call made inside shares one deadline, `seconds` from now (or the enclosing budget's,
    if that ends sooner): a request's documents one after another cannot add up past the server's
    own timeout the way a deadline per call did."""
    ends = time.monotonic() + seconds
    outer = _budget.get()
    token = _budget.set(outer if outer is not None and outer.ends <= ends else _Budget(ends, seconds))
    try:
        yield
    finally:
        _budget.reset(token)


def was_busy() -> bool:
    """Whether a call inside the current budget was refused as Busy: what was made meanwhile (a
    page with a file shown plain for want of time) is not to be kept."""
    shared = _budget.get()
    return shared is not None and shared.busy


def left_in_budget() -> float | None:
    """Seconds left of the current budget (None outside one): for work done in the caller's own
    process, which no deadline can stop once begun, to check before it begins."""
    shared = _budget.get()
    return None if shared is None else shared.ends - time.monotonic()


def _over_budget(shared: _Budget, path: str | None) -> OverBudget:
    shared.busy = True
    return OverBudget(
        f"the request's work took longer than its budget of {shared.seconds:g} s "
        f"and was given up; try again, or with fewer files",
        path,
    )


class WorkerError(RuntimeError):
    """A task raised something other than InputError (a bug, not bad input)."""


_PAGE = resource.getpagesize()
# How often the parent looks at a working child's resident memory: a child can allocate a few
# hundred MB in between, which RLIMIT_AS (memory_bytes) bounds.
_WATCH_SECONDS = 0.02


class _Worker:
    def __init__(self, limits: Limits):
        ours, theirs = socket.socketpair()
        environment = dict(os.environ, PYTHONPATH=os.pathsep.join(path for path in sys.path if path))
        try:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "inspector.core.bounded",
                    str(theirs.fileno()),
                    json.dumps(limits.__dict__),
                ],
                pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL,
                env=environment,
            )
        finally:
            theirs.close()
        self.connection = Connection(ours.detach())

    def resident(self) -> int:
        """The child's resident memory in bytes (0 where /proc cannot tell)."""
        try:
            with open(f"/proc/{self.process.pid}/statm") as statm:
                return int(statm.read().split()[1]) * _PAGE
        except (OSError, IndexError, ValueError):
            return 0

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):  # SIGKILL cannot be ignored
            self.process.wait(5)
        self.connection.close()


class Pool:
    """A few reused child processes with limits; `call` runs one task in one of them."""

    def __init__(self, limits: Limits | None = None):
        self.limits = limits or Limits()
        self.idle: list[_Worker] = []
        self.started = 0  # children alive or handed out
        self.deaths = 0  # children lost to a crash, a limit or the deadline
        self.lock = threading.Condition()
        self.pid = os.getpid()

    def _take(self, deadline: float) -> _Worker:
        with self.lock:
            if self.pid != os.getpid():  # forked (e.g. a gunicorn worker): the pipes are not ours
                self.idle, self.started, self.pid = [], 0, os.getpid()
            while not self.idle and self.started >= self.limits.workers:
                left = deadline - time.monotonic()
                if left <= 0 or not self.lock.wait(left):
                    raise Busy("the server is busy rendering other files; try again")
            if self.idle:
                return self.idle.pop()
            self.started += 1
        try:
            return _Worker(self.limits)
        except BaseException:
            self._release(None)
            raise

    def _release(self, worker: _Worker | None) -> None:
        with self.lock:
            if worker is None:
                self.started -= 1
            else:
                self.idle.append(worker)
            self.lock.notify()

    def _deadline(self, seconds: float | None, path: str | None) -> tuple[float, _Budget | None]:
        """When the call must end, and the budget that sets it if that comes before the call's own."""
        now = time.monotonic()
        deadline = now + min(self.limits.deadline_seconds, seconds or math.inf)
        shared = _budget.get()
        if shared is None or shared.ends >= deadline:
            return deadline, None
        if shared.ends <= now:
            raise _over_budget(shared, path)
        return shared.ends, shared

    def call(
        self, function: Callable, *args: Any, path: str | None = None, seconds: float | None = None
    ) -> Any:
        """function(*args) in a child, within the pool's deadline (or `seconds`, if sooner, or the
        enclosing `budget`'s end). InputError raised there is raised here; a crash, a limit or the
        deadline becomes LimitExceeded naming `path` (OverBudget when the budget ran out)."""
        deadline, shared = self._deadline(seconds, path)
        try:
            worker = self._take(deadline)
        except Busy:
            enclosing = _budget.get()
            if enclosing is not None:
                enclosing.busy = True
            raise
        kind: str = "lost"
        value: Any = None
        try:
            worker.connection.send((function, args))
            kind, value = self._wait(worker, deadline)
        except (EOFError, OSError):
            kind = "lost"
        except BaseException:
            worker.stop()
            self._release(None)
            raise
        if kind in ("ok", "input", "limit", "error", "deep"):
            self._release(worker)
        else:
            worker.stop()
            self.deaths += 1
            self._release(None)
        if kind == "ok":
            return value
        if kind == "input":
            message, where, line, column, start = value
            raise InputError(message, where or path, line, column, likely_start=start)
        if kind == "limit":
            message, where, line, column, start = value
            raise LimitExceeded(message, where or path, line, column, likely_start=start)
        if kind == "error":
            raise WorkerError(value)
        if kind == "deadline" and shared is not None:
            raise _over_budget(shared, path)
        raise LimitExceeded(self._explain(kind, worker), path)

    def _wait(self, worker: _Worker, deadline: float) -> tuple[str, Any]:
        """The child's answer, or why there is none: past the deadline, or over resident_bytes."""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return "deadline", None
            if worker.connection.poll(min(left, _WATCH_SECONDS)):
                with collector.paused():  # a large render unpickles
                    return worker.connection.recv()
            if self.limits.resident_bytes and worker.resident() > self.limits.resident_bytes:
                return "resident", None

    def _explain(self, kind: str, worker: _Worker) -> str:
        if kind == "deep":
            return "the document is nested too deeply to read"
        if kind == "memory":
            return (
                f"the file is too large to read within the limits "
                f"({self.limits.memory_bytes // MB} MB of address space)"
            )
        if kind == "resident":
            return (
                f"the file is too large to read within the limits "
                f"({self.limits.resident_bytes // MB} MB of memory)"
            )
        if kind == "deadline":
            return f"the file took longer than {self.limits.deadline_seconds:g} s to read and was given up"
        code = worker.process.poll()
        if code in (-signal.SIGPROF, -signal.SIGXCPU):
            return f"the file took more than {self.limits.cpu_seconds:g} s of CPU time to read"
        if code == -signal.SIGKILL:  # the kernel's OOM killer
            return "the file is too large to read within the limits"
        return f"the file crashed the parser (exit {code}); it cannot be read"

    def close(self) -> None:
        with self.lock:
            workers, self.idle = self.idle, []
            self.started -= len(workers)
        for worker in workers:
            worker.stop()


_pools: dict[Limits, Pool] = {}
_pools_lock = threading.Lock()


def pool(limits: Limits | None = None) -> Pool:
    """The process-wide pool for these limits (created on first use)."""
    limits = limits or Limits()
    with _pools_lock:
        found = _pools.get(limits)
        if found is None:
            found = _pools[limits] = Pool(limits)
        return found


def _render(bundle, path, options, distinct_ids):
    from .documents import give_cases_distinct_ids, render_document

    document = render_document(bundle, path, options)
    return give_cases_distinct_ids(document) if distinct_ids else document


def render_bounded(
    bundle, path: str, options=None, *, limits: Limits | None = None, distinct_ids: bool = False
):
    """render_document(bundle, path, options) in a bounded child process."""
    return pool(limits).call(_render, bundle, path, options, distinct_ids, path=path)


if __name__ == "__main__":
    import importlib

    for module in _PRELOAD:  # before the memory limit, and once for every task to come
        importlib.import_module(module)
    _worker_main(Connection(int(sys.argv[1])), Limits(**json.loads(sys.argv[2])))
