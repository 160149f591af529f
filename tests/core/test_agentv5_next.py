"""The `agentv-5-next-58f316c` profile: agentv's main at 58f316ca2 (untagged), as its
`yaml-parser.ts`, `loaders/grader-parser.ts` and `experiment.ts` read files. The goldens
(tests/oracle/test_agentv5_next_goldens.py) prove it against that commit's own run; these are the
readable examples, each naming what it follows."""

import pytest

from inspector.core.bundle import MemoryBundle
from inspector.core.documents import render_document
from inspector.core.model import InputError
from inspector.core.options import PROFILES, RenderOptions
from inspector.core.promptfoo.detect import claims

PROFILE = "agentv-5-next-58f316c"
HEAD = 'prompts:\n  - "Say {{ x }}"\n'


def render(text: str, profile: str = PROFILE):
    bundle = MemoryBundle({"evals/suite.yaml": text.encode()})
    return render_document(bundle, "evals/suite.yaml", RenderOptions(profile=profile, input_format="agentv"))


def test_the_profile_is_offered():
    assert PROFILE in PROFILES


@pytest.mark.parametrize(
    ("extra", "message", "line"),
    [
        ("target: mock\n", "Top-level 'target' has been removed. Use top-level 'providers' instead.", 3),
        ("targets: [mock]\n", "Top-level 'targets' has been removed. Use 'providers'; map targets[].id", 3),
        (
            "graders:\n  - id: j\n",
            "top-level 'graders' has been removed. Put grader providers in 'providers'",
            4,
        ),
        ("experiment: baseline\n", "top-level 'experiment' has been removed from authored eval YAML.", 3),
        (
            "evaluate_options:\n  repeat:\n    count: 2\n",
            "Experiment repeat must be a positive integer. The repeat object shape has been removed",
            5,
        ),
        ("defaults:\n  target: mock\n", "Invalid defaults.target: defaults.target has been removed.", 4),
        (
            "default_test:\n  provider_output: fixed\n",
            "default_test.provider_output is not supported in authored AgentV YAML.",
            4,
        ),
        ("providers: ['']\n", "Invalid providers[0]: provider reference must be non-empty.", 3),
        ("providers: [mock, mock]\n", "Duplicate provider identity 'mock'.", 3),
    ],
)
def test_what_the_commit_refuses_refuses_the_file_with_its_words(extra, message, line):
    text = HEAD + extra + "tests:\n  - id: t\n    vars: {x: hi}\n    criteria: ok\n"
    with pytest.raises(InputError) as refused:
        render(text)
    assert message in str(refused.value)
    assert refused.value.diagnostic.line == line
    render(text.replace(extra, ""))  # the same file without it reads


def test_provider_output_in_a_test_refuses_the_file():
    text = HEAD + "tests:\n  - id: t\n    vars: {x: hi}\n    provider_output: fixed\n"
    with pytest.raises(InputError, match=r"tests\[0\]\.provider_output is not supported"):
        render(text)


def test_agentv_5_at_the_tag_keeps_reading_what_the_commit_refuses():
    text = (
        HEAD
        + "evaluate_options:\n  repeat:\n    count: 2\ntests:\n  - id: t\n    vars: {x: hi}\n    criteria: ok\n"
    )
    assert [case.id for case in render(text, "agentv-5").cases] == ["t"]


def test_providers_in_promptfoos_forms_are_read():
    for providers in (
        "providers: mock\n",
        "providers:\n  - id: openai:gpt-4o-mini\n    label: mock\n  - grader-a\n",
        "providers:\n  openai:gpt-4o-mini:\n    label: mini\n",
    ):
        document = render(HEAD + providers + "tests:\n  - id: t\n    vars: {x: hi}\n")
        assert [m.content for m in document.cases[0].messages if m.role == "user"] == ["Say hi"]


def judges(document) -> dict[str, list[tuple[str, str | None]]]:
    return {case.id: [(grader.name, grader.judge) for grader in case.graders] for case in document.cases}


