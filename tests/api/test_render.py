import json

from inspector.models import Bundle
from tests.api.conftest import EVAL, example_files


def post(client, body):
    return client.post("/api/render", body, content_type="application/json")


def test_render_of_posted_content_stores_nothing(client, db):
    before = Bundle.objects.count()
    response = post(client, {"content": EVAL, "filename": "evals/two.yaml"})
    assert response.status_code == 200
    data = response.json()
    assert data["path"] == "evals/two.yaml" and data["kind"] == "agentv"
    assert [case["id"] for case in data["cases"]] == ["greet", "farewell"]
    greet = data["cases"][0]
    assert greet["messages"][1]["content"] == "Hello there"
    assert greet["messages"][1]["segments"][0]["origin"]["path"] == "evals/two.yaml"
    assert Bundle.objects.count() == before


def test_render_of_a_file_set_resolves_references_and_guidelines(client, db):
    files = {path: data.decode() for path, data in example_files().items()}
    response = post(client, {"files": files, "path": "evals/code-review.yaml"})
    assert response.status_code == 200
    [case] = response.json()["cases"]
    kinds = {s["origin"]["kind"] for m in case["messages"] for s in m["segments"]}
    assert {"guideline", "file"} <= kinds
    assert response.json()["documents"] == ["evals/code-review.yaml"]


def test_render_takes_settings_and_pattern_lists(client, db):
    files = {path: data.decode() for path, data in example_files().items()}
    response = post(
        client, {"files": files, "patterns": [], "profile": "agentv-4", "system_prompt": "Default."}
    )
    assert response.status_code == 200
    [case] = response.json()["cases"]
    assert "guideline" not in {s["origin"]["kind"] for m in case["messages"] for s in m["segments"]}


def test_render_defaults_to_the_first_document(client, db):
    response = post(client, {"files": {"notes.md": "x", "e.yaml": EVAL}})
    assert response.json()["path"] == "e.yaml"


def test_render_of_invalid_yaml_is_a_422_with_file_and_line(client, db):
    response = post(
        client, {"content": "evalcases:\n  - id: x\n    input_messages: [\n", "filename": "bad.yaml"}
    )
    assert response.status_code == 422
    data = response.json()
    assert data["file"] == "bad.yaml" and isinstance(data["line"], int)


def test_render_without_content_or_files_is_a_400(client, db):
    assert post(client, {}).status_code == 400
    assert post(client, {"content": EVAL, "files": {"a.yaml": EVAL}}).status_code == 400


def test_render_of_an_unknown_path_is_a_400(client, db):
    response = post(client, {"files": {"a.yaml": EVAL}, "path": "b.yaml"})
    assert response.status_code == 400
    assert "b.yaml" in response.json()["detail"]


def test_render_of_files_with_nothing_to_render_is_a_400(client, db):
    assert post(client, {"files": {"a.md": "x", "b.md": "y"}}).status_code == 400


def test_render_with_a_bad_setting_is_a_400(client, db):
    response = post(client, {"content": EVAL, "max_tokens": -1})
    assert response.status_code == 400
    assert post(client, {"content": EVAL, "patterns": ["*"] * 51}).status_code == 400


def test_render_over_the_size_limit_is_a_413(client, db, settings):
    settings.MAX_BUNDLE_BYTES = 10
    response = post(client, {"content": EVAL})
    assert response.status_code == 413


def test_render_of_an_escaping_path_is_a_400(client, db):
    response = post(client, {"files": {"../../etc/passwd": "x"}})
    assert response.status_code == 400
    assert response.json()["file"] == "../../etc/passwd"


def test_render_body_not_matching_the_schema_is_a_422(client, db):
    response = post(client, {"content": 5})
    assert response.status_code == 422
    assert response.json()["detail"].startswith("body.body.content") or "content" in response.json()["detail"]


def test_render_of_a_legacy_deck_returns_its_converted_form(client, db):
    legacy = '[samples.polite]\nuserMessage = "Hi"\nassistantResponse = "Hello!"\nscore = 3\n'
    response = post(client, {"content": legacy, "filename": "grader.deck.toml"})
    assert response.status_code == 200
    converted = response.json()["conversions"]["grader.deck.converted.toml"]
    assert "[[samples.polite.messages]]" in converted


