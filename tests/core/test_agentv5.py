"""agentv 5 files (`prompts` filled from `tests[].vars`), as agentv 5.3.1-next.1 loads them.

agentv 5 is not on the npm registry, so these expectations come from agentv's own tests at that
tag (packages/core/test/evaluation/eval-inline-experiment.test.ts and interpolation tests) and from
yaml-parser.ts where its tests are silent; each test names what it follows.
"""

import pytest

from inspector.core.bundle import MemoryBundle
from inspector.core.documents import render_document
from inspector.core.model import InputError
from inspector.core.options import RenderOptions


def render(files: dict[str, str], path: str = "evals/suite.yaml", profile: str = "auto"):
    bundle = MemoryBundle({name: text.encode() for name, text in files.items()})
    return render_document(bundle, path, RenderOptions(profile=profile))


def sent(case) -> list[tuple[str, str]]:
    return [(message.role, message.content) for message in case.messages if not message.omitted]


def test_each_test_runs_once_per_prompt_with_agentv_ids():
    # eval-inline-experiment.test.ts "expands top-level prompts across tests with per-test vars"
    document = render(
        {
            "evals/suite.yaml": (
                "prompts:\n"
                '  - id: direct\n    label: Direct\n    prompt: "Summarize {{ topic }}."\n'
                '  - id: terse\n    label: Terse\n    prompt: "In one sentence, summarize {{ topic }}."\n'
                "tests:\n"
                "  - id: docs\n    vars:\n      topic: release notes\n"
                "    criteria: Writes a concise release-note summary\n"
            )
        }
    )
    assert document.profile == "agentv-5"
    assert "prompts" in document.profile_reason
    assert [case.id for case in document.cases] == ["docs__prompt_direct", "docs__prompt_terse"]
    assert [sent(case)[-1][1] for case in document.cases] == [
        "Summarize release notes.",
        "In one sentence, summarize release notes.",
    ]


def test_default_test_vars_fill_a_chat_prompt_and_tests_override_them():
    # eval-inline-experiment.test.ts "merges default_test vars before top-level prompt expansion"
    document = render(
        {
            "evals/suite.yaml": (
                "default_test:\n  vars:\n    audience: engineers\n    tone: concise\n"
                "prompts:\n  - id: chat\n    prompt:\n"
                '      - role: system\n        content: "Use a {{ tone }} tone for {{ audience }}."\n'
                '      - role: user\n        content: "Summarize {{ topic }}."\n'
                "tests:\n"
                "  - id: inherited-defaults\n    vars:\n      topic: release notes\n    criteria: ok\n"
                "  - id: overrides-default\n    vars:\n      audience: executives\n"
                "      topic: migration plan\n    criteria: ok\n"
            )
        }
    )
    assert [case.id for case in document.cases] == ["inherited-defaults", "overrides-default"]
    assert sent(document.cases[0]) == [
        ("system", "Use a concise tone for engineers."),
        ("user", "Summarize release notes."),
    ]
    assert sent(document.cases[1]) == [
        ("system", "Use a concise tone for executives."),
        ("user", "Summarize migration plan."),
    ]


def test_a_var_holding_a_template_is_rendered_again_with_the_other_vars():
    # eval-inline-experiment.test.ts "merges default_test vars before direct test interpolation"
    document = render(
        {
            "evals/suite.yaml": (
                'prompts:\n  - "{{ input }}"\n'
                "default_test:\n  vars:\n    tone: concise\n    category: support\n"
                "tests:\n  - id: direct-default\n    vars:\n"
                "      question: How do I reset my password?\n"
                '      input: "Answer in a {{ tone }} {{ category }} style: {{ question }}"\n'
                "    criteria: ok\n"
            )
        }
    )
    assert sent(document.cases[0])[-1] == (
        "user",
        "Answer in a concise support style: How do I reset my password?",
    )


def test_chat_and_file_prompts_from_the_prompt_matrix():
    # eval-inline-experiment.test.ts "loads chat and file prompts from the top-level prompt matrix"
    document = render(
        {
            "evals/prompt.md": "Review {{ file_name }}.\n",
            "evals/suite.yaml": (
                "prompts:\n  - id: chat\n    messages:\n"
                "      - role: system\n        content: Be precise.\n"
                '      - role: user\n        content: "Inspect {{ file_name }}."\n'
                "  - id: file\n    file: prompt.md\n"
                "tests:\n  - id: inspect\n    vars:\n      file_name: README.md\n    criteria: useful\n"
            ),
        }
    )
    chat, from_file = document.cases
    assert chat.id == "inspect__prompt_chat" and from_file.id == "inspect__prompt_file"
    assert sent(chat) == [("system", "Be precise."), ("user", "Inspect README.md.")]
    assert sent(from_file)[-1] == ("user", "Review README.md.")
    # The file's own text points at prompt.md, the variable's text at the var's line.
    segments = [s for s in from_file.messages[-1].segments if s.text.strip()]
    assert (segments[0].origin.path, segments[0].origin.start_line) == ("evals/prompt.md", 1)
    var = next(s for s in segments if s.text == "README.md")
    assert (var.origin.path, var.origin.start_line) == ("evals/suite.yaml", 13)


