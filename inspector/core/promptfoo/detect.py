"""Which files `auto` reads as promptfoo configs: `promptfooconfig.yaml`/`.yml`/`.json` by name,
and any YAML or JSON document with promptfoo's top-level `prompts`, `providers` and `tests` that
shows nothing of agentv's. agentv's newest format is promptfoo's, snake_cased, so a file is
agentv's, read by its profiles, when it uses agentv's snake_case keys (`expected_output`,
`default_test`, at any depth), a top-level key agentv's eval file has and promptfoo's config has
not (`name`, `defaults`, `governance`...), or a name agentv's CLI finds in a folder and promptfoo's
does not (`suite.yaml`, `eval.yaml`, `*.eval.yaml`)."""

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
# The top-level keys of agentv's eval file (eval-validator.ts KNOWN_TOP_LEVEL_FIELDS at 58f316ca2)
# that promptfoo's config (TestSuiteConfigSchema, 0.123.1) has not. `$schema` is left out: a
# promptfoo JSON config may name its published schema so.
AGENTV_TOP_LEVEL_KEYS = [
    "name",
    "category",
    "version",
    "author",
    "license",
    "requires",
    "expected_output",
    "input",
    "input_files",
    "graders",
    "defaults",
    "environment",
    "target",
    "model",
    "policy",
    "experiment",
    "execution",
    "repeat",
    "runs",
    "early_exit",
    "timeout_seconds",
    "evaluate_options",
    "threshold",
    "default_test",
    "assert",
    "derived_metrics",
    "output_path",
    "nunjucks_filters",
    "on_run_complete",
    "workspace",
    "governance",
]
AGENTV_TOP_LEVEL_YAML = re.compile(
    rf"^[\"']?(?:{'|'.join(AGENTV_TOP_LEVEL_KEYS)})[\"']?[ \t]*:", re.MULTILINE
)
# What agentv's CLI finds in a folder it is given (apps/cli commands/eval/shared.ts).
AGENTV_FILE_NAMES = ("suite.yaml", "suite.yml", "eval.yaml", "eval.yml")
AGENTV_FILE_SUFFIXES = (".eval.yaml", ".eval.yml")


def claims(path: str, text: str) -> bool:
    name = posixpath.basename(path.lower())
    if name in CONFIG_NAMES:
        return True
    if name in AGENTV_FILE_NAMES or name.endswith(AGENTV_FILE_SUFFIXES):
        return False
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
    return (
        isinstance(data, dict)
        and all(key in data for key in KEYS)
        and not any(key in data for key in AGENTV_TOP_LEVEL_KEYS)
    )
