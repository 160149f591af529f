"""Hypothesis strategies for files in the format of agentv's main at 58f316ca2 (untagged, after
v5.3.1-next.1): agentv 5's files (generate_v5.py, generate_v5_graders.py) with `providers` in
promptfoo's string, object and map forms, `defaults.provider` / `defaults.grader`, tests' and
default_test's `options.provider`, assertion `provider`, `agent-rubric`, and now and then a key
the commit refuses (`target`, `targets`, top-level `graders`, `experiment`, object `repeat`,
`provider_output`, assertion and script `target`, `llm-grader`, `llm_judge`, `skill-trigger`).

make_agentv5_goldens.py --profile agentv-5-next-58f316c runs them through the commit's source.
The judges a file may name are the ones tests/oracle/capture.mjs serves: `judge` (the run's
default), `grader-a` and `grader-b`, and `agent-judge`, the agent-capable judge every `agent-rubric`
names (agentv fails an agent-rubric a chat model would judge, without asking).
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
from typing import Any

import yaml
from hypothesis import strategies as st

from .generate_v5 import files_of, suites
from .generate_v5_graders import grader_documents, grader_files

JUDGES = ["grader-a", "grader-b", "judge"]
AGENT_JUDGE = "agent-judge"
PROVIDERS = st.sampled_from(
    [
        "mock",
        ["mock"],
        "openai:gpt-4o-mini",
        ["openai:gpt-4o-mini", "anthropic:messages:claude-sonnet-4-5"],
        [{"id": "openai:gpt-4o-mini", "label": "mock", "config": {"temperature": 0}}],
        [{"id": "openai:chat:gpt-4o-mini"}, "grader-a"],
        {"openai:gpt-4o-mini": {"label": "mini", "config": {"max_tokens": 64}}},
        [{"openai:gpt-4o-mini": {"label": "mini"}}, {"id": "openai:gpt-4o", "label": "big"}],
        [""],  # refused: an empty reference
        ["mock", "mock"],  # refused: the same provider twice
    ]
)
# Keys the commit refuses in a whole file, with a value of the shape authors wrote.
REFUSED_TOP = st.sampled_from(
    [
        ("evaluate_options", {"repeat": {"count": 2, "strategy": "pass_any"}}),
        ("target", "mock"),
        ("target", {"id": "mock", "provider": "openai"}),
        ("targets", ["mock"]),
        ("graders", [{"id": "judge", "provider": "openai"}]),
        ("experiment", "baseline"),
        ("experiment", {"name": "x"}),
        ("model", "gpt-4o"),
        ("runs", 2),
        ("early_exit", True),
        ("repeat", 2),
        ("budget_usd", 1),
        ("defaults", {"target": "mock"}),
        ("defaults", {"grader": ""}),
        ("defaults", "grader-a"),
        ("evaluate_options", {"repeat": 0}),
    ]
)


def _defaults(draw: st.DrawFn) -> dict[str, Any] | None:
    shape = draw(st.integers(0, 4))
    if shape == 0:
        return None
    found: dict[str, Any] = {}
    if shape in (1, 3):
        found["grader"] = draw(st.sampled_from(JUDGES))
    if shape in (2, 3):
        found["provider"] = "mock"
    return found or None


def _newest_top(draw: st.DrawFn, document: dict[str, Any], refusals: int = 5) -> None:
    """providers, defaults, evaluate_options.repeat, and one time in `refusals` + 1 a refused key."""
    if draw(st.integers(0, 3)):
        document["providers"] = draw(PROVIDERS)
    defaults = _defaults(draw)
    if defaults is not None:
        document["defaults"] = defaults
    if draw(st.integers(0, 5)) == 0:
        document["evaluate_options"] = {"repeat": draw(st.sampled_from([1, 2]))}
    if draw(st.integers(0, refusals)) == 0:
        key, value = draw(REFUSED_TOP)
        document[key] = copy.deepcopy(value)


def _test_options(draw: st.DrawFn, test: dict[str, Any], refused: bool = True) -> None:
    shape = draw(st.integers(0, 11))
    if shape in (0, 4):
        test.setdefault("options", {})["provider"] = draw(st.sampled_from(JUDGES))
    elif shape == 6 and refused:
        test["provider_output"] = "fixed answer"  # refused


@st.composite
def newest_suites(draw: st.DrawFn) -> dict[str, bytes]:
    """generate_v5's files in the commit's format."""
    document = draw(suites())
    _newest_top(draw, document, refusals=9)
    tests = document.get("tests")
    if isinstance(tests, list):
        for test in tests:
            _test_options(draw, test, refused=draw(st.integers(0, 2)) == 1)
    if "default_test" in document and draw(st.integers(0, 19)) == 7:
        document["default_test"]["provider_output"] = "fixed"  # refused
    # the new case forms' choices from a random seeded by the file drawn so far: evenly spread,
    # where hypothesis's own draws (and its randoms) favour their smallest value
    chance = random.Random(hashlib.sha256(repr(document).encode()).digest())
    if "_csv" in document and chance.random() < 0.2:
        _csv_provider_output(chance, document["_csv"])
    scenario_files: dict[str, bytes] = {}
    if isinstance(document.get("scenarios"), list):
        _scenario_provider_output(chance, document["scenarios"])
        if chance.random() < 0.7:
            scenario_files = _scenarios_in_files(chance, document)
    return {**files_of(document), **scenario_files}


def _csv_provider_output(chance: random.Random, spec: dict[str, Any]) -> None:
    """A `__provider_output` / `__providerOutput` column (the commit refuses a row holding one)."""
    column = chance.choice(["__provider_output", "__providerOutput", " __providerOutput "])
    header = [cell for cell in spec["header"] if cell.strip() != "__provider_output"]
    position = chance.randint(0, len(header))
    keep = [index for index, cell in enumerate(spec["header"]) if cell.strip() != "__provider_output"]
    spec["header"] = [*header[:position], column, *header[position:]]
    spec["rows"] = [
        [
            *[row[index] for index in keep if index < len(row)][:position],
            "fixed",
            *[row[index] for index in keep if index < len(row)][position:],
        ]
        for row in spec["rows"]
    ]


def _scenario_provider_output(chance: random.Random, scenarios: list[Any]) -> None:
    """Now and then `provider_output` in a config row or a scenario test (the commit refuses it)."""
    for scenario in scenarios:
        if not isinstance(scenario, dict) or chance.random() > 0.1:
            continue
        rows = [
            row for key in ("config", "tests") for row in scenario.get(key) or [] if isinstance(row, dict)
        ]
        if rows:
            chance.choice(rows)["provider_output"] = "fixed answer"


# The forms of `scenarios` entries scenario-file-loader.ts reads: a file (a list, or an object with
# a `scenarios` list; YAML or JSON), globs expanded by fast-glob (sorted; `*` skips dotfiles,
# braces pick names, `**` crosses folders, classes and extglobs), and what it warns about or refuses.
READ_SCENARIO_REFERENCES = [
    "file://scenarios/one.yaml",
    "file://scenarios/two.json",
    "file://scenarios/*.yaml",
    "file://scenarios/*.{yaml,json}",
    "file://scenarios/{one,three}.y*ml",
    "file://scenarios/**/*.yml",
    "file://scenarios/t?o.json",
    "file://./scenarios/deep/../one.yaml",
    "file://scenarios/.hidden.yaml",  # named outright, a dotfile is read
    # fast-glob's classes and extglobs (picomatch): a negated one may match a dotfile
    "file://scenarios/[!o]*.json",
    "file://scenarios/t[a-z]o.json",
    "file://scenarios/@(one|three).y*ml",
    "file://scenarios/+(o|n|e).yaml",
    "file://scenarios/!(one|empty).yaml",  # .hidden.yaml too
]
OTHER_SCENARIO_REFERENCES = [
    "file://scenarios/*",  # notes.txt too: refused
    "file://scenarios/none-*.yaml",  # matches nothing: a warning
    "file://scenarios/empty.yaml",  # empty: a warning
    "file://scenarios/missing.yaml",  # refused
    "file://scenarios/notes.txt",  # refused: not YAML or JSON
]


def _tagged(scenarios: list[Any], tag: str) -> list[Any]:
    """A copy whose row and test ids end in `tag`, so that one file's tests are not another's
    (agentv refuses a file whose tests share an id)."""
    scenarios = copy.deepcopy(scenarios)
    for scenario in scenarios:
        if not isinstance(scenario, dict):
            continue
        for key in ("config", "tests"):
            rows = scenario.get(key) if isinstance(scenario.get(key), list) else []
            for index, row in enumerate(rows):
                if isinstance(row, dict) and isinstance(row.get("id"), str):
                    row["id"] += f"-{tag}{index}"
    return scenarios


def _scenarios_in_files(chance: random.Random, document: dict[str, Any]) -> dict[str, bytes]:
    """Moves the drawn scenarios into files under evals/scenarios/, `scenarios` naming them."""
    scenarios = document["scenarios"]
    half = len(scenarios) // 2 or 1
    first, second = scenarios[:half], scenarios[half:] or scenarios[:1]

    def dumped(scenarios: list[Any], tag: str) -> bytes:
        return yaml.safe_dump(_tagged(scenarios, tag), allow_unicode=True, sort_keys=False).encode()

    files = {
        "evals/scenarios/one.yaml": yaml.safe_dump(
            first if chance.random() < 0.5 else {"scenarios": first}, allow_unicode=True, sort_keys=False
        ).encode(),
        "evals/scenarios/two.json": json.dumps(
            {"scenarios": _tagged(second, "json")} if chance.random() < 0.5 else _tagged(second, "json"),
            ensure_ascii=False,
            indent=1,
        ).encode(),
        "evals/scenarios/three.yml": dumped(second, "three"),
        "evals/scenarios/deep/four.yml": dumped(first, "four"),
        "evals/scenarios/.hidden.yaml": dumped(first, "hidden"),
        "evals/scenarios/empty.yaml": b"  \n",
        "evals/scenarios/notes.txt": b"- not read\n",
    }
    if chance.random() < 0.06:
        files["evals/scenarios/one.yaml"] = chance.choice(
            [b"scenarios: {}\n", b"- 1\n- config: []\n  tests: []\n", b"just: text\n"]
        )
    references = chance.sample(READ_SCENARIO_REFERENCES, chance.choice([1, 1, 2]))
    if chance.random() < 0.15:
        references.insert(chance.randint(0, 1), chance.choice(OTHER_SCENARIO_REFERENCES))
    inline = _tagged(scenarios[:1], "inline") if chance.random() < 0.25 else []
    document["scenarios"] = [*references, *inline]
    return files


@st.composite
def _newest_grader(draw: st.DrawFn, grader: Any) -> Any:
    """An agentv 5 grader as the commit's authors write it: `llm-grader` mostly becomes
    `llm-rubric` (its rubrics the value), some ask a named judge; the rest keep what is refused."""
    if not isinstance(grader, dict):
        return grader
    grader = dict(grader)
    kind = grader.get("type")
    if kind == "assert-set":
        grader["assert"] = [draw(_newest_grader(member)) for member in grader.get("assert", [])]
        return grader
    if kind == "llm-grader" and draw(st.integers(0, 5)):
        grader["type"] = draw(st.sampled_from(["llm-rubric", "llm-rubric", "agent-rubric"]))
        if "rubrics" in grader:
            grader["value"] = grader.pop("rubrics")
        elif "value" not in grader and "prompt" not in grader:
            grader["value"] = "Answers the question"
    if grader.get("type") == "agent-rubric":
        # agentv asks only an agent-capable judge (capture.mjs serves one as `agent-judge`)
        grader["provider" if draw(st.integers(0, 9)) else "target"] = AGENT_JUDGE
    elif grader.get("type") == "llm-rubric":
        choice = draw(st.integers(0, 9))
        if choice < 3:
            grader["provider"] = draw(st.sampled_from(JUDGES))
        elif choice == 3:
            grader["target"] = "grader-a"  # refused
        elif choice == 4:
            grader["provider"] = 7  # not a name: agentv warns and asks the test's judge
    if kind == "script" and draw(st.integers(0, 5)) == 0:
        grader["target"] = True  # refused
    return grader


NEWEST_ONLY = st.sampled_from(
    [
        {
            "type": "agent-rubric",
            "value": "Reads the workspace and checks the answer",
            "provider": AGENT_JUDGE,
        },
        {"type": "agent-rubric", "value": ["Uses the tool", "Explains"], "provider": AGENT_JUDGE},
        {
            "type": "agent-rubric",
            "prompt": "Check {{ output }} against {{ criteria }}",
            "provider": AGENT_JUDGE,
        },
        {"type": "llm_judge", "value": "x"},
        {"type": "llm-judge", "value": "x"},
        {"type": "llm-grader", "prompt": "Be strict"},
        {"type": "skill-trigger", "skill": "search", "should_trigger": True},
        {"type": "llm-rubric", "value": "Is brief", "provider": "grader-b"},
    ]
)


def _newest_turn(draw: st.DrawFn, turn: dict[str, Any]) -> None:
    """A turn's assertion objects naming a judge: the orchestrator passes them on unparsed, so
    agentv reads a `target` there and not `provider`; and an agent-rubric a turn hands an agent."""
    listed = turn.get("assert")
    if not isinstance(listed, list):
        return
    for grader in listed:
        if isinstance(grader, dict) and grader.get("type") in ("llm-grader", "llm-rubric"):
            choice = draw(st.integers(0, 5))
            if choice == 0:
                grader["provider"] = draw(st.sampled_from(JUDGES))
            elif choice == 1:
                grader["target"] = draw(st.sampled_from(JUDGES))
            elif choice == 2:
                grader["provider"] = draw(st.sampled_from(JUDGES))
                grader["target"] = draw(st.sampled_from(JUDGES))
    if draw(st.integers(0, 3)) == 0:
        listed.append({"type": "agent-rubric", "value": "Checks the reply", "target": AGENT_JUDGE})


@st.composite
def newest_grader_suites(draw: st.DrawFn) -> dict[str, bytes]:
    """generate_v5_graders' files in the commit's format, with its judge selection."""
    return grader_files(_newest_grader_document(draw))


# A test's workspace at the commit: a host `environment` (the test's, else the file's), whose
# workdir agentv makes. Under the golden's folder; a docker one would need docker.
HOST = {"type": "host", "workdir": "./workspace"}


@st.composite
def agent_grader_suites(draw: st.DrawFn) -> dict[str, bytes]:
    """newest_grader_suites' files for a run whose judge is agentv's own agent (`--grader-provider`
    naming a judge of kind `agentv`): most with a workspace, for the whole file or some tests,
    some without, where agentv fails each grader that would ask that judge."""
    document = _newest_grader_document(draw)
    if draw(st.integers(0, 3)):
        _ask_the_run(document)
    where = draw(st.integers(0, 5))
    if where <= 2:
        document["environment"] = dict(HOST)
    elif where <= 4:
        # One workdir: agentv refuses a file whose tests set up two host environments.
        for test in document["tests"]:
            if draw(st.booleans()):
                test["environment"] = dict(HOST)
    return grader_files(document)


def _ask_the_run(document: dict[str, Any]) -> None:
    """Without the judges the tests and their graders name, so that most graders ask the run's."""
    for holder in [*document["tests"], document.get("default_test") or {}]:
        options = holder.get("options")
        if isinstance(options, dict):
            options.pop("provider", None)
    for holder in [document, *document["tests"], document.get("default_test") or {}]:
        if isinstance(holder.get("assert"), list):
            # New objects: a drawn grader may be one of NEWEST_ONLY's, shared by every draw.
            holder["assert"] = [
                {key: value for key, value in grader.items() if key != "provider"}
                if isinstance(grader, dict)
                else grader
                for grader in holder["assert"]
            ]


def _newest_grader_document(draw: st.DrawFn) -> dict[str, Any]:
    """The document newest_grader_suites writes, drawn in its own draw (not a strategy of its
    own, which would change the files the stored goldens were made from)."""
    document = draw(grader_documents())
    _newest_top(draw, document, refusals=11)
    for test in document["tests"]:
        if isinstance(test.get("assert"), list):
            test["assert"] = [draw(_newest_grader(grader)) for grader in test["assert"]]
            if draw(st.integers(0, 3)) == 0:
                test["assert"].append(draw(NEWEST_ONLY))
        _test_options(draw, test, refused=draw(st.integers(0, 3)) == 0)
    for holder in (document, document.get("default_test") or {}):
        if isinstance(holder.get("assert"), list):
            holder["assert"] = [draw(_newest_grader(grader)) for grader in holder["assert"]]
    for test in document["tests"]:
        for turn in test.get("turns") or []:
            _newest_turn(draw, turn)
    if draw(st.integers(0, 4)) == 0:
        document.setdefault("default_test", {}).setdefault("options", {})["provider"] = draw(
            st.sampled_from(JUDGES)
        )
    return document
