"""gunicorn's settings for the production command (`gunicorn -c python:inspector.gunicorn_conf
inspector.wsgi`): its timeout is the one the app's deadlines are derived from
(settings.REQUEST_TIMEOUT_SECONDS), so a request's bounded work always ends before gunicorn would
kill the worker. Workers and the address stay on the command line."""

import os

timeout = int(os.getenv("REQUEST_TIMEOUT_SECONDS", "30"))
# A sync worker's SIGTERM at a restart: let a request in flight finish within the same budget.
graceful_timeout = timeout
