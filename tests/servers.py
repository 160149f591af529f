"""The shared services a deployment runs beside the app, started by the tests themselves on free
ports: Debian's redis-server and moto's S3 server (both in .ci/setup --test). Outside CI a
missing one skips the tests that need it; in CI (CI=true) it fails them."""

from __future__ import annotations

import logging
import os
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

import pytest


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port: int, seconds: float = 15) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def missing(what: str) -> NoReturn:
    if os.getenv("CI"):
        pytest.fail(f"{what} is needed in CI (.ci/setup --test)")
    pytest.skip(f"{what} is not installed")


@contextmanager
def redis_server(folder: Path) -> Iterator[str]:
    """A redis-server of the caller's own, bounded as the README says to run one: its URL."""
    server = shutil.which("redis-server")
    try:
        import redis  # noqa: F401 - Django's RedisCache needs the client
    except ImportError:
        server = None
    if server is None:
        missing("redis-server and the redis client")
    port = free_port()
    process = subprocess.Popen(
        [
            server,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--maxmemory",
            "64mb",
            "--maxmemory-policy",
            "allkeys-lru",
            "--dir",
            str(folder),
        ],
        stdout=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(10)


@contextmanager
def s3_server() -> Iterator[str]:
    """moto's S3-compatible server in this process (so other processes reach it too): its URL."""
    try:
        from moto.server import ThreadedMotoServer
    except ImportError:
        missing("moto[server]")
    # Its werkzeug logs a line per request; only its warnings are worth reading.
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        wait_for_port(port)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


# moto accepts any key; set so that boto3 never looks for real credentials on the machine.
S3_ENVIRONMENT = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


def new_bucket(endpoint: str) -> str:
    """A fresh bucket on the endpoint: its name."""
    import boto3

    name = f"pi-{uuid.uuid4().hex[:16]}"
    boto3.client("s3", endpoint_url=endpoint, **_credentials()).create_bucket(Bucket=name)
    return name


def bucket_keys(endpoint: str, bucket: str) -> list[str]:
    import boto3

    client = boto3.client("s3", endpoint_url=endpoint, **_credentials())
    pages = client.get_paginator("list_objects_v2").paginate(Bucket=bucket)
    return sorted(item["Key"] for page in pages for item in page.get("Contents", []))


def _credentials() -> dict[str, str]:
    return {
        "aws_access_key_id": S3_ENVIRONMENT["AWS_ACCESS_KEY_ID"],
        "aws_secret_access_key": S3_ENVIRONMENT["AWS_SECRET_ACCESS_KEY"],
        "region_name": S3_ENVIRONMENT["AWS_DEFAULT_REGION"],
    }


def s3_storage_url(endpoint: str, bucket: str) -> str:
    return f"s3://{bucket}?endpoint_url={endpoint}&region_name=us-east-1"
