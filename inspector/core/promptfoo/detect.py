"""Which files `auto` reads as promptfoo configs: `promptfooconfig.yaml`/`.yml`/`.json` by name,
and any YAML or JSON document with promptfoo's top-level `prompts`, `providers` and `tests` that
does not use agentv's own snake_case keys: agentv's newest format is promptfoo's, snake_cased, so
a file with `expected_output` or `default_test` (at any depth) or a top-level `defaults` is
agentv's, read by its profiles."""

from __future__ import annotations

import json
import posixpath
import re

CONFIG_NAMES = ("promptfooconfig.yaml", "promptfooconfig.yml", "promptfooconfig.json")
KEYS = ("prompts", "providers", "tests")
TOP_LEVEL_KEY = re.compile(r"^[\"']?(prompts|providers|tests)[\"']?\s*:", re.MULTILINE)
# Keys agentv writes in snake_case where promptfoo has none or spells them in camelCase.
_AGENTV_KEYS = "expected_output|default_test|evaluate_options|provider_output"
AGENTV_KEY_YAML = re.compile(rf"^[ \t]*(?:-[ \t]+)?[\"']?(?:{_AGENTV_KEYS})[\"']?[ \t]*:", re.MULTILINE)
AGENTV_KEY_JSON = re.compile(rf'"(?:{_AGENTV_KEYS})"\s*:')
# agentv's `defaults` (the provider and the grader a run uses); promptfoo's config has no such key.
AGENTV_TOP_LEVEL_KEY = "defaults"
AGENTV_TOP_LEVEL_YAML = re.compile(rf"^[\"']?{AGENTV_TOP_LEVEL_KEY}[\"']?[ \t]*:", re.MULTILINE)


def claims(path: str, text: str) -> bool:
    name = posixpath.basename(path.lower())
    if name in CONFIG_NAMES:
        return True
    if name.endswith(".json"):
        return _json_keys(text) and not AGENTV_KEY_JSON.search(text)
    if not name.endswith((".yaml", ".yml")):
        return False
    keys = {match.group(1) for match in TOP_LEVEL_KEY.finditer(text)}
    return keys == set(KEYS) and not AGENTV_KEY_YAML.search(text) and not AGENTV_TOP_LEVEL_YAML.search(text)


def claimed_by_keys(path: str) -> bool:
    """Whether `auto` chose promptfoo for this file by its keys rather than its name: agentv's
    newest commit (58f316ca2, ADR 0016) reads such a file too, and sends other messages."""
    name = posixpath.basename(path.lower())
    return name not in CONFIG_NAMES and name.endswith((".yaml", ".yml"))


def _json_keys(text: str) -> bool:
    if not all(f'"{key}"' in text for key in KEYS):
        return False
    try:
        data = json.loads(text)
    except ValueError:
        return False
    return isinstance(data, dict) and all(key in data for key in KEYS) and AGENTV_TOP_LEVEL_KEY not in data
