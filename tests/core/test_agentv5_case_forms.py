"""agentv 5's other ways of writing tests: CSV cases files, `scenarios`, folders of case.yaml.

Each expectation follows agentv 5.3.1-next.1's own code (named in each test) and was checked
against that code running (make_agentv5_goldens.py); the goldens check the same forms on 500
generated files in every run. Here each form is shown once, readably, with the lines each case
and var is traced to.
"""

from pathlib import Path

import pytest

from inspector.core.agentv.case_csv import csv_rows, read_csv_cases
from inspector.core.agentv.scenarios import AT_TAG, NEWEST_COMMIT, lower_scenarios
from inspector.core.agentv.v4 import _Loader
from inspector.core.agentv.v5 import read_suite_v5
from inspector.core.agentv.v5_next import read_suite_v5_next
from inspector.core.bundle import DirectoryBundle, MemoryBundle
from inspector.core.documents import render_document
from inspector.core.model import InputError
from inspector.core.options import RenderOptions
from inspector.core.yaml_lines import load_yaml

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def render(files: dict[str, str | bytes], path: str = "evals/suite.yaml", profile: str = "agentv-5"):
    bundle = MemoryBundle(
        {name: text if isinstance(text, bytes) else text.encode() for name, text in files.items()}
    )
    return render_document(bundle, path, RenderOptions(profile=profile))


def user_text(case) -> str:
    return [message.content for message in case.messages if message.role == "user"][-1]


def origin_of(case, text: str):
    """Where the stretch of the user message that reads `text` was written."""
    for message in case.messages:
        for segment in message.segments:
            if segment.text == text:
                return segment.origin
    raise AssertionError(f"no segment reads {text!r}")


# ---- CSV (case-file-loader.ts parseCsvRows, parseCsvCases, parseAssertionFromString) ----------


def test_csv_rows_follow_agentvs_quoting_rules():
    text = '\ufeffa,b\r\n"x, ""y""",z"w\n\n"two\nlines",\n,\n"tail"end'
    rows = [[cell.text for cell in row] for row in csv_rows(text, "cases.csv")]
    assert rows == [
        ["a", "b"],  # the byte-order mark is dropped, CRLF ends a row
        ['x, "y"', 'z"w'],  # `""` in quotes is a quote; a quote inside a plain cell is text
        # the blank line is no row
        ["two\nlines", ""],
        ["", ""],  # a row of empty cells is a row
        ["tailend"],  # text after a closing quote joins the cell; no final newline needed
    ]
    two_lines = csv_rows(text, "cases.csv")[2][0]
    assert (two_lines.start_line, two_lines.end_line) == (4, 5)


def test_an_unterminated_quote_is_agentvs_error_on_the_line_it_opens():
    with pytest.raises(InputError) as caught:
        render(
            {"evals/suite.yaml": "tests: file://cases.csv\n", "evals/cases.csv": 'id,input\nr1,"open\nmore\n'}
        )
    assert str(caught.value.diagnostic.message).startswith(
        "Malformed CSV test file: unterminated quoted cell"
    )
    assert (caught.value.diagnostic.path, caught.value.diagnostic.line) == ("evals/cases.csv", 2)


def test_promptfoos_columns_become_agentvs_case_fields():
    text = (
        "id,input,__prefix,__suffix,__description,__expected,__expected2,__metric,__threshold,"
        "__metadata:tags[],__metadata:owner,__config:__expected2:threshold,vars.nested.key, topic \n"
        'r1,hello,[,],Answers,contains:hi,"icontains-any: a, b",acc,0.5,"x,y\\,z",me,0.8,deep,sky\n'
        ",,,,,grade: be kind,,,,,,1,,\n"
    )
    first, second = (case.plain() for case in read_csv_cases(text, "evals/cases.csv"))
    assert first == {
        "id": "r1",
        "input": "[hello]",
        "criteria": "Answers",
        "assert": [
            {"type": "contains", "value": "hi", "metric": "acc", "name": "acc-1"},
            {
                "type": "icontains-any",
                "value": ["a", "b"],
                "metric": "acc",
                "name": "acc-2",
                "min_score": 0.8,
            },
        ],
        "threshold": 0.5,
        "execution": {"threshold": 0.5},
        "vars": {"nested": {"key": "deep"}, "topic": "sky"},
        "metadata": {"tags": ["x", "y,z"], "owner": "me", "threshold": 0.8},
    }
    assert second == {
        "id": "row-2",
        "input": "",
        "assert": [{"type": "llm-grader", "rubrics": [{"id": "rubric", "outcome": "be kind", "weight": 1}]}],
        "vars": {"nested": {"key": ""}, "topic": ""},
    }  # its __config names __expected2, which this row does not have