def test_render_of_a_gambit_grader_takes_the_conversation_and_shows_tools(client, db):
    deck = (
        '+++\ncontextSchema = "gambit://schemas/graders/contexts/turn.zod.ts"\n'
        '[modelParams]\nmodel = "m"\n+++\nGrade it.\n'
    )
    conversation = '[{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Yo"}]'
    response = post(
        client, {"files": {"g/PROMPT.md": deck}, "path": "g/PROMPT.md", "gambit_conversation": conversation}
    )
    assert response.status_code == 200
    [case] = response.json()["cases"]
    assert case["id"] == "g@turn-1"
    assert [m["role"] for m in case["messages"]] == ["system", "assistant", "tool"]
    assert case["messages"][2]["content"] == (
        '{"session":{"messages":[{"role":"user","content":"Hi"},{"role":"assistant",'
        '"content":"Yo"}]},"messageToGrade":{"role":"assistant","content":"Yo"}}'
    )
    assert "read_file" in [tool["name"] for tool in case["tools"]]


def test_case_detail_carries_images_and_files_as_content_parts(client, db):
    request = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "See:"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
                    {"type": "file", "file": {"file_id": "file-1"}},
                ],
            }
        ]
    }
    response = post(client, {"content": json.dumps(request), "filename": "request.json"})
    assert response.status_code == 200
    [message] = response.json()["cases"][0]["messages"]
    assert [part["type"] for part in message["content"]] == ["text", "image_url", "file"]
    assert message["content"][1]["image_url"]["url"] == "data:image/png;base64,iVBORw0KGgo="
    assert message["content"][2]["file"]["file_id"] == "file-1"
    assert "".join(s["text"] for s in message["segments"]).startswith("See:")


def test_render_of_a_gambit_deck_takes_its_context_input_from_a_sample_by_name(client, db):
    deck = '+++\n[modelParams]\nmodel = "m"\n+++\nHelp.\n'
    files = {"d/PROMPT.md": deck, "d/samples/order.json": '{\n  "orderId": "A-1"\n}\n'}
    response = post(client, {"files": files, "path": "d/PROMPT.md", "gambit_context_sample": "order"})
    assert response.status_code == 200
    [case] = response.json()["cases"]
    tool = case["messages"][2]
    assert (tool["role"], tool["content"], tool["name"]) == ("tool", '{"orderId":"A-1"}', "gambit_context")
    assert tool["segments"][0]["origin"]["path"] == "d/samples/order.json"
    assert case["metadata"]["gambit"]["samples"] == ["order"]
    unknown = post(client, {"files": files, "path": "d/PROMPT.md", "gambit_context_sample": "nope"})
    assert unknown.status_code == 422 and "no context sample 'nope'" in unknown.text
    both = post(
        client,
        {"files": files, "path": "d/PROMPT.md", "gambit_context": "{}", "gambit_context_sample": "order"},
    )
    assert both.status_code in (400, 422) and "not both" in both.text


def test_render_of_a_gambit_grader_reads_the_conversation_from_a_file(client, db):
    deck = (
        '+++\ncontextSchema = "gambit://schemas/graders/contexts/turn.zod.ts"\n'
        '[modelParams]\nmodel = "m"\n+++\nGrade it.\n'
    )
    conversation = '[{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Yo"}]'
    state = (
        '{\n  "runId": "r",\n  "messages": [\n    {"role": "user", "content": "Hi"},\n'
        '    {"role": "assistant", "content": "Yo"}\n  ]\n}\n'
    )
    files = {"g/PROMPT.md": deck, "sessions/state.json": state, "g/samples/broken.json": "[\n{"}
    pasted = post(
        client, {"files": files, "path": "g/PROMPT.md", "gambit_conversation": conversation}
    ).json()["cases"]
    response = post(
        client, {"files": files, "path": "g/PROMPT.md", "gambit_conversation_sample": "sessions/state.json"}
    )
    assert response.status_code == 200
    cases = response.json()["cases"]
    assert [(c["id"], [m["content"] for m in c["messages"]]) for c in cases] == [
        (p["id"], [m["content"] for m in p["messages"]]) for p in pasted
    ]
    traced = [
        s["origin"]
        for s in cases[0]["messages"][2]["segments"]
        if s["origin"]["path"] == "sessions/state.json"
    ]
    assert [(o["start_line"], o["end_line"]) for o in traced] == [(4, 4), (5, 5), (5, 5)]
    assert cases[0]["metadata"]["gambit"]["conversation_samples"] == ["broken"]
    broken = post(client, {"files": files, "path": "g/PROMPT.md", "gambit_conversation_sample": "broken"})
    assert broken.status_code == 422
    assert (broken.json()["file"], broken.json()["line"]) == ("g/samples/broken.json", 2)