def test_the_judge_is_the_assertions_provider_else_the_tests_else_defaults_grader():
    # grader-parser.ts at the commit: assertion `provider` > options.provider (default_test's
    # merged under the test's) > defaults.grader, which apps/cli's run-eval.ts hands the run.
    document = render(
        HEAD
        + "defaults:\n  grader: grader-a\n"
        + "default_test:\n  options:\n    provider: grader-b\n"
        + "tests:\n"
        + "  - id: inherits\n    vars: {x: a}\n    assert:\n"
        + "      - {type: llm-rubric, value: polite}\n"
        + "      - {type: llm-rubric, value: short, provider: judge}\n"
        + "  - id: own\n    vars: {x: b}\n    options: {provider: grader-a}\n"
        + "    assert:\n      - {type: llm-rubric, value: polite}\n"
    )
    assert judges(document) == {
        "inherits": [("llm-rubric", "grader-b"), ("llm-rubric", "judge")],
        "own": [("llm-rubric", "grader-a")],
    }


def test_without_a_named_judge_the_runs_judge_asks():
    document = render(HEAD + "tests:\n  - id: t\n    vars: {x: a}\n    assert: [polite]\n")
    assert judges(document) == {"t": [("llm-rubric", None)]}


@pytest.mark.parametrize(
    ("grader", "reason"),
    [
        (
            "{type: llm-grader, prompt: Be strict}",
            "Unsupported grader 'llm-grader' in 't'. Use 'llm-rubric' for free-form rubric checks or "
            "'agent-rubric' for agentic rubric checks.",
        ),
        ("{type: llm_judge, value: x}", "Unsupported grader 'llm_judge' in 't'. Use 'llm-rubric'"),
        (
            "{type: skill-trigger, skill: search, should_trigger: false}",
            "Authored assertion type 'skill-trigger' has been removed. Replace skill: search with "
            "type: not-skill-used, value: search.",
        ),
        (
            "{type: llm-rubric, value: x, target: grader-a}",
            "Assertion field 'target' has been removed in 't' for evaluator 'llm-rubric'. Use "
            "assertion 'provider' instead.",
        ),
        (
            "{type: script, command: [python3, check.py], target: true}",
            "Script evaluator field 'target' has been removed in 't' for evaluator 'script'.",
        ),
    ],
)
def test_graders_the_commit_refuses_skip_the_test_with_its_words(grader, reason):
    text = HEAD + f"tests:\n  - id: t\n    vars: {{x: a}}\n    assert:\n      - {grader}\n"
    document = render(text)
    assert document.cases[0].skipped is not None and reason in document.cases[0].skipped
    if "llm-grader" in grader:  # agentv 5.3.1-next.1 runs it
        assert render(text, "agentv-5").cases[0].skipped is None


def test_agent_rubric_hands_an_agent_judge_one_prompt_ending_with_the_verdict_file_contract():
    # llm-grader.ts buildDelegatedPrompt and buildAgentVerdictFileInstructions at the commit;
    # the goldens hold the prompts agentv handed an agent judge.
    document = render(
        HEAD
        + "tests:\n  - id: t\n    vars: {x: a}\n    assert:\n"
        + "      - {type: agent-rubric, value: Reads the files, provider: agent-judge}\n"
    )
    [grader] = document.cases[0].graders
    assert (grader.name, grader.judge) == ("agent-rubric", "agent-judge")
    [message] = grader.messages
    assert message.role == "user"
    assert message.content.startswith(
        "You are an expert grader. Investigate the workspace to verify the criteria are met.\n"
    )
    assert "[[ ## criteria ## ]]\nReads the files\n" in message.content
    assert message.content.endswith("AgentV reads the verdict file first.")
    path = next(s for s in message.segments if "verdict file's temporary path" in s.text)
    assert path.origin.kind == "marker"  # made for each run: a named placeholder
    assert grader.note is not None and "delegate mode" in grader.note
    tag = render(
        HEAD + "tests:\n  - id: t\n    vars: {x: a}\n    assert:\n      - {type: agent-rubric, value: x}\n",
        "agentv-5",
    )
    assert "Unsupported promptfoo assertion type 'agent-rubric'" in (tag.cases[0].skipped or "")


AUTO_TESTS = "tests:\n  - id: t\n    vars: {x: a}\n    criteria: ok\n"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (HEAD + "defaults:\n  grader: grader-a\n" + AUTO_TESTS, "top-level `defaults`"),
        (HEAD + "default_test:\n  options:\n    provider: grader-a\n" + AUTO_TESTS, "`options.provider`"),
        (HEAD + AUTO_TESTS + "    assert:\n      - {type: agent-rubric, value: x}\n", "`agent-rubric`"),
        (
            HEAD + AUTO_TESTS + "    assert:\n      - {type: llm-rubric, value: x, provider: j}\n",
            "`provider`",
        ),
        # `providers` with agentv's snake_case keys: not a promptfoo config (promptfoo/detect.py)
        (HEAD + "providers: [mock]\ndefault_test:\n  vars: {x: b}\n" + AUTO_TESTS, "top-level `providers`"),
    ],
)
def test_auto_picks_the_commit_for_what_only_it_accepts(text, reason):
    document = render(text, "auto")
    assert document.profile == PROFILE and reason in document.profile_reason