@pytest.mark.parametrize(
    ("cell", "assertion"),
    [
        ("hello world", {"type": "equals", "value": "hello world"}),
        ("hello", {"type": "equals", "value": "hello"}),  # an unknown word alone is the text
        ("not-regex:^x", {"type": "regex", "negate": True, "value": "^x"}),
        ("starts-with:Sum", {"type": "starts-with", "value": "Sum", "min_score": 0.75}),
        ("latency(100)", {"type": "latency", "threshold": 100}),
        ("cost(0.5)", {"type": "cost", "budget": 0.5}),
        ("javascript: output.ok", {"type": "inline-assert", "code": "output.ok"}),
        ("file://check.py", {"type": "script", "command": ["uv", "run", "python", "evals/check.py"]}),
    ],
)
def test_expected_cells_become_agentvs_assertions(cell, assertion):
    [case] = read_csv_cases(f"__expected\n{cell}\n", "evals/cases.csv")
    assert case.plain()["assert"] == [assertion]


@pytest.mark.parametrize(
    ("header", "cell", "message"),
    [
        ("__expected", "foo:bar", 'Unsupported promptfoo __expected assertion "foo".'),
        (
            "__expected",
            "latency",
            "promptfoo __expected latency assertion requires a numeric limit, e.g. latency(1)",
        ),
        ("__expected", "file://x.js", 'Unsupported promptfoo __expected file assertion "file://x.js".'),
        ("__config:__expected:threshold", "", "Invalid numeric value for threshold in __config column"),
        ("__config:__expected:weight", "1", 'Invalid config key "weight" in __config column'),
        ("__config:__expected0:threshold", "1", 'Invalid expected key "__expected0" in __config column'),
    ],
)
def test_cells_agentv_refuses_name_the_file_and_line(header, cell, message):
    with pytest.raises(InputError) as caught:
        read_csv_cases(f"id,{header}\nr1,{cell}\n", "evals/cases.csv")
    assert caught.value.diagnostic.message.startswith(message)
    assert (caught.value.diagnostic.path, caught.value.diagnostic.line) == ("evals/cases.csv", 2)


def test_a_csv_file_in_tests_renders_each_row_traced_to_its_cells():
    document = render(
        {
            "evals/suite.yaml": (
                'prompts:\n  - "Q: {{ question }} ({{ input }})"\ntests:\n  - file://cases.csv\n'
                "  - id: inline\n    vars: {question: why, input: x}\n    criteria: ok\n"
            ),
            "evals/cases.csv": 'id,question,input,__description\nr1,"What is\n""this""?",hi,ok\n,second,there,ok\n',
        }
    )
    assert [case.id for case in document.cases] == ["r1", "row-2", "inline"]
    first = document.cases[0]
    assert user_text(first) == 'Q: What is\n"this"? (hi)'
    question = origin_of(first, 'What is\n"this"?')
    assert (question.path, question.start_line, question.end_line) == ("evals/cases.csv", 2, 3)
    answer = origin_of(document.cases[1], "second")
    assert (answer.path, answer.start_line) == ("evals/cases.csv", 4)
    assert (document.cases[1].span.path, document.cases[1].span.start_line) == ("evals/cases.csv", 4)


