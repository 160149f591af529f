"""The one settings module. Every setting that differs between a laptop and a deployment comes from
an environment variable, with a default that works straight after a clone."""

import importlib.util
import os
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

from inspector.rendering import untrusted

BASE_DIR = Path(__file__).resolve().parent.parent


def asset_dir(name: str) -> Path:
    """templates/ and static/ sit beside the package in a clone; an installed package (`pip install
    .`, pipx) ships them as the packages inspector_templates and inspector_static."""
    beside = BASE_DIR / name
    if beside.is_dir():
        return beside
    spec = importlib.util.find_spec(f"inspector_{name}")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"Prompt Inspector's {name}/ folder is missing from this installation")
    return Path(next(iter(spec.submodule_search_locations)))


def envbool(name: str, default: str) -> bool:
    return os.getenv(name, default).lower() in ("1", "true", "yes", "on")


def envint(name: str, default: int) -> int:
    return int(os.getenv(name, str(default)))


def database_from_url(url: str) -> dict:
    """postgres://user:pass@host:port/name or sqlite:///path, without another dependency."""
    parsed = urlparse(url)
    if parsed.scheme in ("postgres", "postgresql", "pgsql"):
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": unquote(parsed.path.lstrip("/")),
            "USER": unquote(parsed.username or ""),
            "PASSWORD": unquote(parsed.password or ""),
            "HOST": parsed.hostname or "",
            "PORT": str(parsed.port or ""),
            "CONN_MAX_AGE": envint("DB_CONN_MAX_AGE", 60),
            "TEST": {"NAME": os.getenv("DB_TEST_NAME") or None},
        }
    if parsed.scheme == "sqlite":
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": unquote(parsed.path) or ":memory:"}
    raise ValueError(f"DATABASE_URL: unsupported scheme {parsed.scheme!r}")


# Without SECRET_KEY the built-in key below is used, and inspector.wsgi refuses to serve with it
# unless DEBUG is on (`manage.py serve` picks a random key per run instead).
DEVELOPMENT_SECRET_KEY = "dev-only-insecure-key-change-me-in-production"
SECRET_KEY = os.getenv("SECRET_KEY") or DEVELOPMENT_SECRET_KEY
DEBUG = envbool("DEBUG", "false")
ALLOWED_HOSTS = os.getenv("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver").split(",")
CSRF_TRUSTED_ORIGINS = [o for o in os.getenv("CSRF_TRUSTED_ORIGINS", "").split(",") if o]
SITE_ROOT = os.getenv("SITE_ROOT", "")  # e.g. https://inspector.example.com, for absolute links

INSTALLED_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "ninja",
    "django_tasks",
    "django_tasks_db",
    "inspector",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "inspector.rendering.request_budget.RequestBudgetMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "inspector.views.local.LocalModeGuard",
    "inspector.views.common.ProblemMiddleware",
]

ROOT_URLCONF = "inspector.urls"
WSGI_APPLICATION = "inspector.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [asset_dir("templates")],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "inspector.views.common.local_mode",
                "inspector.views.page_cache.cacheable_csrf",
            ],
        },
    }
]