@pytest.mark.parametrize(
    ("text", "profile"),
    [
        (HEAD + AUTO_TESTS, "agentv-5"),
        (HEAD + "default_test:\n  vars: {x: b}\n" + AUTO_TESTS, "agentv-5"),
        ("tests:\n  - id: t\n    vars: {x: a}\n", "agentv-5"),
        ("tests:\n  - id: t\n    input: hi\n    criteria: ok\n", "agentv-4"),
        ("tests:\n  - id: t\n    input: hi\n    options: {provider: j}\n", "agentv-4"),
        ("evalcases:\n  - id: t\n    input_messages: [{role: user, content: hi}]\n", "spec"),
    ],
)
def test_auto_keeps_its_other_choices(text, profile):
    assert render(text, "auto").profile == profile


def test_provider_output_in_a_default_test_file_refuses_the_file_at_its_line():
    # apps/cli loads the suite (loadTestSuite -> buildEvalSuiteResult) with default_test resolved
    bundle = MemoryBundle(
        {
            "evals/suite.yaml": (HEAD + "default_test: file://defaults.yaml\n" + AUTO_TESTS).encode(),
            "evals/defaults.yaml": b"vars:\n  x: b\nprovider_output: fixed\n",
        }
    )
    with pytest.raises(InputError, match="default_test.provider_output is not supported") as refused:
        render_document(bundle, "evals/suite.yaml", RenderOptions(profile=PROFILE, input_format="agentv"))
    assert (refused.value.diagnostic.path, refused.value.diagnostic.line) == ("evals/defaults.yaml", 3)


@pytest.mark.parametrize(
    ("extra", "judge_line", "form"),
    [
        # assertion provider and options.provider are handed to the grader (builtin-graders.ts):
        # any agent-capable provider, agentv's own kind included, gets the delegate prompt
        ("", "provider: agent-judge", "delegate mode whatever agent it is"),
        ("    options: {provider: agent-judge}\n", "", "delegate mode whatever agent it is"),
        # defaults.grader is the run's judge: of kind `agentv` it gets the built-in agent's two
        # prompts (llm-grader.ts evaluate), which the note names
        ("", "", "asked of the run's judge (agent-judge, from defaults.grader)"),
    ],
)
def test_agent_rubric_says_which_form_its_judge_gets(extra, judge_line, form):
    head = HEAD + ("defaults:\n  grader: agent-judge\n" if not (extra or judge_line) else "")
    grader_line = (
        "{type: agent-rubric, value: Reads the files" + (f", {judge_line}" if judge_line else "") + "}"
    )
    document = render(
        head + "tests:\n  - id: t\n    vars: {x: a}\n" + extra + f"    assert:\n      - {grader_line}\n"
    )
    [grader] = document.cases[0].graders
    assert grader.judge == "agent-judge"
    assert grader.note is not None and form in grader.note
    if "run's judge" in form:
        assert "system and a user prompt" in grader.note and "workspace" in grader.note


CONVERSATION = (
    HEAD
    + "defaults:\n  grader: grader-b\n"
    + "tests:\n  - id: t\n    vars: {x: a}\n    options: {provider: grader-a}\n    mode: conversation\n"
    + "    turns:\n      - input: Hello\n        assert:\n"
)


def test_a_turns_grader_asks_the_judge_its_target_names():
    # buildTurnAssertions hands the assertion on unparsed; llmGraderFactory reads its `target`
    document = render(CONVERSATION + "          - {type: llm-rubric, value: Greets, target: grader-a}\n")
    assert [(g.name, g.judge) for g in document.cases[0].graders] == [("turn 1 › llm-rubric", "grader-a")]


