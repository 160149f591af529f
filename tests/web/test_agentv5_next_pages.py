"""Files for agentv's main at 58f316ca2 through the page, the API and the CLI: `auto` picks
`agentv-5-next-58f316c`, and each grader says which judge agentv asks."""

from inspector.bundles.ingest import store_bundle
from inspector.cases.addresses import case_url
from tests.conftest import run_render

NEXT = (
    b'prompts:\n  - "Summarize {{ topic }}."\n'
    b"defaults:\n  grader: grader-a\n"
    b"tests:\n  - id: docs\n    vars:\n      topic: release notes\n    assert:\n"
    b"      - {type: llm-rubric, value: Is short}\n"
    b"      - {type: agent-rubric, value: Reads the notes, provider: agent-judge}\n"
)


def test_the_case_page_names_each_graders_judge_and_the_verdict_placeholder(client, db):
    bundle, _ = store_bundle({"evals/suite.yaml": NEXT}, title="next")
    response = client.get(case_url(bundle.pk, "evals/suite.yaml", "docs"))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Rendered as <strong>agentv-5-next-58f316c</strong> — picked automatically" in page
    assert "· asks grader-a" in page and "· asks agent-judge" in page
    assert "verdict file&#x27;s temporary path" in page or "verdict file's temporary path" in page


def test_the_api_and_the_cli_carry_the_judge(client, db, tmp_path):
    response = client.post(
        "/api/render",
        {"content": NEXT.decode(), "filename": "evals/suite.yaml"},
        content_type="application/json",
    )
    data = response.json()
    assert response.status_code == 200 and data["profile"] == "agentv-5-next-58f316c"
    assert [grader["judge"] for grader in data["cases"][0]["graders"]] == ["grader-a", "agent-judge"]
    (tmp_path / "suite.yaml").write_bytes(NEXT)
    code, cases, _ = run_render(str(tmp_path / "suite.yaml"), "--graders")
    assert code == 0
    assert [grader.get("judge") for grader in cases[0]["graders"]] == ["grader-a", "agent-judge"]