def test_the_external_datasets_example_reads_yaml_jsonl_and_csv_cases():
    # cases files of every kind, as agentv's examples/features/external-datasets writes them
    bundle = DirectoryBundle(FIXTURES / "agentv5-cases-files")
    document = render_document(bundle, "evals/suite.yaml", RenderOptions(profile="auto"))
    assert document.profile == "agentv-5"
    assert [(case.id, user_text(case)) for case in document.cases] == [
        ("units-conversion", "How many metres are in 3.5 kilometres?"),
        ("leap-year", "Is 2100 a leap year?"),
        ("regression-apology", "My parcel arrived broken."),
        ("regression-refund", "When will I get my money back?"),
        ("csv-thanks", "Thank the customer in one sentence"),
        ("inline-test", "Are you open on Sundays?"),
    ]
    origin = origin_of(document.cases[4], "Thank the customer in one sentence")
    assert (origin.path, origin.start_line) == ("evals/cases/magic.csv", 2)


# ---- scenarios (yaml-parser.ts lowerScenariosIntoTests, mergeScenarioTestRows) ---------------

SCENARIOS = """\
prompts:
  - "Reply in {{ language }}: {{ question }} ({{ tone }})"
default_test:
  vars: {tone: plain}
scenarios:
  - config:
      - id: spanish
        vars: {language: Spanish, tone: warm}
      - vars: {language: French}
    tests:
      - vars: {question: hi}
        criteria: ok
      - id: "own-{{ language }}"
        vars: {question: bye}
        criteria: ok
  - config:
      - id: solo
        vars: {language: German}
    tests:
      - vars: {question: one}
        criteria: ok
"""


def test_scenarios_are_config_rows_times_tests_with_agentvs_ids():
    document = render({"evals/suite.yaml": SCENARIOS})
    assert [(case.id, user_text(case)) for case in document.cases] == [
        ("spanish__scenario_test_1", "Reply in Spanish: hi (warm)"),
        ("own-Spanish", "Reply in Spanish: bye (warm)"),
        ("scenario-1-2-1", "Reply in French: hi (plain)"),
        ("own-French", "Reply in French: bye (plain)"),
        ("solo", "Reply in German: one (plain)"),  # one test: the row's id as it is
    ]
    spanish = origin_of(document.cases[0], "Spanish")
    question = origin_of(document.cases[0], "hi")
    assert (spanish.path, spanish.start_line) == ("evals/suite.yaml", 8)  # the config row
    assert question.start_line == 11  # the scenario's test


def test_a_scenario_row_with_a_removed_key_is_refused_in_agentvs_words():
    text = SCENARIOS.replace(
        "      - vars: {language: French}", "      - vars: {language: French}\n        input: x"
    )
    with pytest.raises(InputError) as caught:
        render({"evals/suite.yaml": text})
    assert caught.value.diagnostic.message.startswith(
        "scenarios[0].config[1].input has been removed from authored eval YAML."
    )
    assert caught.value.diagnostic.line == 10


def test_scenarios_that_are_not_a_list_are_refused():
    with pytest.raises(InputError) as caught:
        render({"evals/suite.yaml": "prompts: [hi]\nscenarios:\n  config: []\n"})
    assert caught.value.diagnostic.message == (
        "Invalid eval file evals/suite.yaml: scenarios must be an array."
    )


# ---- folders (case-file-loader.ts loadCasesFromDirectory) ------------------------------------


def test_the_directory_discovery_example_reads_one_case_per_folder():
    # a tests folder, as agentv's examples/showcase/directory-discovery writes one (agentv 4.42.4 reads it too)
    bundle = DirectoryBundle(FIXTURES / "agentv5-case-folders")
    for profile in ("agentv-5", "agentv-4", "auto"):
        document = render_document(bundle, "EVAL.yaml", RenderOptions(profile=profile))
        assert [case.id for case in document.cases] == ["rename-column", "retry-timeout"], profile
        first = document.cases[0]
        assert (first.span.path, first.span.start_line) == ("cases/rename-column/case.yaml", 1)
        assert user_text(first).startswith("Rename the `created` column of the orders table")


