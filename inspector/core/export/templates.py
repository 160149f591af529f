"""The shape SDK code takes for the OpenAI and Anthropic clients (`client.<call>(payload)`); the
provider modules fill in the client and the call."""

from __future__ import annotations


def sdk_python(head: str, setup: str, literal: str, call: str) -> str:
    return (f"{head}import json\n\n{setup}payload = json.loads({literal})\n"
            f"response = {call}\nprint(response)\n")


def sdk_typescript(head: str, setup: str, literal: str, call: str) -> str:
    return (f"{head}{setup}const payload = JSON.parse({literal});\n"
            f"const response = await {call};\nconsole.log(response);\n")


OPENAI_PYTHON_SETUP = "from openai import OpenAI\n\nclient = OpenAI()  # reads OPENAI_API_KEY\n"
OPENAI_TYPESCRIPT_SETUP = ('import OpenAI from "openai";\n\n'
                           "const client = new OpenAI(); // reads OPENAI_API_KEY\n")
OPENAI_AUTH = ("Authorization: Bearer $OPENAI_API_KEY",)
OPENAI_SDKS = ("openai>=3.54 (PyPI)", "openai (npm)")


def openai_batch_id(case_id: str, fallback: str) -> str:
    """OpenAI Batch API custom ids: any text up to 512 characters."""
    return case_id[:512] or fallback
