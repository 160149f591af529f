"""aibff's grader request (August 2025): the pieces ported from its code, and the default versus
`spec` reading. tests/oracle/test_aibff_goldens.py checks whole decks against aibff itself."""

from __future__ import annotations

from inspector.core.bundle import MemoryBundle
from inspector.core.decks.aibff_contexts import parse_declarations
from inspector.core.decks.aibff_request import late_super_table
from inspector.core.documents import render_document
from inspector.core.js import js_string
from inspector.core.options import RenderOptions
from inspector.core.serialize import chat_message

DECK = "# Grader\n\n![c](./c.toml)\n"
CONTEXTS = """[contexts.fullConversation]
assistantQuestion = "What was said?"

[samples.one]
[[samples.one.messages]]
role = "user"
content = "Hi"

[[samples.one.messages]]
role = "assistant"
content = "Hello"
"""


def test_string_is_javascripts():
    assert js_string([{"role": "user"}, {"role": "assistant"}]) == "[object Object],[object Object]"
    assert js_string(["a", 1, 2.0, 1.5, True, None, [3, 4]]) == "a,1,2,1.5,true,,3,4"
    assert js_string({"a": 1}) == "[object Object]" and js_string(2.0) == "2"


def test_questions_are_read_as_decks_own_line_parser_reads_them():
    text = (
        '[contexts.a]\nassistantQuestion = "Say \\"hi\\""\n[contexts.b]\n'
        'assistantQuestion = """two\nlines"""\n[[tools]]\nname = "t"\ndescription = "d"\n'
    )
    questions, tools = parse_declarations(text, "x.toml")
    assert [(q.name, q.text, q.line) for q in questions] == [("a", 'Say \\"hi\\"', 2)]
    assert [(t.name, t.description) for t in tools] == [("t", "d")]


def test_a_table_after_its_array_of_tables_is_what_std_toml_refused():
    assert late_super_table('[[s.a.messages]]\nrole = "u"\n\n[s.a]\nscore = 1\n') == ("s.a", 4)
    assert late_super_table('[s.a]\nscore = 1\n[[s.a.messages]]\nrole = "u"\n') is None


def _render(profile: str = "auto"):
    bundle = MemoryBundle({"g.deck.md": DECK.encode(), "c.toml": CONTEXTS.encode()})
    return render_document(bundle, "g.deck.md", RenderOptions(profile=profile))


def test_by_default_the_grader_gets_the_conversation_as_object_object_and_is_told_why():
    document = _render()
    case = document.cases[0]
    assert [chat_message(m) for m in case.sent_messages][1:] == [
        {"role": "assistant", "content": "What was said?"},
        {"role": "user", "content": "[object Object],[object Object]"},
    ]
    assert document.profile == "aibff-2025-08"
    assert any("[object Object]" in w.message and "spec" in w.message for w in case.warnings)
    question = case.messages[1].segments[0].origin
    assert (question.path, question.start_line) == ("c.toml", 2)


def test_spec_keeps_seed_004s_reading():
    case = _render("spec").cases[0]
    assert [chat_message(m)["content"] for m in case.sent_messages][1:] == ["Hi", "Hello"]