def test_a_folder_without_a_case_file_is_skipped_with_agentvs_warning():
    document = render(
        {
            "evals/suite.yaml": "prompts: ['Do {{ task }}']\ntests: cases\n",
            "evals/cases/b/case.yml": "vars: {task: second}\ncriteria: ok\n",
            "evals/cases/a/case.yaml": "id: first\nvars: {task: first}\ncriteria: ok\n",
            "evals/cases/c/notes.md": "no case here\n",
        }
    )
    assert [(case.id, user_text(case)) for case in document.cases] == [
        ("first", "Do first"),
        ("b", "Do second"),
    ]
    assert "Skipping directory 'c' — no case.yaml found" in [warning.message for warning in document.warnings]


def test_a_workspace_folder_is_refused_as_agentv_5_refuses_the_template_it_sets():
    with pytest.raises(InputError) as caught:
        render(
            {
                "evals/suite.yaml": "prompts: ['Do {{ task }}']\ntests: cases\n",
                "evals/cases/a/case.yaml": "vars: {task: first}\ncriteria: ok\n",
                "evals/cases/a/workspace/readme.md": "seed\n",
            }
        )
    assert caught.value.diagnostic.message.startswith(
        "workspace.template has been removed from public eval YAML."
    )


def test_a_file_reference_to_a_folder_is_agentvs_read_error():
    with pytest.raises(InputError) as caught:
        render(
            {
                "evals/suite.yaml": "prompts: ['Do {{ task }}']\ntests:\n  - file://cases\n",
                "evals/cases/a/case.yaml": "vars: {task: first}\ncriteria: ok\n",
            }
        )
    assert caught.value.diagnostic.message.startswith("Cannot read external test file: evals/cases")


# ---- scenario files and globs (agentv's newest commit, scenario-file-loader.ts) ---------------


def lowered(files: dict[str, str], rules):
    """The tests `scenarios` stands for under `rules`, as (id, language, file)."""
    bundle = MemoryBundle({name: text.encode() for name, text in files.items()})
    loader = _Loader(bundle, "evals/suite.yaml")
    root = load_yaml(files["evals/suite.yaml"], "evals/suite.yaml")
    tests = lower_scenarios(loader, root.get("scenarios"), lambda node: node, rules)
    return [(test.plain()["id"], test.plain()["vars"]["language"], path) for test, path in tests], loader


SCENARIO_FILES = {
    "evals/suite.yaml": "scenarios:\n  - file://scenarios/*.yaml\n  - config: [{id: inline, vars: {language: Dutch}}]\n"
    "    tests: [{vars: {q: a}}]\n",
    "evals/scenarios/b.yaml": "scenarios:\n  - config: [{id: second, vars: {language: French}}]\n    tests: [{vars: {q: b}}]\n",
    "evals/scenarios/a.yaml": "- config: [{id: first, vars: {language: Spanish}}]\n  tests: [{vars: {q: a}}]\n",
}


def test_scenario_files_and_globs_are_read_at_agentvs_newest_commit():
    tests, _ = lowered(SCENARIO_FILES, NEWEST_COMMIT)
    assert tests == [
        ("first", "Spanish", "evals/scenarios/a.yaml"),  # the glob's files in name order
        ("second", "French", "evals/scenarios/b.yaml"),  # an object with a `scenarios` list
        ("inline", "Dutch", "evals/suite.yaml"),
    ]


def test_at_the_tag_a_scenario_file_reference_is_agentvs_object_error():
    with pytest.raises(InputError) as caught:
        lowered(SCENARIO_FILES, AT_TAG)
    assert (
        caught.value.diagnostic.message
        == "Invalid eval file evals/suite.yaml: scenarios[0] must be an object."
    )


def test_scenario_files_that_agentv_refuses_or_skips():
    files = {"evals/suite.yaml": "scenarios:\n  - file://none/*.yaml\n  - file://missing.yaml\n"}
    with pytest.raises(InputError) as caught:
        lowered(files, NEWEST_COMMIT)
    assert caught.value.diagnostic.message == "Cannot read external scenario file: evals/missing.yaml"
    files = {"evals/suite.yaml": "scenarios:\n  - file://none/*.yaml\n"}
    tests, loader = lowered(files, NEWEST_COMMIT)
    assert tests == []
    assert [warning.message for warning in loader.warnings] == [
        "Glob pattern matched no scenario files: file://none/*.yaml"
    ]
    files = {"evals/suite.yaml": "scenarios:\n  - file://s.yaml\n", "evals/s.yaml": "config: []\n"}
    with pytest.raises(InputError) as caught:
        lowered(files, NEWEST_COMMIT)
    assert caught.value.diagnostic.message.startswith("External scenario file must contain a scenario array")


