"""Unusable or hostile eval files: a clear error or warning naming file and line, in bounded time."""

from __future__ import annotations

import pytest

from inspector.core.agentv import render_eval_file
from inspector.core.bundle import Bundle, MemoryBundle
from inspector.core.documents import render_document
from inspector.core.model import InputError
from inspector.core.options import RenderOptions


def render(
    text: str | bytes,
    extra: dict[str, bytes] | None = None,
    path: str = "evals/e.yaml",
    profile: str = "spec",
):
    data = text.encode() if isinstance(text, str) else text
    bundle = MemoryBundle({path: data, **(extra or {})})
    return render_eval_file(bundle, path, RenderOptions(profile=profile))


def one_case(body: str) -> str:
    return "tests:\n  - id: c\n    criteria: ok\n" + body


def test_invalid_yaml_error_names_line_and_column():
    with pytest.raises(InputError) as raised:
        render("tests:\n  - id: a\n    input: [unclosed\n  - id: b\n")
    diagnostic = raised.value.diagnostic
    assert diagnostic.path == "evals/e.yaml"
    assert diagnostic.line is not None and diagnostic.column is not None
    assert str(raised.value).startswith(f"evals/e.yaml:{diagnostic.line}:{diagnostic.column}: invalid YAML")


def test_file_without_cases_is_an_error():
    with pytest.raises(InputError, match="no cases"):
        render("description: nothing here\n")
    with pytest.raises(InputError, match="must be a mapping"):
        render("- just\n- a list\n")


def test_case_without_id_is_shown_flagged_as_skipped():
    document = render("tests:\n  - criteria: ok\n    input: hello\n")
    [case] = document.cases
    assert case.skipped == "the case has no id"
    assert case.id == "#1"
    assert any("skips" in warning.message and warning.line == 2 for warning in case.warnings)
    assert case.sent_messages[-1].content == "hello"


def test_case_without_input_is_flagged_not_lost():
    [case] = render("tests:\n  - id: empty\n    criteria: ok\n").cases
    assert case.skipped == "the case has no input messages"


def test_duplicate_ids_are_a_warning_naming_the_first_line():
    document = render(
        "tests:\n  - id: a\n    criteria: x\n    input: one\n  - id: a\n    criteria: x\n    input: two\n"
    )
    assert [case.id for case in document.cases] == ["a", "a"]
    [warning] = document.cases[1].warnings
    assert "duplicate case id 'a'" in warning.message and "line 2" in warning.message
    assert warning.line == 5


def test_unknown_role_is_shown_but_not_sent():
    [case] = render(
        one_case(
            "    input:\n      - role: wizard\n        content: abracadabra\n"
            "      - role: user\n        content: hi\n"
        )
    ).cases
    assert [m.role for m in case.sent_messages] == ["user"]
    [omitted] = case.omitted_messages
    assert omitted.role == "wizard" and "unknown role" in omitted.omitted
    assert any("unknown role 'wizard'" in w.message and w.line == 5 for w in case.warnings)


def test_content_of_the_wrong_type_is_a_warning():
    [case] = render(
        one_case(
            "    input:\n      - role: user\n        content: 42\n"
            "      - role: user\n        content:\n          - type: video\n"
            "            value: x.mp4\n"
        )
    ).cases
    messages = [w.message for w in case.warnings]
    assert any("content should be text, got int 42" in m for m in messages)
    assert any("unknown content block type 'video'" in m for m in messages)
    assert case.sent_messages[0].content == "42"


def test_object_content_is_rendered_as_indented_json():
    [case] = render(
        one_case("    input:\n      - role: user\n        content:\n          a: 1\n          b: [x]\n")
    ).cases
    assert case.sent_messages[0].content == '{\n  "a": 1,\n  "b": [\n    "x"\n  ]\n}'


def test_alias_bomb_fails_fast_with_a_clear_error():
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    for level in range(1, 12):
        previous = chr(ord("a") + level - 1)
        name = chr(ord("a") + level)
        bomb += f"{name}: &{name} [{', '.join(['*' + previous] * 10)}]\n"
    bomb += "tests: *l\n"
    # Refused by counting the composed graph, before any expansion (bench_hostile times it).
    with pytest.raises(InputError, match="alias bomb"):
        render(bomb)


