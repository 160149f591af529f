"""A file that uses one id for several cases: the page, the API and every batch file name the
later ones by one rule (`a#2`, changed further only where a provider's characters require), and
the case page says what the case is called where."""

import json

from inspector.bundles.ingest import store_bundle
from inspector.cases.addresses import case_url
from tests.conftest import run_render

DUPLICATES = (
    b"evalcases:\n  - id: a\n    outcome: ok\n    input_messages: [{role: user, content: x}]\n"
    b"  - id: a\n    outcome: ok\n    input_messages: [{role: user, content: y}]\n"
)


def batch_ids(text: str, key: str = "custom_id") -> list[str]:
    return [json.loads(line).get(key) for line in text.splitlines() if line.strip()]


def test_pages_and_batch_files_name_the_second_case_alike(client, db):
    bundle, _ = store_bundle({"evals/dup.yaml": DUPLICATES}, title="dup")
    page = client.get(case_url(bundle.pk, "evals/dup.yaml", "a#2")).content.decode()
    assert 'id="duplicate-names"' in page
    assert "<code>a#2</code> (OpenAI Chat, OpenAI Responses, Gemini" in page
    assert "<code>a_2</code> (Anthropic" in page
    openai = client.get(f"/b/{bundle.pk}/batch.jsonl").content.decode()
    assert batch_ids(openai) == ["a", "a#2"]
    anthropic = client.get(f"/b/{bundle.pk}/batch.jsonl?provider=anthropic").content.decode()
    assert batch_ids(anthropic) == ["a", "a_2"]


def test_the_command_line_batch_uses_the_same_names(tmp_path):
    (tmp_path / "dup.yaml").write_bytes(DUPLICATES)
    import io

    from django.core.management import call_command

    for provider, key, expected in (
        ("openai-chat", "custom_id", ["a", "a#2"]),
        ("anthropic", "custom_id", ["a", "a_2"]),
        ("gemini", "key", ["a", "a#2"]),
    ):
        out, err = io.StringIO(), io.StringIO()
        call_command(
            "render",
            str(tmp_path / "dup.yaml"),
            "--root",
            str(tmp_path),
            "--to",
            provider,
            "--batch",
            stdout=out,
            stderr=err,
        )
        assert batch_ids(out.getvalue(), key) == expected
        assert f"case 'a' (line 5): custom id '{expected[1]}'" in err.getvalue()
    code, cases, _ = run_render(str(tmp_path / "dup.yaml"), "--root", str(tmp_path))
    assert code == 0 and [case["id"] for case in cases] == ["a", "a"]  # the JSON keeps ids as written