def test_provider_output_in_a_scenario_row_is_refused_at_the_newest_commit_only():
    files = {
        "evals/suite.yaml": "scenarios:\n  - config: [{id: r, vars: {language: Dutch}, provider_output: x}]\n"
        "    tests: [{vars: {q: a}}]\n"
    }
    assert lowered(files, AT_TAG)[0] == [("r", "Dutch", "evals/suite.yaml")]
    with pytest.raises(InputError) as caught:
        lowered(files, NEWEST_COMMIT)
    assert caught.value.diagnostic.message.startswith(
        "scenarios[0].config[0].provider_output is not supported in authored AgentV YAML."
    )


# ---- auto: agentv 4.42.4 knows neither scenarios nor CSV files --------------------------------


@pytest.mark.parametrize(
    ("suite", "reason"),
    [
        (
            "scenarios:\n  - config: [{id: a, vars: {q: x}}]\n    tests: [{vars: {w: y}, criteria: ok}]\n",
            "`scenarios`",
        ),
        ("tests: file://cases.csv\n", "CSV"),
        ("tests:\n  - id: a\n    criteria: ok\n  - cases.csv\n", "CSV"),
    ],
)
def test_auto_reads_scenarios_and_csv_files_as_agentv_5(suite, reason):
    document = render(
        {"evals/suite.yaml": suite, "evals/cases.csv": "id,input,__description\nr1,hi,ok\n"}, profile="auto"
    )
    assert document.profile == "agentv-5" and reason in document.profile_reason


def test_auto_reads_scenario_files_with_agentvs_newest_commit_which_alone_reads_them():
    # agentv's examples/features/scenarios/evals/suite.yaml, the form its docs show.
    files = {
        **SCENARIO_FILES,
        "evals/suite.yaml": "prompts: ['{{ language }}']\nscenarios:\n  - file://scenarios/*.yaml\n",
    }
    document = render(files, profile="auto")
    assert document.profile == "agentv-5-next-58f316c"
    assert "`file://`" in document.profile_reason
    assert [case.id for case in document.cases] == ["first", "second"]


def test_a_provider_output_column_is_refused_at_agentvs_newest_commit_only():
    text = "id,__provider_output\nr1,Hello\n"
    assert read_csv_cases(text, "evals/cases.csv")[0].plain() == {"id": "r1", "expected_output": "Hello"}
    with pytest.raises(InputError) as caught:
        read_csv_cases(text, "evals/cases.csv", newest_commit=True)
    assert caught.value.diagnostic.message.startswith("__provider_output has been removed from CSV imports.")
    assert caught.value.diagnostic.line == 2


def test_the_newest_commit_reader_reads_scenario_files_and_refuses_provider_output_columns():
    files = {
        **SCENARIO_FILES,
        "evals/suite.yaml": "prompts: ['{{ language }}']\n" + SCENARIO_FILES["evals/suite.yaml"],
    }
    bundle = MemoryBundle({name: text.encode() for name, text in files.items()})
    suite = read_suite_v5_next(bundle, "evals/suite.yaml")
    assert [case.id for case in suite.cases] == ["first", "second", "inline"]
    with pytest.raises(InputError):
        read_suite_v5(bundle, "evals/suite.yaml")  # at the tag a file:// scenario is no object
    bundle = MemoryBundle(
        {
            "evals/suite.yaml": b"prompts: [hi]\ntests: cases.csv\n",
            "evals/cases.csv": b"id,__providerOutput\nr,x\n",
        }
    )
    assert [case.id for case in read_suite_v5(bundle, "evals/suite.yaml").cases] == ["r"]
    with pytest.raises(InputError):
        read_suite_v5_next(bundle, "evals/suite.yaml")