DATABASES = {
    "default": database_from_url(os.environ["DATABASE_URL"])
    if os.getenv("DATABASE_URL")
    else {"ENGINE": "django.db.backends.sqlite3", "NAME": os.getenv("SQLITE_PATH", BASE_DIR / "db.sqlite3")}
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

USE_TZ = True
TIME_ZONE = "UTC"
LANGUAGE_CODE = "en-us"
USE_I18N = False

STATIC_URL = "/static/"
STATICFILES_DIRS = [asset_dir("static")]
STATIC_ROOT = Path(os.getenv("STATIC_ROOT", BASE_DIR / "staticfiles"))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns on every start when it is missing


def storage_from_url(url: str) -> dict | None:
    """Where uploaded files' contents go: s3://bucket?endpoint_url=...&region_name=... (AWS S3,
    MinIO, R2, Ceph; credentials from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or the instance's
    role), file:///folder, or database:// (or nothing: in the database, so a clone needs nothing)."""
    parsed = urlparse(url)
    if parsed.scheme in ("", "database"):
        return None
    if parsed.scheme == "s3":
        options = {name: values[-1] for name, values in parse_qs(parsed.query).items()}
        return {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {
                "bucket_name": parsed.netloc,
                "file_overwrite": True,
                "default_acl": None,
                "querystring_auth": False,
                **options,
            },
        }
    if parsed.scheme == "file":
        return {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": unquote(parsed.path), "allow_overwrite": True},
        }
    raise ValueError(f"STORAGE_URL: unsupported scheme {parsed.scheme!r}")


STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# Uploaded files' contents, by SHA-256 (inspector/bundles/blobstore.py); absent: kept in the database.
_blob_storage = storage_from_url(os.getenv("STORAGE_URL", ""))
if _blob_storage is not None:
    STORAGES["blobs"] = _blob_storage
# Serve from the finders in development and tests, so no collectstatic step is needed after a clone.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

# Upload limits (bytes and counts), shared by the upload page and the API.
MAX_BUNDLE_BYTES = envint("MAX_BUNDLE_BYTES", 20 * 1024 * 1024)
MAX_BUNDLE_FILES = envint("MAX_BUNDLE_FILES", 2000)
MAX_PATH_LENGTH = envint("MAX_PATH_LENGTH", 255)
MAX_ZIP_RATIO = envint("MAX_ZIP_RATIO", 100)
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_BUNDLE_BYTES + 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = MAX_BUNDLE_BYTES + 1024 * 1024
DATA_UPLOAD_MAX_NUMBER_FILES = MAX_BUNDLE_FILES
DATA_UPLOAD_MAX_NUMBER_FIELDS = 10000

# API uploads of at least this many bytes are stored off the request by the queue's worker
# (inspector/bundles/upload_queue.py) and answered 202; 0 stores every upload in the request.
UPLOAD_QUEUE_BYTES = envint("UPLOAD_QUEUE_BYTES", 0)
# On: a bundle's offline copy not kept yet is made by the same worker while its page polls.
QUEUE_OFFLINE_COPIES = envbool("QUEUE_OFFLINE_COPIES", "false")
# Past this many bytes (0: never) a run check is made by the same worker while the page polls.
RUN_CHECK_QUEUE_BYTES = envint("RUN_CHECK_QUEUE_BYTES", 0)
# The queue behind all three (inspector/bundles/queued.py): with Redis, django-rq on it (worker:
# `manage.py rqworker default`); without, django-tasks' database backend (worker: `manage.py
# db_worker`). QUEUE_REDIS_URL puts the queue on a Redis of its own: REDIS_URL's, a cache that evicts
# its least used keys when full, could evict a waiting task too.
QUEUE_REDIS_URL = os.getenv("QUEUE_REDIS_URL") or os.getenv("REDIS_URL") or None
# A running task's worker renews its lease this often (a third of it); a task whose lease ran out
# is reported failed: its worker was killed (inspector/bundles/queued.py).
QUEUE_LEASE_SECONDS = envint("QUEUE_LEASE_SECONDS", 60)


def queue_on_redis(url: str) -> dict:
    """The settings that put the queue on django-rq at this Redis URL."""
    return {
        # rq kills a task past DEFAULT_TIMEOUT: an hour is past any honest upload's renders, each bounded.
        "RQ_QUEUES": {"default": {"URL": url, "DEFAULT_TIMEOUT": 3600}},
        "RQ": {"JOB_CLASS": "django_tasks_rq.Job"},  # so the worker runs django-tasks' tasks unasked
        "TASKS": {"default": {"BACKEND": "django_tasks_rq.RQBackend", "QUEUES": ["default"]}},
    }


if QUEUE_REDIS_URL:
    INSTALLED_APPS += ["django_rq", "django_tasks_rq"]
    _queue = queue_on_redis(QUEUE_REDIS_URL)
    RQ_QUEUES, RQ, TASKS = _queue["RQ_QUEUES"], _queue["RQ"], _queue["TASKS"]
else:
    TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}

# Review limits: a comment's size, comments (and threads) per bundle, and writes (comments, edits,
# verdicts) per client address in a sliding minute window.
COMMENT_MAX_CHARS = envint("COMMENT_MAX_CHARS", 10_000)
COMMENTS_PER_BUNDLE = envint("COMMENTS_PER_BUNDLE", 2_000)
REVIEW_WRITES_PER_MINUTE = envint("REVIEW_WRITES_PER_MINUTE", 30)
# The client address those writes are counted against. 0 (the default) uses the connection's own
# address, and X-Forwarded-For is ignored: anyone can send one. Behind N proxies that each append
# the address they saw to X-Forwarded-For, set N: the entry the outermost trusted proxy added is
# used (entries left of it are the client's own claims).
TRUSTED_PROXY_COUNT = envint("TRUSTED_PROXY_COUNT", 0)

