"""The example bundles under fixtures/examples/, loaded into the database so they are one click away."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.db import transaction

from inspector.bundles.ingest import store_bundle
from inspector.models import Bundle, hash_token

EXAMPLES_DIR = Path(settings.BASE_DIR) / "fixtures" / "examples"


@dataclass(frozen=True)
class Example:
    name: str
    title: str
    description: str
    entry: str  # the document to open first
    files: dict[str, bytes]

    @property
    def digest(self) -> str:
        return files_digest(self.files)


def files_digest(files: dict[str, bytes]) -> str:
    hasher = hashlib.sha256()
    for path in sorted(files):
        hasher.update(path.encode() + b"\0" + hashlib.sha256(files[path]).digest())
    return hasher.hexdigest()


@lru_cache(maxsize=4)
def read_examples(folder: Path = EXAMPLES_DIR) -> list[Example]:
    # The fixtures ship with the code and do not change while the process runs.
    manifest = tomllib.loads((folder / "examples.toml").read_text(encoding="utf-8"))
    examples = []
    for name, entry in manifest.items():
        root = folder / name
        files = {
            path.relative_to(root).as_posix(): path.read_bytes()
            for path in sorted(root.rglob("*"))
            if path.is_file()
        }
        examples.append(Example(name, entry["title"], entry.get("description", ""), entry["entry"], files))
    return examples


@transaction.atomic
def load_examples() -> list[Bundle]:
    """Store each example once; a changed example gets a new bundle and the old one is retired.
    Each example's manage token is set to example_manage_token's, so the operator can moderate
    the examples' comments (`manage.py load_examples` prints the manage links)."""
    bundles = []
    for example in read_examples():
        current = Bundle.objects.filter(example=example.name).first()
        if current is None or files_digest(current.file_map()) != example.digest:
            Bundle.objects.filter(example=example.name).update(example="")
            current, _ = store_bundle(example.files, title=example.title, example=example.name)
        current.manage_token_hash = hash_token(example_manage_token(current.pk))
        Bundle.objects.filter(pk=current.pk).update(manage_token_hash=current.manage_token_hash)
        bundles.append(current)
    return bundles


def example_manage_token(bundle_id: str) -> str:
    """EXAMPLES_MANAGE_TOKEN when the operator sets one, else one derived from SECRET_KEY and the
    bundle: nothing to store, the same on every load while the key stays, known to whoever holds
    the key (and printed by load_examples)."""
    chosen = os.getenv("EXAMPLES_MANAGE_TOKEN", "")
    if chosen:
        return chosen
    derived = hmac.new(settings.SECRET_KEY.encode(), b"example-manage:" + bundle_id.encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(derived.digest()[:24]).decode()
