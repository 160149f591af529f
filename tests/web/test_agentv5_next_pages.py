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


# agentv's own agent as the run's judge: the render setting grader_provider=agentv.
OWN_AGENT = NEXT.replace(b"defaults:\n", b"environment:\n  type: host\n  workdir: ./workspace\ndefaults:\n")
BUILT_IN = "You are an expert grader with access to the workspace filesystem."


def test_the_page_takes_the_runs_judge_setting_to_the_render(client, db):
    bundle, _ = store_bundle({"evals/suite.yaml": OWN_AGENT}, title="own agent")
    url = case_url(bundle.pk, "evals/suite.yaml", "docs")
    plain = client.get(url).content.decode()
    assert BUILT_IN not in plain and 'name="grader_provider"' in plain
    page = client.get(url, {"grader_provider": "agentv"}).content.decode()
    assert BUILT_IN in page and "· asks agentv" in page and "· asks agent-judge" in page
    assert '<option value="agentv" selected>' in page  # the form keeps the setting
    refused = client.get(url, {"grader_provider": "judge"})
    assert refused.status_code == 400 and "unknown grader provider" in refused.content.decode()


def test_the_api_and_the_cli_take_the_runs_judge_setting(client, db, tmp_path):
    response = client.post(
        "/api/render",
        {"content": OWN_AGENT.decode(), "filename": "evals/suite.yaml", "grader_provider": "agentv"},
        content_type="application/json",
    )
    graders = response.json()["cases"][0]["graders"]
    assert [grader["judge"] for grader in graders] == ["agentv", "agent-judge"]
    assert [message["role"] for message in graders[0]["messages"]] == ["system", "user"]
    bundle, _ = store_bundle({"evals/suite.yaml": OWN_AGENT}, title="own agent")
    case = client.get(f"/api/bundles/{bundle.pk}/cases/docs", {"grader_provider": "agentv"}).json()
    assert case["graders"][0]["judge"] == "agentv"
    (tmp_path / "suite.yaml").write_bytes(OWN_AGENT)
    code, cases, _ = run_render(str(tmp_path / "suite.yaml"), "--graders", "--grader-provider", "agentv")
    assert code == 0 and cases[0]["graders"][0]["judge"] == "agentv"
    assert cases[0]["graders"][0]["messages"][0]["content"].startswith(BUILT_IN)
