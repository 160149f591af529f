"""Every surface offers exactly what the registries declare: providers (export/registry.py) and
input formats (formats.py), each with all it needs."""

import re

from inspector.bundles.ingest import store_bundle
from inspector.cases.addresses import case_url
from inspector.core.export import FORMATS, PROVIDERS, REGISTRY, export_case, render_code
from inspector.core.formats import FORMATS as INPUT_FORMAT_ENTRIES
from inspector.core.formats import INPUT_FORMATS
from inspector.core.model import Message, RenderedCase, Segment
from inspector.core.tokens import provider_encoding
from inspector.management.commands.render import Command
from tests.web.conftest import EVAL


def _case() -> RenderedCase:
    from inspector.core.model import Origin, OriginKind

    origin = Origin(OriginKind.CASE_TEXT)
    return RenderedCase("c", [Message("user", [Segment("hi", origin)])])


def test_every_registered_provider_exports_counts_and_runs_in_every_form():
    assert tuple(REGISTRY) == PROVIDERS and len(PROVIDERS) >= 4
    for provider in PROVIDERS:
        spec = REGISTRY[provider]
        assert spec.label and spec.defaults.model and spec.sdks
        assert provider_encoding(provider) == (spec.encoding, spec.exact_tokens)
        result = export_case(_case(), provider)
        for form in FORMATS:
            assert render_code(result, form)
        assert spec.http.endpoint(result.model).startswith("https://")


def test_the_cli_offers_the_registry():
    parser = Command().create_parser("manage.py", "render")
    choices = next(action.choices for action in parser._actions if "--to" in action.option_strings)
    assert tuple(choices) == PROVIDERS


def test_the_api_enum_is_the_registry(client, db):
    schema = client.get("/api/openapi.json").json()
    enums = [
        value["enum"]
        for value in _walk(schema)
        if isinstance(value, dict)
        and set(value.get("enum") or ()) & {"openai-chat"}
        and "gemini" in (value.get("enum") or ())
        # Input formats include raw provider requests too; they start with "auto".
        and "auto" not in value["enum"]
    ]
    assert enums and all(tuple(enum) == PROVIDERS for enum in enums)


def test_the_case_page_menu_is_the_registry(client, db):
    bundle, _ = store_bundle({"evals/tiny.yaml": EVAL}, title="t")
    page = client.get(case_url(bundle.pk, "evals/tiny.yaml", "first")).content.decode()
    menu = page[page.index('id="provider"') :]
    menu = menu[: menu.index("</select>")]
    assert tuple(re.findall(r'<option value="([^"]+)"', menu)) == PROVIDERS
    for provider in PROVIDERS:
        shown = client.get(case_url(bundle.pk, "evals/tiny.yaml", "first", f"provider={provider}"))
        assert REGISTRY[provider].label in shown.content.decode()


def _walk(node):
    yield node
    if isinstance(node, dict):
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def test_input_formats_come_from_their_registry(client, db):
    assert set(INPUT_FORMATS) == {"auto"} | {entry.name for entry in INPUT_FORMAT_ENTRIES}
    parser = Command().create_parser("manage.py", "render")
    choices = next(action.choices for action in parser._actions if "--input-format" in action.option_strings)
    assert tuple(choices) == INPUT_FORMATS
    schema = client.get("/api/openapi.json").json()
    enums = [
        value["enum"]
        for value in _walk(schema)
        if isinstance(value, dict) and "deck" in (value.get("enum") or ())
    ]
    assert enums and all(tuple(enum) == INPUT_FORMATS for enum in enums)
    bundle, _ = store_bundle({"evals/tiny.yaml": EVAL}, title="t")
    page = client.get(case_url(bundle.pk, "evals/tiny.yaml", "first")).content.decode()
    menu = page[page.index('name="input_format"') :]
    menu = menu[: menu.index("</select>")]
    assert tuple(re.findall(r'<option value="([^"]+)"', menu)) == INPUT_FORMATS