def test_a_turns_grader_does_not_read_provider_and_says_so():
    # nor the test's options.provider: the run's judge (defaults.grader) asks
    document = render(CONVERSATION + "          - {type: llm-rubric, value: Greets, provider: grader-a}\n")
    assert [(g.name, g.judge) for g in document.cases[0].graders] == [("turn 1 › llm-rubric", "grader-b")]
    [warning] = [w for w in document.cases[0].warnings if "provider" in w.message]
    assert "not read" in warning.message and warning.line == 13  # the assertion's line


def test_a_turns_agent_rubric_is_handed_to_the_agent_its_target_names():
    document = render(CONVERSATION + "          - {type: agent-rubric, value: Greets, target: agent-judge}\n")
    [grader] = document.cases[0].graders
    assert (grader.name, grader.judge) == ("turn 1 › agent-rubric", "agent-judge")
    assert grader.messages[0].content.endswith("AgentV reads the verdict file first.")


def test_goal_success_on_a_conversation_reads_the_transcript_as_its_final_output():
    document = render(
        CONVERSATION.replace(
            "    turns:", "    assert:\n      - {type: 'trajectory:goal-success', value: Helps}\n    turns:"
        )
        + "          - Greets\n"
    )
    goal = next(g for g in document.cases[0].graders if "goal-success" in g.name)
    final = goal.messages[-1].content.split("Final output:\n", 1)[1]
    assert final.startswith("user: Say a\n\nuser: Hello\n\nassistant: ")


PROMPTFOO_SHAPED = (
    'prompts:\n  - "Say {{ x }}"\nproviders:\n  - openai:gpt-4o-mini\n'
    "tests:\n  - vars: {x: a}\n    assert:\n      - {type: contains, value: a}\n"
)


def test_a_file_both_read_says_auto_chose_promptfoo_and_how_to_see_agentvs():
    # promptfoo/detect.py claims it; agentv's newest commit reads it too (ADR 0016) and sends
    # its default system prompt (and skips the test: it has no id), so the two differ
    bundle = MemoryBundle({"evals/checks.yaml": PROMPTFOO_SHAPED.encode()})
    chosen = render_document(bundle, "evals/checks.yaml", RenderOptions())
    assert chosen.kind == "promptfoo"
    assert [[m.role for m in case.messages] for case in chosen.cases] == [["user"]]
    [note] = [w for w in chosen.warnings if "agentv's newest commit reads this file too" in w.message]
    assert "choose the input format `agentv`" in note.message and note.line == 1
    other = render_document(bundle, "evals/checks.yaml", RenderOptions(input_format="agentv"))
    assert other.profile == PROFILE and other.cases[0].messages[0].role == "system"
    named = render_document(
        MemoryBundle({"promptfooconfig.yaml": PROMPTFOO_SHAPED.encode()}),
        "promptfooconfig.yaml",
        RenderOptions(),
    )
    assert not any("agentv" in w.message for w in named.warnings)  # its name says what it is
    picked = render_document(bundle, "evals/checks.yaml", RenderOptions(input_format="promptfoo"))
    assert not any("agentv" in w.message for w in picked.warnings)  # the user chose


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("evals/checks.yaml", PROMPTFOO_SHAPED + "defaults:\n  grader: judge\n"),
        (
            "evals/suite.json",
            '{"providers": ["llm"], "prompts": ["{{ q }}"], "defaults": {"grader": "judge"},'
            ' "tests": [{"id": "t", "vars": {"q": "hi"}}]}',
        ),
    ],
)
def test_a_file_with_agentvs_top_level_defaults_is_agentvs_not_promptfoos(path, text):
    # promptfoo's three keys beside agentv's `defaults` (the form agentv's README shows for a judge).
    assert claims(path, text.replace("defaults", "description"))
    assert not claims(path, text)
    document = render_document(MemoryBundle({path: text.encode()}), path, RenderOptions())
    assert document.kind == "agentv" and document.profile == PROFILE
    # promptfoo's three keys are there too: the reason auto gives says how to see promptfoo's reading
    assert "read it as promptfoo" in (document.profile_reason or "")


# ---- the run's judge is agentv's own agent (`grader_provider: agentv`, `--grader-provider agentv`)

HOST = "environment:\n  type: host\n  workdir: ./workspace\n"
OWN_AGENT_TESTS = (
    "tests:\n  - id: t\n    vars: {x: a}\n    criteria: Says a\n    assert:\n"
    "      - Is polite\n"
    "      - {type: agent-rubric, value: Reads the files}\n"
    "      - {type: llm-rubric, value: Is brief, provider: grader-b}\n"
)


