"""Why a file is a guideline (issue 30, friction 1): the pattern and the config line that made it
one, as the CLI and the API give it (the case page's wording: tests/web/test_new_user_round_two.py)."""

import io
import json
import re
from pathlib import Path

from tests.api.test_review import CONFIG, FILES, SUITE


def test_render_names_each_guideline_files_pattern_and_its_line(tmp_path):
    from inspector.cli.commands import main
    from inspector.cli.console import Output

    (tmp_path / ".git").mkdir()
    for path, data in FILES.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    printed = io.StringIO()
    assert main("render", [str(tmp_path / "evals/suite.yaml")], Output(printed, io.StringIO())) == 0
    first = json.loads(printed.getvalue())[0]
    assert first["guidelines"] == [
        {
            "path": "evals/rules.instructions.md",
            "pattern": "**/*.instructions.md",
            "source": ".agentv/config.yaml",
            "line": 2,
            "spans": [
                {"start_line": number, "end_line": number, "text": text}
                for number, text in enumerate(
                    ["# Rules\n", "\n", "- Point out bugs before style.\n", "- Quote the line."], 1
                )
            ],
        }
    ]
    printed = io.StringIO()
    main(
        "render",
        [str(tmp_path / "evals/suite.yaml"), "--patterns", "evals/rules.*"],
        Output(printed, io.StringIO()),
    )
    (guideline,) = json.loads(printed.getvalue())[0]["guidelines"]
    assert {key: guideline[key] for key in ("path", "pattern", "source", "line")} == {
        "path": "evals/rules.instructions.md",
        "pattern": "evals/rules.*",
        "source": None,
        "line": None,
    }


def test_the_api_gives_the_same_reasons(client, db):
    files = {path: data.decode() for path, data in FILES.items()}
    response = client.post(
        "/api/render", {"files": files, "path": "evals/suite.yaml"}, content_type="application/json"
    )
    assert response.status_code == 200
    assert response.json()["cases"][0]["guidelines"] == [
        {
            "path": "evals/rules.instructions.md",
            "pattern": "**/*.instructions.md",
            "source": ".agentv/config.yaml",
            "line": 2,
        }
    ]


# Friction 1's case: line 6 of a 9-line guideline is traced to line 6 alone, as the case page marks it.
NINE_LINES = "".join(f"Rule {number}: keep it short.\n" for number in range(1, 10))
# agentv 3.8 strips the guideline's text: its first line is no longer the file's line 1 verbatim.
INDENTED = "    Indented first rule.\nSecond rule.\n"
WHY = {"pattern": "**/*.instructions.md", "source": ".agentv/config.yaml", "line": 2}


def files_with(guideline: str) -> dict[str, bytes]:
    return {
        "evals/suite.yaml": SUITE,
        "evals/rules.instructions.md": guideline.encode(),
        ".agentv/config.yaml": CONFIG,
    }


def guideline_segments(case: dict) -> list[dict]:
    return [s for m in case["messages"] for s in m["segments"] if s["origin"]["kind"] == "guideline"]


def test_the_api_traces_each_line_of_a_verbatim_guideline_to_its_own_line(client, db):
    from inspector.bundles.ingest import store_bundle

    bundle, _ = store_bundle(files_with(NINE_LINES), title="nine")
    case = client.get(f"/api/bundles/{bundle.pk}/cases/first").json()
    segments = guideline_segments(case)
    assert [(s["origin"]["start_line"], s["origin"]["end_line"]) for s in segments] == [
        (n, n) for n in range(1, 10)
    ]
    line_six = segments[5]
    assert line_six["text"] == "Rule 6: keep it short.\n"
    assert line_six["origin"]["path"] == "evals/rules.instructions.md"
    assert line_six["origin"]["via"] == {"path": "evals/suite.yaml", "start_line": 13, "end_line": 13}
    assert line_six["guideline"] == WHY
    assert line_six["guideline_span"] == {
        "path": "evals/rules.instructions.md",
        "start_line": 1,
        "end_line": 9,
    }
    system = case["messages"][0]
    assert "".join(s["text"] for s in system["segments"]) == system["content"]
    other = next(s for s in system["segments"] if s["origin"]["kind"] != "guideline")
    assert other["guideline"] is None and other["guideline_span"] is None


def test_the_api_leaves_a_guideline_whole_when_its_text_is_not_the_files_lines(client, db):
    from inspector.bundles.ingest import store_bundle

    bundle, _ = store_bundle(files_with(INDENTED), title="indented")
    case = client.get(f"/api/bundles/{bundle.pk}/cases/first", {"profile": "agentv-3.8"}).json()
    (segment,) = guideline_segments(case)
    assert segment["text"] == "Indented first rule.\nSecond rule."
    assert (segment["origin"]["start_line"], segment["origin"]["end_line"]) == (1, 2)
    assert segment["guideline"] == WHY
    # The text as sent (the stored render is untouched by the split): spec keeps the indent, and splits.
    spec = client.get(f"/api/bundles/{bundle.pk}/cases/first", {"profile": "spec"}).json()
    assert [s["text"] for s in guideline_segments(spec)] == ["    Indented first rule.\n", "Second rule."]


def test_the_posted_render_traces_lines_the_same_way(client, db):
    files = {path: data.decode() for path, data in files_with(NINE_LINES).items()}
    response = client.post(
        "/api/render", {"files": files, "path": "evals/suite.yaml"}, content_type="application/json"
    )
    segments = guideline_segments(response.json()["cases"][0])
    assert [s["origin"]["start_line"] for s in segments] == list(range(1, 10))


def render_guidelines(tmp_path: Path, guideline: str, *args: str) -> list[dict]:
    from inspector.cli.commands import main
    from inspector.cli.console import Output

    (tmp_path / ".git").mkdir()
    for path, data in files_with(guideline).items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    printed = io.StringIO()
    assert main("render", [str(tmp_path / "evals/suite.yaml"), *args], Output(printed, io.StringIO())) == 0
    return json.loads(printed.getvalue())[0]["guidelines"]


def test_the_cli_traces_line_six_of_a_nine_line_guideline_to_line_six(tmp_path):
    (guideline,) = render_guidelines(tmp_path, NINE_LINES)
    assert guideline["pattern"] == "**/*.instructions.md" and guideline["line"] == 2
    assert len(guideline["spans"]) == 9
    assert guideline["spans"][5] == {"start_line": 6, "end_line": 6, "text": "Rule 6: keep it short.\n"}


def test_the_cli_leaves_a_guideline_whole_when_its_text_is_not_the_files_lines(tmp_path):
    (guideline,) = render_guidelines(tmp_path, INDENTED, "--profile", "agentv-3.8")
    assert guideline["spans"] == [
        {"start_line": 1, "end_line": 2, "text": "Indented first rule.\nSecond rule."}
    ]


def test_the_case_page_lets_a_click_name_a_line_only_where_the_api_splits(client, db):
    from inspector.bundles.ingest import store_bundle
    from inspector.cases.addresses import case_url

    bundle, _ = store_bundle(files_with(INDENTED), title="indented")

    def guideline_spans(settings: str) -> list[str]:
        page = client.get(case_url(bundle.pk, "evals/suite.yaml", "first", settings)).content.decode()
        return re.findall(r'<span class="seg k-guideline"[^>]*>', page)

    (trimmed,) = guideline_spans("profile=agentv-3.8")
    assert "data-by-line" not in trimmed
    (verbatim,) = guideline_spans("profile=spec")
    assert "data-by-line" in verbatim
