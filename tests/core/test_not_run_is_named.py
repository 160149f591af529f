"""What the inspector does not run is named where it is met (docs/fidelity.md, "Not run"):
prompt functions, `nunjucks_filters` / `nunjucksFilters`, `include:` entries and `ref://` names.
Each either makes the case a skipped one whose warning says so, or is a warning or an error on the
file at the line that asks for it, never a silent difference."""

from __future__ import annotations

import pytest

from inspector.core.bundle import MemoryBundle
from inspector.core.documents import render_document
from inspector.core.model import InputError
from inspector.core.options import RenderOptions

AGENTV5 = RenderOptions(profile="agentv-5")
TEST = "tests:\n  - id: a\n    criteria: ok\n    vars:\n      word: hi\n"


def _render(files: dict[str, str], path: str, options: RenderOptions | None = None):
    bundle = MemoryBundle({name: text.encode() for name, text in files.items()})
    return render_document(bundle, path, options or RenderOptions())


def _refused(files: dict[str, str], path: str, options: RenderOptions | None = None) -> InputError:
    with pytest.raises(InputError) as raised:
        _render(files, path, options)
    return raised.value


@pytest.mark.parametrize("key", ["function", "function_file", "command"])
def test_an_agentv_prompt_made_by_code_is_a_skipped_case_that_says_so(key):
    text = f"prompts:\n  - {key}: ./make_prompt.js\n" + TEST
    [case] = _render({"evals/e.yaml": text}, "evals/e.yaml", AGENTV5).cases
    assert case.skipped and "does not run code" in case.skipped
    [warning] = [w for w in case.warnings if "does not run code" in w.message]
    assert (warning.path, warning.line) == ("evals/e.yaml", 4)  # the test's


def test_a_promptfoo_prompt_function_is_named_on_its_cases():
    config = (
        "prompts:\n  - file://make_prompt.js\nproviders:\n  - openai:chat:gpt-4o\n"
        "tests:\n  - vars:\n      word: hi\n"
    )
    files = {"promptfooconfig.yaml": config, "make_prompt.js": "module.exports = () => 'hi';\n"}
    cases = _render(files, "promptfooconfig.yaml").cases
    assert cases
    for case in cases:
        notes = [w.message for w in case.warnings] + [case.skipped or ""]
        assert any("prompt function" in note for note in notes), notes


def test_agentv_nunjucks_filters_are_named_on_the_file_and_in_the_error_of_a_template_using_one():
    declared = "nunjucks_filters:\n  shout: ./filters/shout.js\nprompts:\n  - 'Say {{ word }}'\n" + TEST
    document = _render({"evals/e.yaml": declared}, "evals/e.yaml", AGENTV5)
    [warning] = [w for w in document.warnings if "nunjucks_filters" in w.message]
    assert "`shout`" in warning.message and (warning.path, warning.line) == ("evals/e.yaml", 2)
    used = declared.replace("{{ word }}", "{{ word | shout }}")
    error = _refused({"evals/e.yaml": used}, "evals/e.yaml", AGENTV5)
    assert "shout" in str(error) and "nunjucks_filters" in str(error)
    assert error.diagnostic.line == 4


def test_promptfoo_nunjucks_filters_are_named_on_the_file():
    config = (
        "nunjucksFilters:\n  shout: ./shout.js\nprompts:\n  - 'Say {{ word }}'\n"
        "providers:\n  - openai:chat:gpt-4o\ntests:\n  - vars:\n      word: hi\n"
    )
    document = _render({"promptfooconfig.yaml": config}, "promptfooconfig.yaml")
    [warning] = [w for w in document.warnings if "nunjucksFilters" in w.message]
    assert warning.line == 2  # where the filters are listed
    used = config.replace("{{ word }}", "{{ word | shout }}")
    [case] = _render({"promptfooconfig.yaml": used}, "promptfooconfig.yaml").cases
    [note] = [w for w in case.warnings if "shout" in w.message]
    assert "nunjucksFilters" in note.message and note.line == 4


def test_an_include_entry_in_tests_is_named_at_its_line():
    text = "prompts:\n  - 'Say {{ word }}'\ntests:\n  - include: ./more.yaml\n"
    error = _refused({"evals/e.yaml": text}, "evals/e.yaml", AGENTV5)
    assert "`include`" in str(error) and error.diagnostic.line == 4


def test_a_ref_default_test_is_named_not_called_invalid():
    text = "default_test: ref://base\nprompts:\n  - 'Say {{ word }}'\n" + TEST
    error = _refused({"evals/e.yaml": text}, "evals/e.yaml", AGENTV5)
    assert "ref://base" in str(error) and "does not resolve" in str(error)
    assert "Invalid" not in str(error) and error.diagnostic.line == 1