def render_with_own_agent(text: str, profile: str = PROFILE):
    bundle = MemoryBundle({"evals/suite.yaml": text.encode()})
    options = RenderOptions(profile=profile, input_format="agentv", grader_provider="agentv")
    return render_document(bundle, "evals/suite.yaml", options)


def test_every_grader_asking_the_runs_judge_gets_the_built_in_agents_system_and_user_prompt():
    # llm-grader.ts evaluate at the commit: the run's judge of kind `agentv` is asked in built-in
    # mode by every LLM grader without a judge of its own (buildAgentSystemPrompt and
    # buildAgentUserPrompt); tests/oracle/test_agentv5_next_agent_goldens.py holds agentv's own.
    document = render_with_own_agent(HEAD + "defaults:\n  grader: grader-a\n" + HOST + OWN_AGENT_TESTS)
    rubric, agent, named = document.cases[0].graders
    assert [(g.name, g.judge) for g in (rubric, agent, named)] == [
        ("llm-rubric", "agentv"),  # --grader-provider replaces defaults.grader
        ("agent-rubric", "agentv"),
        ("llm-rubric", "grader-b"),  # a judge of its own: as without the setting
    ]
    system, user = rubric.messages
    assert system.content.startswith("You are an expert grader with access to the workspace filesystem.\n")
    assert '"checks"' in system.content and system.content.endswith("AgentV reads the verdict file first.")
    assert user.content.startswith("Evaluate the candidate answer by investigating the workspace.\n")
    assert (
        "[[ ## rubrics ## ]]\n- [rubric-1] (REQUIRED): Is polite\n\nFor each rubric, investigate"
        in user.content
    )
    criteria = next(s for s in user.segments if s.text == "Says a")
    assert (criteria.origin.path, criteria.origin.start_line) == ("evals/suite.yaml", 11)
    assert any(s.origin.kind == "marker" and "verdict file" in s.text for s in user.segments)
    assert [m.role for m in agent.messages] == ["system", "user"]
    assert "Investigate the workspace to verify the criteria." in agent.messages[1].content
    assert [m.role for m in named.messages] == ["system", "user"]
    assert not named.messages[0].content.startswith("You are an expert grader with access")


def test_without_a_workspace_the_own_agent_is_not_asked_and_the_note_says_agentvs_failure():
    document = render_with_own_agent(HEAD + OWN_AGENT_TESTS)
    rubric, agent, named = document.cases[0].graders
    for grader in (rubric, agent):
        assert grader.messages == [] and grader.judge == "agentv"
        assert "llm-grader built-in agent mode requires a workspace" in (grader.note or "")
    assert named.messages  # its own judge needs no workspace
    # a conversation's graders never have one (runConversationMode passes no workspace path)
    conversation = render_with_own_agent(
        HEAD
        + HOST
        + "tests:\n  - id: c\n    vars: {x: a}\n    mode: conversation\n    turns:\n"
        + "      - input: Hello\n        assert: [Is polite]\n"
    )
    [turn] = conversation.cases[0].graders
    assert turn.messages == [] and "requires a workspace" in (turn.note or "")


def test_the_test_environment_comes_before_the_files():
    text = (
        HEAD
        + HOST
        + OWN_AGENT_TESTS.replace(
            "    criteria: Says a\n",
            "    criteria: Says a\n    environment: {type: docker, workdir: /w, image: x}\n",
        )
    )
    rubric = render_with_own_agent(text).cases[0].graders[0]
    assert rubric.messages == [] and "requires a workspace" in (rubric.note or "")


def test_the_setting_leaves_other_profiles_as_they_are_and_says_so():
    text = HEAD + HOST + "tests:\n  - id: t\n    vars: {x: a}\n    assert: [Is polite]\n"
    document = render_with_own_agent(text, "agentv-5")
    assert document.cases[0].graders[0].messages[0].role == "system"
    assert document.cases[0].graders[0].judge is None
    assert any("agentv-5-next-58f316c profile only" in w.message for w in document.warnings)


def test_the_setting_is_read_by_the_one_settings_parser():
    from inspector.core.render_settings import SettingsError, parse_render_options

    assert parse_render_options({"grader_provider": "agentv"}).grader_provider == "agentv"
    assert parse_render_options({"grader_provider": ""}).grader_provider is None
    with pytest.raises(SettingsError, match="unknown grader provider 'judge'"):
        parse_render_options({"grader_provider": "judge"})