def test_deeply_nested_document_is_rejected_with_a_clear_error():
    with pytest.raises(InputError, match="nested more than"):
        render("tests: " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(InputError, match="nested more than"):
        render('{"id": "x", "input": ' + "[" * 5000 + "]" * 5000 + "}\n", path="evals/d.jsonl")


def test_huge_but_honest_document_renders():
    # Its speed is measured in benchmarks/bench_render.py, not asserted here.
    cases = "".join(
        f"  - id: case-{index}\n    criteria: ok\n    input: question {index}\n" for index in range(20_000)
    )
    document = render("tests:\n" + cases)
    assert len(document.cases) == 20_000


@pytest.mark.parametrize("profile", ["spec", "auto"])
def test_a_50_megabyte_file_is_rejected_by_size_before_any_parse(monkeypatch, profile):
    from inspector.core import yaml_lines

    def parse(*args, **kwargs):
        raise AssertionError("a file over the limit reached the YAML parser")

    monkeypatch.setattr(yaml_lines, "_parse_yaml", parse)
    big = b"tests:\n" + b"#" * (50 * 1024 * 1024)
    with pytest.raises(InputError, match="over 10 MB are not rendered"):
        render(big, profile=profile)


def test_non_utf8_bytes_are_a_warning_not_a_crash():
    bundle = MemoryBundle({"evals/e.yaml": one_case("    input: caf\xe9\n").encode("latin-1")})
    document = render_document(bundle, "evals/e.yaml", RenderOptions(profile="spec"))
    assert any("not valid UTF-8" in warning.message for warning in document.cases[0].warnings)
    assert document.cases[0].sent_messages[-1].content == "caf\ufffd"


class SpyBundle(MemoryBundle):
    def __init__(self, files):
        super().__init__(files)
        self.requested: list[str] = []

    def read(self, path: str):
        self.requested.append(path)
        return super().read(path)


@pytest.mark.parametrize("reference", ["../../etc/passwd", "/etc/passwd", "../../../../../etc/passwd"])
def test_reference_escaping_the_bundle_is_a_warning_and_never_read(reference):
    bundle: Bundle = SpyBundle(
        {
            "evals/e.yaml": one_case(
                f"    input:\n      - role: user\n        content:\n          - type: text\n"
                f"            value: hi\n          - type: file\n            value: {reference}\n"
            ).encode()
        }
    )
    for profile in ("spec", "agentv-0.10", "agentv-3.8", "agentv-4"):
        [case] = render_eval_file(bundle, "evals/e.yaml", RenderOptions(profile=profile)).cases
        assert "root:x" not in "".join(m.content for m in case.messages)
        assert any(reference in w.message and w.line == 10 for w in case.warnings)
    # Only bundle-relative paths are ever asked for; nothing outside the root is requested.
    assert all(not path.startswith(("/", "..")) for path in bundle.requested)


def test_bare_list_of_cases_renders_on_its_own_with_a_note():
    document = render("- id: a\n  input: hello\n- id: b\n  input: bye\n")
    assert [case.id for case in document.cases] == ["a", "b"]
    assert "bare list of cases" in document.warnings[0].message


def test_duplicate_ids_become_distinct_for_addressing():
    from inspector.core.documents import give_cases_distinct_ids

    document = render(
        "tests:\n  - id: dup\n    input: one\n  - id: dup#2\n    input: two\n  - id: dup\n    input: three\n"
    )
    give_cases_distinct_ids(document)
    assert [case.id for case in document.cases] == ["dup", "dup#2", "dup#3"]
    assert document.cases[2].metadata["id_as_written"] == "dup"
    assert document.cases[2].messages[-1].content == "three"


def test_a_utf16_file_is_read_with_a_warning_that_it_is_not_utf8():
    from inspector.core.bundle import MemoryBundle, decode

    data = "tests:\n  - id: a\n    input: hi\n".encode("utf-16")
    decoded = decode(data)
    assert decoded.text.startswith("tests:")
    assert "UTF-16" in decoded.problem
    document = render_document(MemoryBundle({"e.yaml": data}), "e.yaml")
    assert document.cases[0].id == "a"


def test_a_binary_file_error_names_the_cause_line_and_column_on_one_line():
    with pytest.raises(InputError) as raised:
        render_document(MemoryBundle({"e.yaml": b"tests:\n  - id: a\x00\x01\n"}), "e.yaml")
    text = str(raised.value)
    assert "binary file" in text and "\n" not in text
    assert raised.value.diagnostic.line == 2
