"""Pages, API and CLI read render settings with one parser: the same limits and the same words."""

import pytest

from inspector.bundles.ingest import store_bundle
from inspector.cases.addresses import case_url
from inspector.core.render_settings import MAX_PATTERNS
from tests.conftest import run_render
from tests.web.conftest import EVAL

TOO_MANY = [f"p{index}/*.md" for index in range(MAX_PATTERNS + 1)]


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"max_tokens": "0"}, "max_tokens must be between 1 and"),
        ({"patterns": "\n".join(TOO_MANY)}, f"at most {MAX_PATTERNS} guideline patterns"),
    ],
)
def test_every_surface_refuses_the_same_settings_with_the_same_message(
    client, db, tmp_path, settings, message
):
    bundle, _ = store_bundle({"evals/tiny.yaml": EVAL}, title="t")
    query = "&".join(f"{key}={value.replace(chr(10), '%0A')}" for key, value in settings.items())
    page = client.get(case_url(bundle.pk, "evals/tiny.yaml", "first", query + "&patterns_mode=custom"))
    assert page.status_code == 400 and message in page.content.decode()

    body = {"content": EVAL.decode(), "filename": "evals/tiny.yaml"}
    if "max_tokens" in settings:
        body["max_tokens"] = int(settings["max_tokens"])
    else:
        body["patterns"] = TOO_MANY
    api = client.post("/api/render", body, content_type="application/json")
    assert api.status_code in (400, 422) and message in api.content.decode()

    (tmp_path / "tiny.yaml").write_bytes(EVAL)
    flags = (
        ["--max-tokens", settings["max_tokens"]] if "max_tokens" in settings else ["--patterns", *TOO_MANY]
    )
    code, _, error = run_render(str(tmp_path / "tiny.yaml"), *flags)
    assert code == 2 and message in error