# Every render of uploaded content runs in one of RENDER_WORKERS child processes (per web worker)
# with these limits; RENDER_IN_PROCESS=true turns that off (debugging only).
RENDER_WORKERS = envint("RENDER_WORKERS", 2)
RENDER_RESIDENT_MB = envint("RENDER_RESIDENT_MB", 512)  # resident memory, watched by the web worker
RENDER_MEMORY_MB = envint("RENDER_MEMORY_MB", 1024)  # address space: the backstop for fast growth
# Not issue 10's 2 s goal: honest renders (a 10 MB bundle, a prompt matrix of 20,000 cases) need up
# to 20 s. RENDER_CPU_SECONDS=1 meets the goal and refuses those.
RENDER_CPU_SECONDS = envint("RENDER_CPU_SECONDS", 20)
# gunicorn kills a worker whose request outlasts its timeout (inspector/gunicorn_conf.py reads the
# same REQUEST_TIMEOUT_SECONDS), so every deadline ends before it: a request's bounded work (all its renders together,
# request_budget) gets three quarters of it, the rest is for what follows (pickling renders into the
# cache, the page, the database), and a single render's deadline is at most that budget.
REQUEST_TIMEOUT_SECONDS = envint("REQUEST_TIMEOUT_SECONDS", 30)
REQUEST_BUDGET_SECONDS = untrusted.request_budget_seconds()
RENDER_DEADLINE_SECONDS = untrusted.render_deadline_seconds()
# Highlighting a source file runs in the same workers, given up after this long for plain lines.
HIGHLIGHT_SECONDS = float(os.getenv("HIGHLIGHT_SECONDS", "2"))
RENDER_IN_PROCESS = envbool("RENDER_IN_PROCESS", "false")
# An installed gambit-core (the folder holding snippets/): gambit decks' gambit://snippets/ embeds
# are read from it when an upload has no copy. Unset: a placeholder and a warning stand there.
GAMBIT_CORE_DIR = os.getenv("GAMBIT_CORE_DIR") or None

# Local mode (`prompt-inspector serve PATH`): the folder is shown, read-only, as the bundle "local";
# uploads, revisions and deletes are off. INSPECTOR_SHARE_TO is the server "Share" may upload it to.
LOCAL_ROOT = os.getenv("INSPECTOR_LOCAL_ROOT") or None
LOCAL_SHARE_TO = (os.getenv("INSPECTOR_SHARE_TO") or "").rstrip("/") or None
LOCAL_WATCH = envbool("INSPECTOR_LOCAL_WATCH", "true")  # off only in tests that bump it by hand
# Set by `serve`: the port local mode answers on (any other Host is refused), and the files the user
# named with --share-include, which Share sends although they look like secrets or git ignores them.
LOCAL_PORT: int | None = None
LOCAL_SHARE_INCLUDE: tuple[str, ...] = ()


def cache_from_url(url: str, max_bytes: int) -> dict:
    """redis://host:6379/0 (or rediss://), file:///folder, or locmem://."""
    parsed = urlparse(url)
    if parsed.scheme in ("redis", "rediss"):
        # Redis bounds its own bytes: start it with --maxmemory and --maxmemory-policy allkeys-lru.
        return {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url, "TIMEOUT": None}
    if parsed.scheme == "file":
        return {
            "BACKEND": "inspector.rendering.cache.ByteBoundedFileCache",
            "LOCATION": unquote(parsed.path),
            "TIMEOUT": None,
            "OPTIONS": {"MAX_BYTES": max_bytes, "MAX_ENTRIES": 1_000_000},
        }
    if parsed.scheme == "locmem":
        return {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "TIMEOUT": None,
            "OPTIONS": {"MAX_ENTRIES": 1000},
        }
    raise ValueError(f"CACHE_URL: unsupported scheme {parsed.scheme!r}")


# Renders and refusals, shared by the web workers and bounded in bytes (see inspector/rendering/cache.py).
RENDER_CACHE_BYTES = envint("RENDER_CACHE_BYTES", 256 * 1024 * 1024)
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "renders": cache_from_url(
        os.getenv("REDIS_URL") or os.getenv("CACHE_URL") or (BASE_DIR / ".cache" / "renders").as_uri(),
        RENDER_CACHE_BYTES,
    ),
}

SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = envbool("SECURE_COOKIES", "false")
# Behind a TLS proxy: trust its X-Forwarded-Proto (so share links come out https://), redirect
# plain HTTP, and send HSTS. Off by default: a fresh clone serves plain HTTP on localhost.
if envbool("TRUST_X_FORWARDED_PROTO", "false"):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", "false")
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]  # load balancers probe over plain HTTP
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", "false")
SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", "false")

CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
    }
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.getenv("LOG_LEVEL", "WARNING")},
}