def test_a_whole_var_reference_takes_the_var_itself_messages_included():
    # interpolation.ts interpolateTemplateVars: `{{ input }}` alone keeps the var's JSON value.
    document = render(
        {
            "evals/suite.yaml": (
                'prompts:\n  - "{{ input }}"\n'
                "tests:\n  - id: chat\n    criteria: ok\n    vars:\n      input:\n"
                "        - role: system\n          content: Be brief.\n"
                "        - role: user\n          content: Hi there\n"
            )
        }
    )
    case = document.cases[0]
    assert sent(case) == [("system", "Be brief."), ("user", "Hi there")]
    assert case.messages[-1].segments[0].origin.start_line == 11


def test_templates_print_values_as_javascript_does():
    document = render(
        {
            "evals/suite.yaml": (
                'prompts:\n  - "flag={{ flag }} n={{ n }} list={{ items }} obj={{ obj }} none={{ missing }}'
                '{% if empty %} empty-object-is-true{% endif %} len={{ word.length }}"\n'
                "tests:\n  - id: js\n    criteria: ok\n    vars:\n      flag: true\n      n: 2.0\n"
                "      items: [1, 2]\n      obj: {a: 1}\n      empty: {}\n      word: abc\n"
            )
        }
    )
    assert sent(document.cases[0])[-1][1] == (
        "flag=true n=2 list=1,2 obj=[object Object] none= empty-object-is-true len=3"
    )


def test_a_test_whose_list_var_is_empty_expands_into_no_tests_and_says_so():
    document = render(
        {
            "evals/suite.yaml": (
                "prompts:\n  - hi\ntests:\n  - id: gone\n    criteria: ok\n    vars:\n      a: []\n"
            )
        }
    )
    assert document.cases == []
    assert any("no tests at all" in warning.message for warning in document.warnings)


def test_array_vars_give_one_test_per_value_after_the_prompt_is_rendered():
    # yaml-parser.ts: expandPromptMatrix renders the prompt before expandArrayVarCases splits the
    # tests, so the prompt sees the whole list while each test's own fields see one value.
    document = render(
        {
            "evals/suite.yaml": (
                'prompts:\n  - "Say {{ word }} in {{ lang }}"\n'
                'tests:\n  - id: "say-{{ word }}-{{ lang }}"\n    criteria: ok\n    vars:\n'
                "      word: [hi, bye]\n      lang: [fr]\n"
            )
        }
    )
    assert [case.id for case in document.cases] == ["say-hi-fr", "say-bye-fr"]
    assert sent(document.cases[1])[-1][1] == "Say hi,bye in fr"
    assert any("`word`" in warning.message for warning in document.cases[1].warnings)


@pytest.mark.parametrize(
    ("yaml_text", "message"),
    [
        (
            "prompts:\n  - hello\ntests:\n  - id: one\n    input: legacy\n    criteria: ok\n",
            "tests[0].input has been removed",
        ),
        ("input: hi\ntests:\n  - id: one\n    criteria: ok\n", "Top-level 'input' has been removed"),
        ("prompts:\n  - hi\nevalcases:\n  - id: one\n", "Top-level 'evalcases' has been removed"),
        (
            "prompts:\n  - hi\ntests:\n  - id: one\n    criteria: ok\n    expected_output: x\n",
            "tests[0].expected_output has been removed",
        ),
        (
            "prompts:\n  - hi\ninput_files: [a.md]\ntests:\n  - id: one\n    criteria: ok\n",
            "cannot be combined with 'prompts'",
        ),
        (
            "prompts:\n  - file://missing.md\ntests:\n  - id: one\n    criteria: ok\n",
            "Prompt file not found: missing.md",
        ),
    ],
)
def test_keys_agentv_5_removed_are_refused_with_its_words(yaml_text, message):
    with pytest.raises(InputError) as raised:
        render({"evals/suite.yaml": yaml_text}, profile="agentv-5")
    assert message in raised.value.diagnostic.message
    assert raised.value.diagnostic.line is not None


def test_a_prompt_made_by_running_code_is_shown_as_not_reproduced():
    document = render(
        {
            "evals/suite.yaml": (
                "prompts:\n  - id: generated\n    function_file: prompt-source.js\n"
                "tests:\n  - id: docs\n    criteria: ok\n    vars:\n      topic: x\n"
            )
        }
    )
    case = document.cases[0]
    assert case.id == "docs" and "does not run code" in case.skipped


def test_a_test_without_evaluation_is_skipped_with_agentv_5s_reason():
    document = render(
        {"evals/suite.yaml": ("prompts:\n  - hi\ntests:\n  - id: lonely\n    vars:\n      a: 1\n")}
    )
    assert "input or PROMPT.md" in document.cases[0].skipped


def test_suite_graders_count_as_every_tests_evaluation():
    document = render(
        {
            "evals/suite.yaml": (
                "prompts:\n  - hi {{ a }}\nassert:\n  - contains: hi\n"
                "tests:\n  - id: graded-by-suite\n    vars:\n      a: there\n"
            )
        }
    )
    assert document.cases[0].skipped is None
    assert sent(document.cases[0])[-1] == ("user", "hi there")


