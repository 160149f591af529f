"""agentv 5 files through the pages, the API and the CLI: `auto` picks the profile and says why."""

from inspector.bundles.ingest import store_bundle
from inspector.cases.addresses import case_url
from tests.conftest import run_render

V5 = (
    b'prompts:\n  - id: direct\n    prompt: "Summarize {{ topic }}."\n'
    b'  - id: terse\n    prompt: "Briefly: {{ topic }}"\n'
    b"tests:\n  - id: docs\n    vars:\n      topic: release notes\n    criteria: ok\n"
)


def test_the_case_page_renders_an_agentv_5_file_and_says_which_profile_and_why(client, db):
    bundle, _ = store_bundle({"evals/suite.yaml": V5}, title="v5")
    response = client.get(case_url(bundle.pk, "evals/suite.yaml", "docs__prompt_direct"))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Summarize release notes." in page
    assert "Rendered as <strong>agentv-5</strong> — picked automatically" in page
    forced = client.get(case_url(bundle.pk, "evals/suite.yaml", "docs__prompt_terse", "profile=agentv-5"))
    assert "Briefly: release notes" in forced.content.decode()
    assert "picked automatically" not in forced.content.decode()


def test_the_api_names_the_profile_auto_chose(client, db):
    response = client.post(
        "/api/render",
        {"content": V5.decode(), "filename": "evals/suite.yaml"},
        content_type="application/json",
    )
    data = response.json()
    assert response.status_code == 200
    assert data["profile"] == "agentv-5" and "prompts" in data["profile_reason"]
    assert [case["id"] for case in data["cases"]] == ["docs__prompt_direct", "docs__prompt_terse"]
    bundle, _ = store_bundle({"evals/suite.yaml": V5}, title="v5")
    listed = client.get(f"/api/bundles/{bundle.pk}/cases").json()
    assert listed[0]["profile"] == "agentv-5"


def test_the_cli_renders_agentv_5_and_its_json_names_the_profile(tmp_path):
    (tmp_path / "suite.yaml").write_bytes(V5)
    for flags in ((), ("--profile", "agentv-5")):
        code, cases, _ = run_render(str(tmp_path / "suite.yaml"), *flags)
        assert code == 0
        assert cases[0]["messages"][-1] == {"role": "user", "content": "Summarize release notes."}
        assert cases[0]["profile"] == "agentv-5"
    code, cases, _ = run_render(str(tmp_path / "suite.yaml"))
    assert "prompts" in cases[0]["profile_reason"]
