"""Several app servers are one site: two gunicorn instances on ports of their own share one
PostgreSQL database, one redis-server and one S3-compatible bucket (moto's server), and nothing
one of them does is hidden from the other by what it keeps in its own memory. A third instance,
whose object storage never answers, is killed in the middle of an upload: nothing is half-saved.

Needs PostgreSQL (DATABASE_URL when it names one, else 127.0.0.1:5432 as in CI); makes and drops a
database of its own."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import httpx
import pytest

from tests import servers
from tests.conftest import REPO

SUITE = "tests:\n  - id: first\n    input: What is shown?\n  - id: second\n    input: And here?\n"
WRITES_PER_MINUTE = 4
QUEUED_BYTES = 4000  # an upload this large goes to the queue; the other tests' are smaller
ANCHOR = {"kind": "message", "document": "evals/suite.yaml", "case_id": "first", "message_index": 0}


def postgres_server_url() -> str:
    """The server DATABASE_URL names (else CI's), at its maintenance database: the one named there
    need not exist (pytest-django makes its own test_ one)."""
    configured = urlparse(os.getenv("DATABASE_URL", ""))
    if configured.scheme in ("postgres", "postgresql"):
        return configured._replace(path="/postgres").geturl()
    return "postgres://postgres@127.0.0.1:5432/postgres"


def _connect(url: str):
    import psycopg

    parsed = urlparse(url)
    return psycopg.connect(
        host=parsed.hostname,
        port=parsed.port or 5432,
        user=parsed.username,
        password=parsed.password,
        dbname=parsed.path.lstrip("/"),
        autocommit=True,
        connect_timeout=3,
    )


@contextmanager
def own_database() -> Iterator[str]:
    """A fresh database on the PostgreSQL server: its URL."""
    server = postgres_server_url()
    try:
        admin = _connect(server)
    except Exception:  # noqa: BLE001 - no server to run on
        servers.missing("PostgreSQL at " + urlparse(server).netloc)
    name = f"pi_cluster_{uuid.uuid4().hex[:12]}"
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield urlparse(server)._replace(path="/" + name).geturl()
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def query(database: str, sql: str) -> list[tuple]:
    with _connect(database) as connection:
        return connection.execute(sql).fetchall()


@dataclass
class Instance:
    url: str
    process: subprocess.Popen

    def kill(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)


def start_instance(environment: dict[str, str]) -> Instance:
    port = servers.free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "-c",
            "python:inspector.gunicorn_conf",
            "--workers",
            "2",
            "--no-control-socket",
            "--bind",
            f"127.0.0.1:{port}",
            "inspector.wsgi",
        ],
        cwd=REPO,
        env=environment,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
    )
    return Instance(f"http://127.0.0.1:{port}", process)


def wait_until_serving(instance: Instance) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx.get(instance.url + "/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if instance.process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the instance at {instance.url} did not start")
        time.sleep(0.1)


class SilentStorage:
    """An S3 endpoint that takes requests and never answers: an instance writing an object to it
    is stuck inside its upload's transaction until it is killed. `asked` is set at the first."""

    def __init__(self):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.asked = threading.Event()
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.held.append(connection)
            self.asked.set()

    def close(self) -> None:
        for connection in self.held:
            connection.close()
        self.listener.close()


@dataclass
class Cluster:
    first: Instance
    second: Instance
    environment: dict[str, str]
    database: str
    endpoint: str
    bucket: str


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Iterator[Cluster]:
    folder = tmp_path_factory.mktemp("cluster")
    with (
        own_database() as database,
        servers.redis_server(folder) as redis_url,
        servers.s3_server() as endpoint,
    ):
        os.environ.update(servers.S3_ENVIRONMENT)  # for this process's own look at the bucket
        bucket = servers.new_bucket(endpoint)
        environment = {
            **os.environ,
            **servers.S3_ENVIRONMENT,
            "DJANGO_SETTINGS_MODULE": "inspector.settings",
            "DATABASE_URL": database,
            "REDIS_URL": redis_url,
            "STORAGE_URL": servers.s3_storage_url(endpoint, bucket),
            "SECRET_KEY": "cluster-test-" + uuid.uuid4().hex,
            "DEBUG": "false",
            "REVIEW_WRITES_PER_MINUTE": str(WRITES_PER_MINUTE),
            "RENDER_WORKERS": "1",
            "UPLOAD_QUEUE_BYTES": str(QUEUED_BYTES),
            "STATIC_ROOT": str(folder / "static"),
        }
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--verbosity", "0"],
            cwd=REPO,
            env=environment,
            check=True,
        )
        instances = [start_instance(environment) for _ in range(2)]
        try:
            for instance in instances:
                wait_until_serving(instance)
            yield Cluster(instances[0], instances[1], environment, database, endpoint, bucket)
        finally:
            for instance in instances:
                if instance.process.poll() is None:
                    instance.kill()