def test_an_unfaithful_filter_warns_instead_of_passing_silently():
    document = render(
        {
            "evals/suite.yaml": (
                'prompts:\n  - "{{ name | title }}"\n'
                "tests:\n  - id: t\n    criteria: ok\n    vars:\n      name: ada lovelace\n"
            )
        }
    )
    assert any("`title` filter" in warning.message for warning in document.cases[0].warnings)


def test_a_template_syntax_error_names_the_line():
    with pytest.raises(InputError) as raised:
        render(
            {
                "evals/suite.yaml": (
                    'prompts:\n  - "{% if %}"\ntests:\n  - id: t\n    criteria: ok\n    vars:\n      a: 1\n'
                )
            }
        )
    assert raised.value.diagnostic.line == 2


def test_env_references_render_empty_with_a_warning():
    document = render(
        {
            "evals/suite.yaml": (
                'prompts:\n  - "key={{ env.API_KEY }}; {{ q }}"\n'
                "tests:\n  - id: t\n    criteria: ok\n    vars:\n      q: why\n"
            )
        }
    )
    assert sent(document.cases[0])[-1][1] == "key=; why"
    assert any("API_KEY" in warning.message for warning in document.warnings)


@pytest.mark.parametrize(
    ("yaml_text", "profile"),
    [
        ("prompts:\n  - hi\ntests:\n  - id: a\n    criteria: ok\n", "agentv-5"),
        ("tests:\n  - id: a\n    input: hi\n    criteria: ok\n", "agentv-4"),
        (
            "evalcases:\n  - id: a\n    outcome: ok\n    input_messages:\n"
            "      - role: user\n        content: hi\n",
            "spec",
        ),
    ],
)
def test_auto_picks_the_generation_the_schema_belongs_to(yaml_text, profile):
    document = render({"evals/suite.yaml": yaml_text})
    assert document.profile == profile and document.profile_reason


def test_external_test_files_keep_input_and_prompts_take_it_as_a_var():
    # expandPromptMatrix moves a test's own `input` into vars.input.
    document = render(
        {
            "evals/cases.yaml": "- id: ext\n  input: from the file\n  criteria: ok\n",
            "evals/suite.yaml": 'prompts:\n  - "Q: {{ input }}"\ntests: cases.yaml\n',
        }
    )
    assert sent(document.cases[0])[-1] == ("user", "Q: from the file")


@pytest.mark.parametrize(
    "template",
    [
        "{{ 'a' * 1000000000 }}",
        "{{ 9 ** 9 ** 9 }}",
        "{% for a in range(100000) %}{% for b in range(100000) %}xxxxxxxxxx{% endfor %}{% endfor %}",
        "{{ ''.__class__.__mro__ }}",
    ],
)
def test_hostile_templates_are_refused_or_harmless(template):
    from inspector.core.safe_parse import LimitExceeded

    files = {
        "evals/suite.yaml": (
            f'prompts:\n  - "{template}"\ntests:\n  - id: t\n    criteria: ok\n    vars:\n      a: 1\n'
        )
    }
    try:
        document = render(files)
    except (LimitExceeded, InputError) as refused:
        assert refused.diagnostic.path == "evals/suite.yaml"
    else:
        assert "class" not in sent(document.cases[0])[-1][1]


def test_a_var_from_a_default_test_file_points_at_that_file():
    document = render(
        {
            "evals/defaults.yaml": "vars:\n  tone: calm\n",
            "evals/suite.yaml": (
                "default_test: file://defaults.yaml\nprompts:\n"
                "  - 'Be {{ tone }} about {{ topic }}'\n"
                "tests:\n  - id: t\n    criteria: ok\n    vars:\n      topic: cats\n"
            ),
        }
    )
    origins = {s.text: (s.origin.path, s.origin.start_line) for s in document.cases[0].messages[-1].segments}
    assert origins["calm"] == ("evals/defaults.yaml", 2)
    assert origins["cats"] == ("evals/suite.yaml", 8)
    assert origins["Be "] == ("evals/suite.yaml", 3)


def test_text_after_an_escaped_line_break_in_a_quoted_prompt_stays_on_the_prompt_line():
    # `"a\nb"` is two lines of text on one line of the file: the template's line numbers are not
    # the file's, and the text after the var once pointed past the end of the file.
    document = render(
        {
            "evals/suite.yaml": (
                'prompts:\n  - "a\\nb\\nc\\nd\\ne\\nf\\ng\\nh {{ x }} \\n i"\n'
                "tests:\n  - id: t\n    criteria: ok\n    vars:\n      x: v\n"
            )
        }
    )
    segments = [s for s in document.cases[0].messages[-1].segments if s.text]
    assert [(s.text, s.origin.start_line, s.origin.end_line) for s in segments] == [
        ("a\nb\nc\nd\ne\nf\ng\nh ", 2, 2),
        ("v", 7, 7),
        (" \n i", 2, 2),
    ]
