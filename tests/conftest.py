import io
import json
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# The outside corpus (real eval files and decks from public repositories, and what each agentv
# release made of them) is not part of the repository: tests whose point is that corpus carry the
# `corpus` mark and run only when PI_CORPUS names its folder (.ci/run sets it to ../shared/corpus
# when that exists); every other test reads only what the repository holds.
CORPUS = Path(os.environ["PI_CORPUS"]).resolve() if os.environ.get("PI_CORPUS") else None


def corpus_files(pattern: str) -> list[Path]:
    """The corpus's files matching a glob, sorted; none without PI_CORPUS (a test over them
    carries the `corpus` mark, which reports it skipped then)."""
    return sorted(CORPUS.glob(pattern)) if CORPUS else []


def path_id(path: Path) -> str:
    """A test id for a file or folder of the corpus or the repository: its path inside that."""
    return path.relative_to(CORPUS if CORPUS and CORPUS in path.parents else REPO).as_posix()


def corpus_param(relative: str, why: str) -> object:
    """A test parameter naming a folder of the corpus (None without PI_CORPUS, when the `corpus`
    mark it carries reports the test skipped, with the reason)."""
    return pytest.param(
        CORPUS / relative if CORPUS else None, marks=pytest.mark.corpus(why), id=f"corpus/{relative}"
    )


# The fixtures through which pytest-django lets a test reach the database. pytest-django refuses
# database access to any other test, so a test without one of these (or the `django_db` mark)
# gives the same result on every database.
DATABASE_FIXTURES = frozenset(
    {"db", "transactional_db", "live_server", "django_db_reset_sequences", "django_db_serialized_rollback"}
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--database-pass",
        action="store_true",
        help="run only the tests whose result can depend on the database (a second pass on "
        "another database: the rest ran in the first)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "corpus(why): needs the outside corpus, runs only when "
        "PI_CORPUS names its folder; skipped with the reason otherwise",
    )
    config.addinivalue_line(
        "markers",
        "database: reaches the database without pytest-django's fixtures (a process of its own "
        "started on DATABASE_URL); kept in the --database-pass",
    )
    if CORPUS is not None and not CORPUS.is_dir():
        raise pytest.UsageError(f"PI_CORPUS names {CORPUS}, which is not a folder")


def reaches_database(item: pytest.Item) -> bool:
    fixtures = set(getattr(item, "fixturenames", ()))
    marked = item.get_closest_marker("django_db") or item.get_closest_marker("database")
    return bool(marked or fixtures & DATABASE_FIXTURES)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--database-pass"):
        kept = [item for item in items if reaches_database(item)]
        config.hook.pytest_deselected(items=[item for item in items if not reaches_database(item)])
        items[:] = kept
    if CORPUS is not None:
        return
    for item in items:
        mark = item.get_closest_marker("corpus")
        if mark is not None:
            # Put first: a test parametrized over the corpus's files has an empty parameter set
            # without it, and pytest's own skip for that would otherwise be the reason shown.
            item.add_marker(pytest.mark.skip(reason=f"PI_CORPUS is not set: {mark.args[0]}"), append=False)


@pytest.fixture(autouse=True)
def _fresh_caches():
    # Bundles and renderings are cached per process by id; each test starts with an empty database.
    from inspector.bundles import loading

    loading.clear_caches()
    yield


def run_render(*args: str) -> tuple[int, object, str]:
    """`manage.py render` in process: exit code, the parsed JSON it printed (None if nothing), stderr."""
    from django.core.management import call_command

    out, err = io.StringIO(), io.StringIO()
    code = 0
    try:
        call_command("render", *args, stdout=out, stderr=err)
    except SystemExit as exit_:
        code = exit_.code
    text = out.getvalue()
    return code, json.loads(text) if text.strip() else None, err.getvalue()


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory) -> object:
    """A redis-server of the tests' own, on a free port (tests.servers)."""
    from tests import servers

    with servers.redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url


def run_database_worker() -> None:
    """The database backend's worker, here until no task waits."""
    from django.core.management import call_command

    call_command("db_worker", "--batch", "--no-startup-delay", verbosity=0)


@pytest.fixture(params=["database", "rq"])
def queue_worker(request, settings) -> object:
    """Runs the tasks waiting in the queue, on each backend the settings may choose: django-tasks'
    database backend (`manage.py db_worker`), or django-rq on the tests' redis-server (rq's worker,
    in this process so that it sees the test database)."""
    if request.param == "database":
        return run_database_worker
    import django_rq
    import redis
    from rq import SimpleWorker

    from inspector.settings import queue_on_redis

    url = request.getfixturevalue("redis_url").rsplit("/", 1)[0] + "/1"  # the caches' is /0
    redis.Redis.from_url(url).flushdb()
    for name, value in queue_on_redis(url).items():
        setattr(settings, name, value)
    return lambda: django_rq.get_worker("default", worker_class=SimpleWorker).work(burst=True)


@pytest.fixture(scope="session")
def s3_endpoint() -> object:
    """moto's S3 server on a free port, with keys set for boto3 (tests.servers)."""
    from tests import servers

    saved = {name: os.environ.get(name) for name in servers.S3_ENVIRONMENT}
    os.environ.update(servers.S3_ENVIRONMENT)
    try:
        with servers.s3_server() as endpoint:
            yield endpoint
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@pytest.fixture
def s3_blobs(s3_endpoint, settings) -> object:
    """Uploaded files' contents in a fresh bucket of the S3 server, as STORAGE_URL would set it:
    (endpoint, bucket)."""
    from inspector.settings import storage_from_url
    from tests import servers

    bucket = servers.new_bucket(s3_endpoint)
    settings.STORAGES = {
        **settings.STORAGES,
        "blobs": storage_from_url(servers.s3_storage_url(s3_endpoint, bucket)),
    }
    return s3_endpoint, bucket