def upload(instance: Instance, files: dict[str, str], title: str = "suite") -> dict:
    answer = httpx.post(instance.url + "/api/bundles", json={"files": files, "title": title}, timeout=30)
    assert answer.status_code == 201, answer.text
    return answer.json()


def case_page(instance: Instance, bundle_id: str) -> httpx.Response:
    return httpx.get(f"{instance.url}/b/{bundle_id}/evals/suite.yaml/case/first/", timeout=30)


def test_an_upload_on_one_server_is_seen_on_the_other(cluster):
    bundle = upload(cluster.first, {"evals/suite.yaml": SUITE})
    seen = httpx.get(f"{cluster.second.url}/api/bundles/{bundle['id']}", timeout=30)
    assert seen.status_code == 200, seen.text
    assert "evals/suite.yaml" in seen.text
    page = case_page(cluster.second, bundle["id"])
    assert page.status_code == 200 and "What is shown?" in page.text


def test_a_comment_on_one_server_appears_on_the_other(cluster):
    bundle = upload(cluster.first, {"evals/suite.yaml": SUITE})
    threads_url = f"/api/bundles/{bundle['id']}/threads"
    # Seen empty first, so a server keeping what it answered would answer it again.
    assert httpx.get(cluster.second.url + threads_url, timeout=30).json() == []
    made = httpx.post(
        cluster.first.url + threads_url,
        json={"anchor": ANCHOR, "body": "Written on the first server"},
        timeout=30,
    )
    assert made.status_code == 201, made.text
    shown = httpx.get(cluster.second.url + threads_url, timeout=30).json()
    assert [comment["body"] for thread in shown for comment in thread["comments"]] == [
        "Written on the first server"
    ]


def test_a_delete_on_one_server_is_a_404_on_the_other_at_once(cluster):
    bundle = upload(cluster.first, {"evals/suite.yaml": SUITE + "# deleted\n"})
    # Both servers have shown it, so each keeps its files and page in its own memory.
    for instance in (cluster.first, cluster.second):
        for _ in range(2):  # each of the two workers, most likely
            assert case_page(instance, bundle["id"]).status_code == 200
    deleted = httpx.delete(
        f"{cluster.second.url}/api/bundles/{bundle['id']}",
        headers={"X-Manage-Token": bundle["manage_token"]},
        timeout=30,
    )
    assert deleted.status_code == 204, deleted.text
    for _ in range(4):
        assert case_page(cluster.first, bundle["id"]).status_code == 404
        assert httpx.get(f"{cluster.first.url}/api/bundles/{bundle['id']}", timeout=30).status_code == 404


def test_the_write_limit_holds_across_both_servers(cluster):
    bundle = upload(cluster.first, {"evals/suite.yaml": SUITE + "# limited\n"})
    threads_url = f"/api/bundles/{bundle['id']}/threads"
    # The limit counts writes per minute: start early in one, so all are counted in the same.
    if time.time() % 60 > 50:
        time.sleep(60 - time.time() % 60)
    answers = [
        httpx.post(
            instance.url + threads_url, json={"anchor": ANCHOR, "body": f"n{n}"}, timeout=30
        ).status_code
        for n, instance in enumerate([cluster.first, cluster.second] * 3)
    ]
    # Earlier tests wrote from this address too, maybe in this minute: the limit is reached once.
    passed = answers.count(201)
    assert passed <= WRITES_PER_MINUTE and answers == [201] * passed + [429] * (6 - passed)
    assert 429 in answers


def test_no_file_content_is_in_the_database(cluster):
    upload(cluster.second, {"evals/suite.yaml": SUITE + "# stored in the bucket\n"})
    rows = query(cluster.database, "SELECT sha256, data IS NULL FROM inspector_blob")
    assert rows and all(in_bucket for _, in_bucket in rows)
    keys = set(servers.bucket_keys(cluster.endpoint, cluster.bucket))
    assert {f"blobs/{sha[:2]}/{sha}" for sha, _ in rows} <= keys


