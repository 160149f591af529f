"""The shape SDK code takes for the OpenAI and Anthropic clients (`client.<call>(payload)`); the
provider modules fill in the client and the call. Both OpenAI APIs share one spec shape."""

from __future__ import annotations

from .common import ResolvedDefaults
from .spec import Batch, Billing, Exporter, FieldWriter, Http, PromptCache, Provider


def sdk_python(head: str, setup: str, literal: str, call: str) -> str:
    return (
        f"{head}import json\n\n{setup}payload = json.loads({literal})\nresponse = {call}\nprint(response)\n"
    )


def sdk_typescript(head: str, setup: str, literal: str, call: str) -> str:
    return (
        f"{head}{setup}const payload = JSON.parse({literal});\n"
        f"const response = await {call};\nconsole.log(response);\n"
    )


OPENAI_PYTHON_SETUP = "from openai import OpenAI\n\nclient = OpenAI()  # reads OPENAI_API_KEY\n"
OPENAI_TYPESCRIPT_SETUP = (
    'import OpenAI from "openai";\n\nconst client = new OpenAI(); // reads OPENAI_API_KEY\n'
)


# Both OpenAI APIs cache any request prefix of 1,024 tokens or more by themselves, hits counted in
# steps of 128 tokens; no model is excepted in the guide.
OPENAI_BILLING = Billing(
    "openai",
    PromptCache(
        mode="automatic",
        minimums=((r".", 1024),),
        fallback_minimum=1024,
        increment=128,
        source="https://platform.openai.com/docs/guides/prompt-caching (1,024 tokens, 128-token steps)",
    ),
)


def openai_batch_id(case_id: str, fallback: str) -> str:
    """OpenAI Batch API custom ids: any text up to 512 characters."""
    return case_id[:512] or fallback


def openai_provider(
    provider_id: str,
    label: str,
    defaults: ResolvedDefaults,
    export: Exporter,
    path: str,
    call: str,
    own_keys: tuple[str, ...],
    write_fields: FieldWriter,
) -> Provider:
    """An OpenAI API at `path` (e.g. /v1/responses), called as `client.<call>` by the SDKs."""
    return Provider(
        id=provider_id,
        label=label,
        defaults=defaults,
        export=export,
        encoding="o200k_base",
        exact_tokens=True,
        batch=Batch(
            "custom_id",
            openai_batch_id,
            lambda custom_id, payload: {
                "custom_id": custom_id,
                "method": "POST",
                "url": path,
                "body": payload,
            },
        ),
        http=Http(lambda _model: f"https://api.openai.com{path}", ("Authorization: Bearer $OPENAI_API_KEY",)),
        python=lambda _result, literal, head: sdk_python(
            head, OPENAI_PYTHON_SETUP, literal, f"client.{call}(**payload)"
        ),
        typescript=lambda _result, literal, head: sdk_typescript(
            head, OPENAI_TYPESCRIPT_SETUP, literal, f"client.{call}(payload)"
        ),
        # The oldest releases the real-client check passes with (tests/oracle/min_sdk_versions.py):
        # openai 1.65 has no `client.responses`; npm's openai 4.103 is the oldest release tried.
        sdks=("openai>=1.66 (PyPI)", "openai>=4.103 (npm)"),
        billing=OPENAI_BILLING,
        family="openai",
        own_keys=own_keys,
        write_fields=write_fields,
    )
