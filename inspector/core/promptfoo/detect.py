"""Which files `auto` reads as promptfoo configs: `promptfooconfig.yaml`/`.yml`/`.json` by name,
and any YAML or JSON document with promptfoo's top-level `prompts`, `providers` and `tests`."""

from __future__ import annotations

import json
import posixpath
import re

CONFIG_NAMES = ("promptfooconfig.yaml", "promptfooconfig.yml", "promptfooconfig.json")
KEYS = ("prompts", "providers", "tests")
TOP_LEVEL_KEY = re.compile(r"^[\"']?(prompts|providers|tests)[\"']?\s*:", re.MULTILINE)


def claims(path: str, text: str) -> bool:
    name = posixpath.basename(path.lower())
    if name in CONFIG_NAMES:
        return True
    if name.endswith(".json"):
        return _json_keys(text)
    if not name.endswith((".yaml", ".yml")):
        return False
    return {match.group(1) for match in TOP_LEVEL_KEY.finditer(text)} == set(KEYS)


def _json_keys(text: str) -> bool:
    if not all(f'"{key}"' in text for key in KEYS):
        return False
    try:
        data = json.loads(text)
    except ValueError:
        return False
    return isinstance(data, dict) and all(key in data for key in KEYS)