def test_an_upload_queued_on_one_server_is_stored_by_the_worker_and_seen_on_the_other(cluster):
    large = SUITE + "# " + "padding " * (QUEUED_BYTES // 8) + "\n"
    answer = httpx.post(
        cluster.first.url + "/api/bundles",
        json={"files": {"evals/suite.yaml": large}, "title": "queued"},
        timeout=30,
    )
    assert answer.status_code == 202, answer.text
    status_path = urlparse(answer.json()["status_url"]).path
    assert httpx.get(cluster.second.url + status_path, timeout=30).json()["status"] == "queued"
    # With Redis the queue is django-rq's on it: its worker, until the queue is empty.
    subprocess.run(
        [sys.executable, "manage.py", "rqworker", "--burst", "default"],
        cwd=REPO,
        env=cluster.environment,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=60,
    )
    stored = httpx.get(cluster.second.url + status_path, timeout=30).json()
    assert stored["status"] == "stored", stored
    assert case_page(cluster.second, stored["id"]).status_code == 200
    keys = servers.bucket_keys(cluster.endpoint, cluster.bucket)
    assert not any(key.startswith("staged/") for key in keys)


def test_killing_a_server_mid_upload_leaves_nothing_half_saved(cluster):
    silent = SilentStorage()
    stuck = start_instance(
        {
            **cluster.environment,
            "STORAGE_URL": servers.s3_storage_url(f"http://127.0.0.1:{silent.port}", cluster.bucket),
        }
    )
    try:
        wait_until_serving(stuck)
        title = "killed-" + uuid.uuid4().hex
        files = {"evals/suite.yaml": SUITE + f"# {title}\n"}
        sending = threading.Thread(target=lambda: _upload_ignoring_the_end(stuck, files, title), daemon=True)
        sending.start()
        assert silent.asked.wait(30), "the upload never reached object storage"
        stuck.kill()
        sending.join(30)
    finally:
        if stuck.process.poll() is None:
            stuck.kill()
        silent.close()
    assert query(cluster.database, f"SELECT count(*) FROM inspector_bundle WHERE title = '{title}'") == [(0,)]
    # Every row still names an object that exists, and the other servers serve on.
    rows = {
        f"blobs/{sha[:2]}/{sha}" for (sha,) in query(cluster.database, "SELECT sha256 FROM inspector_blob")
    }
    assert rows <= set(servers.bucket_keys(cluster.endpoint, cluster.bucket))
    again = upload(cluster.second, files, title)
    assert case_page(cluster.first, again["id"]).status_code == 200


def _upload_ignoring_the_end(instance: Instance, files: dict[str, str], title: str) -> None:
    # The server is killed under it: the point of the test.
    with contextlib.suppress(httpx.HTTPError):
        httpx.post(instance.url + "/api/bundles", json={"files": files, "title": title}, timeout=60)


LEASE_SECONDS = 6  # renewed every 2 s: room for a busy machine's late renewal
WORKERS = {
    "rq": ["rqworker", "default"],
    "database": ["db_worker", "--no-startup-delay", "--interval", "0.2"],
}


@pytest.mark.parametrize("backend", sorted(WORKERS))
def test_a_task_whose_worker_is_killed_turns_failed_and_nothing_is_stored(cluster, backend):
    environment = {**cluster.environment, "QUEUE_LEASE_SECONDS": str(LEASE_SECONDS)}
    if backend == "database":
        del environment["REDIS_URL"]  # no Redis: django-tasks' database backend
    title = "worker-killed-" + uuid.uuid4().hex
    upload_id = in_app(
        environment,
        "from inspector.bundles import upload_queue; "
        f"print(upload_queue.enqueue({{'evals/suite.yaml': {(SUITE + '# ' + title).encode()!r}}}, {title!r})[0])",
    )
    silent = SilentStorage()  # the worker reads the staged files from it and never gets them
    worker = subprocess.Popen(
        [sys.executable, "manage.py", *WORKERS[backend]],
        cwd=REPO,
        env={
            **environment,
            "STORAGE_URL": servers.s3_storage_url(f"http://127.0.0.1:{silent.port}", cluster.bucket),
        },
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert silent.asked.wait(60), "the worker never started the task"
        time.sleep(1.5 * LEASE_SECONDS)  # past one lease: renewed while the worker lives
        assert upload_state(environment, upload_id) == "running"
        kill_with_children(worker)
        killed = time.monotonic()
        while (state := upload_state(environment, upload_id)) == "running" and time.monotonic() < killed + 60:
            time.sleep(1)
        assert state == "failed"
    finally:
        if worker.poll() is None:
            kill_with_children(worker)
        silent.close()
    assert query(cluster.database, f"SELECT count(*) FROM inspector_bundle WHERE title = '{title}'") == [(0,)]
    # What the killed task had staged is left to the sweep.
    assert any(key.startswith("staged/") for key in servers.bucket_keys(cluster.endpoint, cluster.bucket))
    in_app(
        environment, "from django.core.management import call_command; call_command('sweep', grace_hours=0)"
    )
    assert not any(key.startswith("staged/") for key in servers.bucket_keys(cluster.endpoint, cluster.bucket))


def in_app(environment: dict[str, str], code: str) -> str:
    """What `code` prints, run in the app with this environment."""
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "--no-imports", "-c", code],
        cwd=REPO,
        env=environment,
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.stdout.strip()


def upload_state(environment: dict[str, str], upload_id: str) -> str:
    return in_app(
        environment,
        f"from inspector.bundles import upload_queue; print(upload_queue.status({upload_id!r}).state)",
    )


def kill_with_children(process: subprocess.Popen) -> None:
    """SIGKILL to the process and its children at once, as when its machine goes: rq's worker runs
    each task in a child of its own process group, which a kill of the worker's group would miss."""
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == process.pid:
                children.append(int(stat.parent.name))
    for pid in [process.pid, *children]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    process.wait(10)
