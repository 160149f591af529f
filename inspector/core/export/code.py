"""An export as something to run: a curl command, Python SDK code, TypeScript SDK code.

Each embeds the payload as JSON text and parses it at run time, so whatever the prompt holds
(quotes, backslashes, `${`, non-ASCII) reaches the provider byte for byte.
"""

from __future__ import annotations

import json
from typing import Any

from .common import ANTHROPIC, GEMINI, OPENAI_CHAT, OPENAI_RESPONSES, ExportResult, ExportSettings

FORMATS = ("json", "curl", "python", "typescript")

ENDPOINTS = {
    OPENAI_CHAT: "https://api.openai.com/v1/chat/completions",
    OPENAI_RESPONSES: "https://api.openai.com/v1/responses",
    ANTHROPIC: "https://api.anthropic.com/v1/messages",
}
GEMINI_ENDPOINT = "https://generativelanguage.googleapis.com/v1beta/models/{model}:generateContent"
ANTHROPIC_VERSION = "2023-06-01"
HEREDOC = "PROMPT_INSPECTOR_PAYLOAD"

# Gemini's generationConfig keys are flattened into the SDKs' `config` beside these two.
GEMINI_CONFIG_KEYS = ("systemInstruction", "tools")


def payload_json(result: ExportResult) -> str:
    return json.dumps(result.payload, indent=2, ensure_ascii=False)


def endpoint(result: ExportResult) -> str:
    if result.provider == GEMINI:
        return GEMINI_ENDPOINT.format(model=result.model)
    return ENDPOINTS[result.provider]


def gemini_config(payload: dict[str, Any]) -> dict[str, Any]:
    """The SDKs' GenerateContentConfig (camelCase keys, which both SDKs accept) from a REST body."""
    config = {key: payload[key] for key in GEMINI_CONFIG_KEYS if key in payload}
    config.update(payload.get("generationConfig", {}))
    return config


def render_code(result: ExportResult, form: str, settings: ExportSettings | None = None) -> str:
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
    body = payload_json(result)
    delimiter = HEREDOC
    while f"\n{delimiter}\n" in f"\n{body}\n":
        delimiter += "_"
    if result.provider == ANTHROPIC:
        headers = ['-H "x-api-key: $ANTHROPIC_API_KEY"',
                   f'-H "anthropic-version: {ANTHROPIC_VERSION}"']
    elif result.provider == GEMINI:
        headers = ['-H "x-goog-api-key: $GEMINI_API_KEY"']
    else:
        headers = ['-H "Authorization: Bearer $OPENAI_API_KEY"']
    headers.append('-H "Content-Type: application/json"')
    lines = [f"curl {_shell_quote(endpoint(result))}"] + headers + [f"--data-binary @- <<'{delimiter}'"]
    return (_comment("#", result) + " \\\n  ".join(lines) + "\n" + body + "\n" + delimiter)


def _shell_quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def _python_literal(text: str) -> str:
    # Escaping every backslash and single quote leaves no way to end the literal early.
    return "'''" + text.replace("\\", "\\\\").replace("'", "\\'") + "'''"


def python(result: ExportResult) -> str:
    literal = _python_literal(payload_json(result))
    head = _comment("#", result)
    if result.provider == GEMINI:
        return (f"{head}import json\n\nfrom google import genai\n\n"
                "client = genai.Client()  # reads GEMINI_API_KEY\n"
                f"payload = json.loads({literal})\n"
                "config = {key: payload[key] for key in ('systemInstruction', 'tools') "
                "if key in payload}\n"
                "config.update(payload.get('generationConfig', {}))\n"
                "response = client.models.generate_content(\n"
                f"    model={result.model!r}, contents=payload['contents'], config=config or None)\n"
                "print(response.text)\n")
    if result.provider == ANTHROPIC:
        setup = "import anthropic\n\nclient = anthropic.Anthropic()  # reads ANTHROPIC_API_KEY\n"
        call = "client.messages.create(**payload)"
    else:
        setup = "from openai import OpenAI\n\nclient = OpenAI()  # reads OPENAI_API_KEY\n"
        call = ("client.responses.create(**payload)" if result.provider == OPENAI_RESPONSES
                else "client.chat.completions.create(**payload)")
    return (f"{head}import json\n\n{setup}payload = json.loads({literal})\n"
            f"response = {call}\nprint(response)\n")


def _template_literal(text: str) -> str:
    return "`" + text.replace("\\", "\\\\").replace("`", "\\`").replace("${", "\\${") + "`"


def typescript(result: ExportResult) -> str:
    literal = _template_literal(payload_json(result))
    head = _comment("//", result)
    if result.provider == GEMINI:
        return (f'{head}import {{ GoogleGenAI }} from "@google/genai";\n\n'
                "const ai = new GoogleGenAI({ apiKey: process.env.GEMINI_API_KEY });\n"
                f"const payload = JSON.parse({literal});\n"
                "const config = { ...(payload.generationConfig ?? {}) };\n"
                "if (payload.systemInstruction) config.systemInstruction = "
                "payload.systemInstruction;\n"
                "if (payload.tools) config.tools = payload.tools;\n"
                "const response = await ai.models.generateContent({\n"
                f"  model: {json.dumps(result.model)}, contents: payload.contents, config,\n"
                "});\n"
                "console.log(response.text);\n")
    if result.provider == ANTHROPIC:
        setup = ('import Anthropic from "@anthropic-ai/sdk";\n\n'
                 "const client = new Anthropic(); // reads ANTHROPIC_API_KEY\n")
        call = "client.messages.create(payload)"
    else:
        setup = 'import OpenAI from "openai";\n\nconst client = new OpenAI(); // reads OPENAI_API_KEY\n'
        call = ("client.responses.create(payload)" if result.provider == OPENAI_RESPONSES
                else "client.chat.completions.create(payload)")
    return (f"{head}{setup}const payload = JSON.parse({literal});\n"
            f"const response = await {call};\nconsole.log(response);\n")