# ---- JSON cases files and globs in `tests` (case-file-loader.ts parseJsonCases,
# resolveFileReference; yaml-parser.ts resolveIncludePaths), the same at the tag and the commit --

SUITE = "prompts:\n  - 'Say {{ topic }}'\ntests: {tests}\n"


@pytest.mark.parametrize("profile", ["agentv-5", "agentv-5-next-58f316c"])
@pytest.mark.parametrize(
    "body",
    ['[{"id": "a", "vars": {"topic": "x"}}]', '{"tests": [\n  {"id": "a",\n   "vars": {"topic": "x"}}\n]}'],
)
def test_a_json_cases_file_is_read_as_a_list_or_an_object_with_tests(profile, body):
    rendered = render(
        {"evals/suite.yaml": SUITE.replace("{tests}", "file://cases.json"), "evals/cases.json": body},
        profile=profile,
    )
    (case,) = rendered.cases
    assert case.id == "a" and user_text(case) == "Say x"
    assert origin_of(case, "x").path == "evals/cases.json"
    assert origin_of(case, "x").start_line == (1 if body.startswith("[") else 3)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            '{"cases": []}',
            "Malformed JSON test file: External test file must contain an array of test objects",
        ),
        (
            '[{"id": "a"}, 3]',
            "Malformed JSON test file: External test file contains non-object entry at index 1",
        ),
        ('[{"id": "a",}]', "Malformed JSON test file:"),
        ("[NaN]", "Malformed JSON test file:"),
    ],
)
def test_a_json_cases_file_agentv_refuses_is_refused_in_its_words(body, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        render(
            {"evals/suite.yaml": SUITE.replace("{tests}", "[file://cases.json]"), "evals/cases.json": body}
        )


GLOB_FILES = {
    "evals/parts/part-1.yaml": "- id: one\n  vars: {topic: one}\n",
    "evals/parts/part-2.json": '{"tests": [{"id": "two", "vars": {"topic": "two"}}]}',
    "evals/parts/.hidden.json": "not json",  # no wildcard matches a dotfile
    "evals/parts/deep/part-3.yaml": "- id: three\n  vars: {topic: three}\n",
}


@pytest.mark.parametrize(
    ("tests", "ids"),
    [
        ("file://parts/*.{yaml,json}", ["one", "two"]),
        ("parts/*", ["one", "two"]),
        ("[file://parts/**/*.yaml]", ["three", "one"]),  # sorted by path: deep/ before part-1
        ("[parts/p?rt-*.json]", ["two"]),
        ("parts/none-*.json", []),
    ],
)
def test_globs_in_tests_read_every_file_they_match_in_name_order(tests, ids):
    rendered = render({"evals/suite.yaml": SUITE.replace("{tests}", tests), **GLOB_FILES})
    assert [case.id for case in rendered.cases] == ids


@pytest.mark.parametrize(
    ("tests", "ids"),
    [
        # fast-glob's character classes and extglobs (tests/oracle/test_fast_glob_differential.py
        # checks them against fast-glob itself)
        ("file://parts/part-[12].*", ["one", "two"]),
        ("['parts/part-[!1].json']", ["two"]),
        ("parts/@(part-1|part-2).yaml", ["one"]),
        ("file://parts/!(part-2).{yaml,yml}", ["one"]),
        ("['file://parts/+(part-)[0-9]*']", ["one", "two"]),
    ],
)
def test_globs_with_classes_and_extglobs_read_what_fast_glob_lists(tests, ids):
    for profile in ("agentv-5", "agentv-5-next-58f316c"):
        rendered = render(
            {"evals/suite.yaml": SUITE.replace("{tests}", tests), **GLOB_FILES}, profile=profile
        )
        assert [case.id for case in rendered.cases] == ids


def test_a_negated_extglob_reads_dotfiles_as_fast_glob_does():
    # only `*` and `?` keep away from dotfiles: `!(part-1).json` lists parts/.hidden.json, which
    # is no JSON, so agentv refuses the file
    with pytest.raises(InputError, match="Malformed JSON test file") as refused:
        render({"evals/suite.yaml": SUITE.replace("{tests}", "file://parts/!(part-1).json"), **GLOB_FILES})
    assert refused.value.diagnostic.path == "evals/parts/.hidden.json"


def test_a_glob_the_inspector_does_not_reproduce_is_refused_at_its_line():
    # picomatch reads bare parentheses as a regular-expression group
    with pytest.raises(InputError, match=r"not read by the inspector \(parentheses") as refused:
        render({"evals/suite.yaml": SUITE.replace("{tests}", "parts/(a|b).yaml"), **GLOB_FILES})
    assert refused.value.diagnostic.line == 3


def test_a_file_glob_that_matches_nothing_is_agentvs_warning():
    rendered = render(
        {"evals/suite.yaml": SUITE.replace("{tests}", "[file://parts/none-*.json]"), **GLOB_FILES}
    )
    assert any("Glob pattern matched no files: file://parts/none-*.json" in str(w) for w in rendered.warnings)


def test_a_templates_crlf_line_ends_stay_as_nunjucks_keeps_them():
    """Found by the long run: a CSV `__prefix` cell "x\r\ny" before a templated input; jinja2
    writes every line end as `\n`, agentv's nunjucks kept the CRLF."""
    rendered = render(
        {
            "evals/suite.yaml": "default_test:\n  vars:\n    topic: T\ntests: file://cases.csv\n",
            "evals/cases.csv": '__prefix,input\n"x\r\ny",{{ topic }}\n',
        }
    )
    assert user_text(rendered.cases[0]) == "x\r\nyT"


@pytest.mark.parametrize("glob", ["parts/*a*b*c*.json", "parts/+(a|ab).json", "parts/*(x*).json"])
def test_a_glob_whose_matching_could_run_away_is_refused(glob):
    # fast_glob.MAX_REPEATS: Python's regular expressions backtrack, and a hostile pattern over a
    # long name would take the page down; such a pattern is refused before anything is matched
    with pytest.raises(InputError, match="not read by the inspector"):
        render({"evals/suite.yaml": SUITE.replace("{tests}", glob), **GLOB_FILES})


# ---- a results file beside the suite (agentv's examples keep suite.baseline.jsonl) -----------


def test_agentvs_results_file_says_it_is_a_run_not_tests():
    line = '{"timestamp":"2026-02-20T21:39:01Z","test_id":"capital","score":1,"target":"default"}\n'
    files = {"evals/suite.baseline.jsonl": line * 2, "evals/cases.jsonl": '{"id": "a", "input": "hi"}\n'}
    results = render(files, "evals/suite.baseline.jsonl", profile="auto")
    assert results.warnings[0].message.startswith("each line is the result of a run (`test_id`, `score`)")
    assert (results.warnings[0].path, results.warnings[0].line) == ("evals/suite.baseline.jsonl", 1)
    tests = render(files, "evals/cases.jsonl", profile="auto")
    assert not any("result of a run" in warning.message for warning in tests.warnings)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            "vars:\n  input: Add a greeting\nassert:\n  - Greets\n",
            "it reads as one test or a test's defaults",
        ),
        (
            "threshold: 0.8\noptions:\n  rubric_prompt: Grade it\n",
            "it reads as one test or a test's defaults",
        ),
        ("provider: local-openai\ngrader: local-openai-grader\n", "it holds providers or defaults"),
    ],
)
def test_a_file_a_suite_reads_says_so_when_listed_on_its_own(text, said):
    # agentv's showcase/directory-discovery case.yaml, readme-quickstart's default-test.yaml and
    # .agentv/defaults.yaml, uploaded with their example folders.
    with pytest.raises(InputError) as caught:
        render({"evals/cases/one/case.yaml": text}, "evals/cases/one/case.yaml", profile="auto")
    message = caught.value.diagnostic.message
    assert message.startswith("no cases: the file has no `tests`, `eval_cases` or `evalcases` list; ")
    assert said in message
    assert (caught.value.diagnostic.path, caught.value.diagnostic.line) == ("evals/cases/one/case.yaml", 1)
