"""An export as something to run: a curl command, Python SDK code, TypeScript SDK code.

Each embeds the payload as JSON text and parses it at run time, so whatever the prompt holds
(quotes, backslashes, `${`, non-ASCII) reaches the provider byte for byte.
"""

from __future__ import annotations

import json
from typing import Any

from .common import ExportResult
from .registry import provider

FORMATS = ("json", "curl", "python", "typescript")
HEREDOC = "PROMPT_INSPECTOR_PAYLOAD"

# Gemini's generationConfig keys are flattened into the SDKs' `config` beside these two.
GEMINI_CONFIG_KEYS = ("systemInstruction", "tools")


def payload_json(result: ExportResult) -> str:
    return json.dumps(result.payload, indent=2, ensure_ascii=False)


def endpoint(result: ExportResult) -> str:
    return provider(result.provider).http.endpoint(result.model)


def gemini_config(payload: dict[str, Any]) -> dict[str, Any]:
    """The SDKs' GenerateContentConfig (camelCase keys, which both SDKs accept) from a REST body."""
    config = {key: payload[key] for key in GEMINI_CONFIG_KEYS if key in payload}
    config.update(payload.get("generationConfig", {}))
    return config


def render_code(result: ExportResult, form: str) -> str:
    if form == "json":
        return payload_json(result)
    if form == "curl":
        return curl(result)
    if form == "python":
        return python(result)
    if form == "typescript":
        return typescript(result)
    raise ValueError(f"unknown format {form!r}; choose one of {', '.join(FORMATS)}")


def _comment(prefix: str, result: ExportResult) -> str:
    if result.case_id is None:
        return ""
    one_line = " ".join(result.case_id.split())
    return f"{prefix} case {one_line}\n"


def curl(result: ExportResult) -> str:
    """The shell form: curl, or the provider's own client when it has one (see spec.Shell)."""
    body = payload_json(result)
    delimiter = HEREDOC
    while f"\n{delimiter}\n" in f"\n{body}\n":
        delimiter += "_"
    spec = provider(result.provider)
    if spec.shell is not None:
        return _comment("#", result) + spec.shell.script(result.model, body, delimiter)
    headers = [f'-H "{header}"' for header in spec.http.headers]
    headers.append('-H "Content-Type: application/json"')
    lines = [f"curl {_shell_quote(endpoint(result))}"] + headers + [f"--data-binary @- <<'{delimiter}'"]
    return _comment("#", result) + " \\\n  ".join(lines) + "\n" + body + "\n" + delimiter


def _shell_quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def _python_literal(text: str) -> str:
    # Escaping every backslash and single quote leaves no way to end the literal early.
    return "'''" + text.replace("\\", "\\\\").replace("'", "\\'") + "'''"


def requirements(result: ExportResult, registry: str) -> list[str]:
    """The SDK packages (with their minimum versions) a form needs, from the provider's spec:
    `registry` is "PyPI" or "npm"."""
    suffix = f" ({registry})"
    return [sdk.removesuffix(suffix) for sdk in provider(result.provider).sdks if sdk.endswith(suffix)]


def python(result: ExportResult) -> str:
    literal = _python_literal(payload_json(result))
    needs = " ".join(f'"{package}"' for package in requirements(result, "PyPI"))
    head = _comment("#", result) + (f"# Needs: pip install {needs}\n" if needs else "")
    return provider(result.provider).python(result, literal, head)


def _template_literal(text: str) -> str:
    return "`" + text.replace("\\", "\\\\").replace("`", "\\`").replace("${", "\\${") + "`"


ES_MODULE_NOTE = (
    '// An ES module (it awaits at the top level): save it as .mjs or .mts, or set "type": "module".\n'
)


def typescript(result: ExportResult) -> str:
    literal = _template_literal(payload_json(result))
    needs = " ".join(_npm_spec(package) for package in requirements(result, "npm"))
    head = _comment("//", result) + (f"// Needs: npm install {needs}\n" if needs else "")
    return ES_MODULE_NOTE + provider(result.provider).typescript(result, literal, head)


def _npm_spec(requirement: str) -> str:
    """npm's spelling of `name>=version`: `"name@>=version"`."""
    name, _, version = requirement.partition(">=")
    return f'"{name}@>={version}"' if version else name


def render_codes(results: list[ExportResult], form: str) -> str:
    """Several cases' code as one program. TypeScript (an ES module) allows each import once and
    only at the top, and each case declares its own `client` and `payload`: the imports are hoisted
    and each case runs in a block of its own."""
    codes = [render_code(result, form) for result in results]
    if form != "typescript" or len(codes) < 2:
        return "\n\n".join(codes)
    imports: list[str] = []
    blocks = []
    for code in codes:
        body = []
        for line in code.removeprefix(ES_MODULE_NOTE).split("\n"):
            if line.startswith("import "):
                if line not in imports:
                    imports.append(line)
            else:
                body.append(line)
        text = "\n".join(body).strip("\n")
        blocks.append("{\n" + "".join(f"  {line}\n" if line else "\n" for line in text.split("\n")) + "}\n")
    return ES_MODULE_NOTE + "\n".join(imports) + "\n\n" + "\n".join(blocks)
