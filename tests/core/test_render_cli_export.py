"""`render PATH --to PROVIDER [--format F] [--batch]`: the export side of the CLI contract."""

from __future__ import annotations

import io
import json
import shutil
import subprocess

import pytest
from django.core.management import call_command

from ..conftest import REPO

AGENTV_ROOT = REPO / "tests" / "fixtures" / "multi-turn-support"
MULTI_TURN = AGENTV_ROOT / "evals/dataset.eval.yaml"
GAMBIT_ROOT = REPO / "fixtures" / "examples" / "tone-grader-deck"
# Its samples end with the assistant's answer, which Anthropic would take for a prefill.
PREFILL_DECK = GAMBIT_ROOT / "graders/tone-samples.toml"


def render(path, root, *arguments) -> str:
    output = io.StringIO()
    call_command("render", str(path), "--root", str(root), *arguments, stdout=output)
    return output.getvalue()


def test_json_export_gives_the_contract_object_per_case():
    plain = json.loads(render(MULTI_TURN, AGENTV_ROOT))
    exported = json.loads(render(MULTI_TURN, AGENTV_ROOT, "--to", "openai-chat"))
    assert [item["id"] for item in exported] == [item["id"] for item in plain]
    for item, rendered in zip(exported, plain, strict=True):
        assert set(item) == {"id", "payload", "changes", "lints", "warnings"}
        # OpenAI chat passes the rendered messages through unchanged.
        assert item["payload"]["messages"] == rendered["messages"]


def test_anthropic_export_reports_the_moved_system_message():
    plain = json.loads(render(MULTI_TURN, AGENTV_ROOT))
    exported = json.loads(render(MULTI_TURN, AGENTV_ROOT, "--to", "anthropic"))
    first = exported[0]
    assert first["payload"]["system"] == plain[0]["messages"][0]["content"]
    assert first["changes"] == [
        {"message": "system message moved into the top-level system", "message_index": 0}
    ]


def test_lints_show_up_in_the_cli_output():
    exported = json.loads(render(PREFILL_DECK, GAMBIT_ROOT, "--to", "anthropic", "--case", "rambling"))
    lints = exported[0]["lints"]
    assert lints and lints[0]["severity"] == "error"
    assert "prefill" in lints[0]["message"]
    assert isinstance(lints[0]["message_index"], int)


def test_settings_reach_the_payload():
    exported = json.loads(
        render(
            MULTI_TURN,
            AGENTV_ROOT,
            "--to",
            "gemini",
            "--model",
            "gemini-x",
            "--max-output-tokens",
            "77",
            "--temperature",
            "0.5",
        )
    )
    assert exported[0]["payload"]["generationConfig"] == {"maxOutputTokens": 77, "temperature": 0.5}
    openai = json.loads(render(MULTI_TURN, AGENTV_ROOT, "--to", "openai-responses", "--model", "gpt-x"))
    assert openai[0]["payload"]["model"] == "gpt-x"


@pytest.mark.parametrize(
    ("form", "marker"), [("curl", "curl 'https://"), ("python", "json.loads("), ("typescript", "JSON.parse(")]
)
def test_code_formats_print_one_program_per_case(form, marker):
    output = render(MULTI_TURN, AGENTV_ROOT, "--to", "anthropic", "--format", form)
    assert output.count(marker) == 2
    if form == "python":
        programs = output.split("\n\n# case ")
        assert len(programs) == 2
        for program in programs:
            compile(program, "<export>", "exec")


@pytest.mark.parametrize(
    ("provider", "id_key"),
    [
        ("openai-chat", "custom_id"),
        ("openai-responses", "custom_id"),
        ("anthropic", "custom_id"),
        ("gemini", "key"),
    ],
)
def test_batch_prints_one_line_per_case_keyed_by_case_id(provider, id_key):
    plain = json.loads(render(MULTI_TURN, AGENTV_ROOT))
    lines = render(MULTI_TURN, AGENTV_ROOT, "--to", provider, "--batch").strip().split("\n")
    assert [json.loads(line)[id_key] for line in lines] == [item["id"] for item in plain]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("provider", ["openai-chat", "openai-responses", "anthropic", "gemini"])
def test_typescript_for_several_cases_is_one_es_module_that_parses(provider, tmp_path):
    output = render(MULTI_TURN, AGENTV_ROOT, "--to", provider, "--format", "typescript")
    assert output.startswith("// An ES module")
    imports = [line for line in output.splitlines() if line.startswith("import ")]
    assert len(imports) == len(set(imports)) == 1  # once, at the top
    program = tmp_path / "export.mjs"
    program.write_text(output, encoding="utf-8")
    subprocess.run(["node", "--check", str(program)], check=True, capture_output=True)
