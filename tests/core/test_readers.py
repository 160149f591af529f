"""Which documents another reads as its cases (core/readers.py), from what the renders say."""

from __future__ import annotations

from inspector.core.bundle import MemoryBundle
from inspector.core.documents import list_documents, render_document
from inspector.core.readers import case_sources, read_by, reading_order

# The shape of agentv's examples/features/external-datasets: a suite whose tests are three files
# and one inline case, a second suite reading one of those files, and a suite reading nothing.
EXTERNAL_DATASETS = {
    "evals/suite.yaml": (
        "name: external-datasets-demo\nproviders:\n  - llm\nprompts:\n  - '{{ input }}'\ntests:\n"
        "  - file://cases/accuracy.yaml\n  - file://cases/regression.jsonl\n  - file://cases/magic.csv\n"
        "  - id: inline-test\n    assert:\n      - Greets politely\n    vars:\n      input: Hello, how are you?\n"
    ),
    "evals/cases/accuracy.yaml": (
        "- id: accuracy-basic-math\n  assert:\n    - Answers the sum\n  vars:\n    input: What is 15 + 27?\n"
        "- id: accuracy-capital\n  assert:\n    - Names the capital\n  vars:\n    input: Capital of France?\n"
    ),
    "evals/cases/regression.jsonl": (
        '{"id":"regression-greeting","assert":["Greets"],"vars":{"input":"Hi there!"}}\n'
        '{"id":"regression-farewell","assert":["Says goodbye"],"vars":{"input":"Goodbye!"}}\n'
    ),
    "evals/cases/magic.csv": "id,vars.input\ncsv-magic-greeting,Reply with a short greeting\n",
    "evals/smoke/suite.yaml": (
        "name: smoke\nproviders:\n  - llm\nprompts:\n  - '{{ input }}'\ntests:\n  - file://../cases/accuracy.yaml\n"
    ),
    "other/eval.yaml": (
        "tests:\n  - id: alone\n    criteria: ok\n    input:\n      - role: user\n        content: Hello\n"
    ),
}


def _sources() -> dict[str, tuple[str, ...]]:
    bundle = MemoryBundle({path: text.encode() for path, text in EXTERNAL_DATASETS.items()})
    return {path: case_sources(render_document(bundle, path)) for path in list_documents(bundle)}


def test_a_suite_reads_the_files_its_cases_are_written_in_and_the_first_suite_names_them():
    sources = _sources()
    assert sources["evals/suite.yaml"] == (
        "evals/cases/accuracy.yaml",
        "evals/cases/regression.jsonl",
        "evals/cases/magic.csv",  # no document of its own: named by no one
    )
    assert sources["other/eval.yaml"] == ()
    assert read_by(sources) == {
        "evals/cases/accuracy.yaml": "evals/smoke/suite.yaml",  # both suites read it: the first in order
        "evals/cases/regression.jsonl": "evals/suite.yaml",
    }


def test_files_reading_each_other_are_both_suites():
    assert read_by({"a.yaml": ("b.yaml",), "b.yaml": ("a.yaml",)}) == {}


def test_a_read_file_follows_its_reader():
    documents = ["cases/one.yaml", "other.yaml", "suite.yaml", "zed.yaml"]
    read = {"cases/one.yaml": "suite.yaml", "zed.yaml": "suite.yaml"}
    assert reading_order(documents, read) == ["other.yaml", "suite.yaml", "cases/one.yaml", "zed.yaml"]
