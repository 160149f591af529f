"""promptfoo configs without the oracle: which files `auto` reads as promptfoo configs, where each
stretch of an evaluation's text points, and what is named as not run. (What promptfoo itself sends
is checked in tests/oracle/test_promptfoo_differential.py.)"""

from __future__ import annotations

import json

import pytest

from inspector.core.bundle import MemoryBundle
from inspector.core.formats import detect_format
from inspector.core.model import InputError, OriginKind
from inspector.core.options import RenderOptions
from inspector.core.promptfoo import render_promptfoo_file
from inspector.core.promptfoo.contract import evaluation_contract


def render(files: dict[str, str], config: str = "promptfooconfig.yaml"):
    bundle = MemoryBundle({name: text.encode() for name, text in files.items()})
    return render_promptfoo_file(bundle, config, RenderOptions())


def test_auto_reads_promptfoo_configs_by_name_or_by_their_three_keys() -> None:
    config = "prompts: [hi]\nproviders: [openai:gpt-4.1]\ntests: []\n"
    assert detect_format("evals/promptfooconfig.yaml", "prompts: [hi]\n") == "promptfoo"
    assert detect_format("evals/checks.yaml", config) == "promptfoo"
    assert (
        detect_format("suite.json", json.dumps({"prompts": ["a"], "providers": ["b"], "tests": []}))
        == "promptfoo"
    )
    # agentv 5 files have prompts and tests but no providers.
    assert detect_format("eval.yaml", "prompts: [hi]\ntests:\n  - id: a\n    vars: {}\n") == "agentv"
    # agentv's newest format is promptfoo's, snake_cased: its own keys keep such a file agentv's.
    agentv_head = (
        "name: basic\nproviders:\n  - llm\nprompts:\n  - '{{ input }}'\ntests:\n  - id: a\n"
        "    vars:\n      input: hi\n      expected_output: hello\n"
    )
    assert detect_format("evals/checks.yaml", agentv_head) == "agentv"
    promptfoo_shaped = agentv_head.replace("expected_output", "expected").replace("name: basic\n", "")
    assert detect_format("evals/checks.yaml", promptfoo_shaped) == "promptfoo"
    # A top-level key of agentv's eval file that promptfoo's config has not (`name`, `governance`...)
    assert detect_format("evals/checks.yaml", "name: basic\n" + promptfoo_shaped) == "agentv"
    assert detect_format("evals/checks.yaml", promptfoo_shaped + "governance: {}\n") == "agentv"
    # promptfoo's own top-level keys leave it promptfoo's.
    assert (
        detect_format("evals/checks.yaml", "description: d\ntags: {a: b}\n" + promptfoo_shaped) == "promptfoo"
    )
    # A name agentv's CLI finds in a folder (`suite.yaml`, `eval.yaml`, `*.eval.yaml`) is agentv's.
    for name in ("evals/suite.yaml", "eval.yml", "evals/checks.eval.yaml", "evals/Checks.EVAL.yaml"):
        assert detect_format(name, promptfoo_shaped) == "agentv", name
    as_json = json.dumps({"prompts": ["a"], "providers": ["b"], "default_test": {}, "tests": []})
    assert detect_format("suite.json", as_json) == "agentv"
    as_json = json.dumps({"prompts": ["a"], "providers": ["b"], "tests": [], "name": "n"})
    assert detect_format("suite.json", as_json) == "agentv"


def test_text_points_at_the_prompt_file_line_and_the_csv_row() -> None:
    document = render(
        {
            "promptfooconfig.yaml": "prompts: [file://p.txt]\nproviders: [openai:gpt-4.1]\n"
            "tests: file://rows.csv\n",
            "p.txt": "\nIntro line\nAsk about {{ topic }} now\n",
            "rows.csv": 'topic\nrain\n"two\nlines"\nsnow\n',
        }
    )
    assert [case.id for case in document.cases] == [
        "test 0 · prompt 0 · openai:gpt-4.1",
        "test 1 · prompt 0 · openai:gpt-4.1",
        "test 2 · prompt 0 · openai:gpt-4.1",
    ]
    segments = document.cases[2].messages[0].segments
    assert "".join(segment.text for segment in segments) == "Intro line\nAsk about snow now"
    by_text = {segment.text: segment.origin for segment in segments}
    assert (
        by_text["Intro line\nAsk about "].path,
        by_text["Intro line\nAsk about "].start_line,
        by_text["Intro line\nAsk about "].kind,
    ) == ("p.txt", 2, OriginKind.FILE)
    assert by_text["Intro line\nAsk about "].via.path == "promptfooconfig.yaml"
    assert (by_text["snow"].path, by_text["snow"].start_line) == ("rows.csv", 5)


def test_the_contract_carries_promptfoos_indices_payload_and_judges() -> None:
    document = render(
        {
            "promptfooconfig.yaml": """\
prompts: ["Say {{ word }}"]
providers:
  - id: openai:chat:gpt-4o-mini
    label: mini
    config: {temperature: 0.5}
tests:
  - vars: {word: [hi, bye]}
    assert: [{type: llm-rubric, value: "says {{ word }}"}]
"""
        }
    )
    contract = evaluation_contract(document.cases[1])
    assert contract["promptfoo"] == {
        "test_idx": 1,
        "prompt_idx": 0,
        "provider": "mini",
        "prompt_label": "Say {{ word }}",
        "description": None,
    }
    assert contract["payload"] == {
        "model": "gpt-4o-mini",
        "max_tokens": 1024,
        "temperature": 0.5,
        "messages": [{"role": "user", "content": "Say bye"}],
    }
    [judge] = contract["graders"]
    assert judge["name"] == "llm-rubric"
    assert judge["payload"]["model"] == "gpt-5.6-sol"
    assert judge["payload"]["messages"][1]["content"] == (
        "<Output>\n⟨the candidate's answer⟩\n</Output>\n<Rubric>\nsays bye\n</Rubric>"
    )


def test_what_is_not_run_is_named_where_it_is_met() -> None:
    document = render(
        {
            "promptfooconfig.yaml": """\
prompts:
  - file://prompt.py:make
  - "exec: ./make-prompt.sh"
  - "Plain {{ x }}"
providers:
  - openai:gpt-4.1
  - id: file://provider.py
tests:
  - vars: {x: 1}
  - huggingface://datasets/some/set
"""
        }
    )
    skipped = {case.id: case.skipped for case in document.cases}
    assert "JavaScript or Python" in skipped["test 0 · prompt 0 · openai:gpt-4.1"]
    assert "runs a program" in skipped["test 0 · prompt 1 · openai:gpt-4.1"]
    assert skipped["test 0 · prompt 2 · openai:gpt-4.1"] is None
    assert "not one whose request the inspector builds" in skipped["test 0 · prompt 5 · file://provider.py"]
    assert any("Hugging Face" in warning.message for warning in document.warnings)


def test_a_gemini_request_the_inspector_does_not_build_is_named() -> None:
    document = render(
        {
            "promptfooconfig.yaml": """\
prompts:
  - "Plain {{ x }}"
  - '[{"role": "tool", "content": "{{ x }}"}]'
providers:
  - google:gemini-2.5-flash
  - id: google:gemini-2.5-pro
    config: {mcp: {enabled: true}}
  - google:gemini-2.5-flash-preview-tts
tests:
  - vars: {x: 1}
"""
        }
    )
    skipped = {case.id: case.skipped for case in document.cases}
    assert skipped["test 0 · prompt 0 · google:gemini-2.5-flash"] is None
    assert "role 'tool'" in skipped["test 0 · prompt 1 · google:gemini-2.5-flash"]
    assert "with mcp in its config" in skipped["test 0 · prompt 2 · google:gemini-2.5-pro"]
    assert "speech model" in skipped["test 0 · prompt 4 · google:gemini-2.5-flash-preview-tts"]


def test_converse_tools_promptfoo_cannot_convert_are_named_on_the_evaluation() -> None:
    document = render(
        {
            "promptfooconfig.yaml": """\
prompts: ["Hi"]
providers:
  - id: bedrock:converse:amazon.nova-lite-v1:0
    label: nameless
    config: {tools: [{description: has no name}]}
  - id: bedrock:converse:amazon.nova-lite-v1:0
    label: code
    config: {tools: "file://tools.py:make_tools"}
  - id: bedrock:converse:amazon.nova-lite-v1:0
    label: fine
    config: {tools: [{name: ok}], toolChoice: required}
tests:
  - vars: {}
"""
        }
    )
    skipped = {case.metadata["promptfoo"]["provider"]: case.skipped for case in document.cases}
    assert "tool (no name)" in skipped["nameless"]
    assert "made by running it" in skipped["code"]
    assert skipped["fine"] is None
    (fine,) = [case for case in document.cases if case.metadata["promptfoo"]["provider"] == "fine"]
    assert evaluation_contract(fine)["payload"]["toolConfig"] == {
        "tools": [{"toolSpec": {"name": "ok", "inputSchema": {"json": {}}}}],
        "toolChoice": {"any": {}},
    }


def test_the_render_command_prints_the_promptfoo_contract(tmp_path, monkeypatch) -> None:
    import io

    from inspector.cli import commands, console

    monkeypatch.setenv("RENDER_IN_PROCESS", "1")
    (tmp_path / "promptfooconfig.yaml").write_text(
        "prompts: ['Hi {{ who }}']\nproviders: [anthropic:messages:claude-3-5-haiku-latest]\n"
        "tests:\n  - vars: {who: Ann}\n    assert: [{type: factuality, value: Hi Ann}]\n"
    )
    out, err = io.StringIO(), io.StringIO()
    code = commands.main(
        "render", [str(tmp_path / "promptfooconfig.yaml"), "--root", str(tmp_path)], console.Output(out, err)
    )
    assert code == 0, err.getvalue()
    [evaluation] = json.loads(out.getvalue())
    assert evaluation["promptfoo"] == {
        "test_idx": 0,
        "prompt_idx": 0,
        "provider": "anthropic:claude-3-5-haiku-latest",
        "prompt_label": "Hi {{ who }}",
        "description": None,
    }
    assert evaluation["payload"] == {
        "model": "claude-3-5-haiku-latest",
        "max_tokens": 1024,
        "stream": False,
        "temperature": 0,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi Ann"}]}],
    }
    assert [grader["name"] for grader in evaluation["graders"]] == ["factuality"]
    assert "⟨the candidate's answer⟩" in json.dumps(evaluation["graders"], ensure_ascii=False)


def test_a_judge_the_inspector_does_not_build_is_named_not_replaced_by_the_default() -> None:
    document = render(
        {
            "promptfooconfig.yaml": """\
prompts: ["Say {{ x }}"]
providers: [openai:chat:gpt-4o-mini]
tests:
  - vars: {x: 1}
    assert:
      - type: llm-rubric
        value: says 1
        provider: vertex:video:veo-3
      - type: factuality
        value: "1"
        provider:
          id: bedrock:converse:amazon.nova-lite-v1:0
          config: {guardrailIdentifier: checks}
      - type: llm-rubric
        value: says one
"""
        }
    )
    (case,) = document.cases
    assert [grader.name for grader in case.graders] == ["llm-rubric"]
    named = [warning.message for warning in case.warnings if "judge is not rendered" in warning.message]
    assert len(named) == 2
    assert "'vertex:video:veo-3' is not one" in named[0]
    assert "Bedrock Converse request with guardrailIdentifier" in named[1]


def test_a_bedrock_converse_evaluation_is_the_converse_body_promptfoo_sends() -> None:
    # The body promptfoo 0.123.1 sent for this config (tests/oracle/test_promptfoo_differential.py
    # compares every such body with the real one).
    document = render(
        {
            "promptfooconfig.yaml": """\
prompts:
  - |
    System: You are {{ persona }}.
    user: {{ question }}
      indented continuation
providers:
  - id: bedrock:converse:amazon.nova-lite-v1:0
    config: {max_tokens: 300, top_p: 0.9, stop: [END]}
tests:
  - vars: {persona: a pirate, question: Where?}
"""
        }
    )
    (case,) = document.cases
    assert evaluation_contract(case)["payload"] == {
        "messages": [{"role": "user", "content": [{"text": "Where?\n  indented continuation\n"}]}],
        "system": [{"text": "You are a pirate."}],
        "inferenceConfig": {"maxTokens": 300, "topP": 0.9, "stopSequences": ["END"]},
    }


def test_palm_on_vertex_is_the_predict_body_promptfoo_sends_read_as_openai_chat() -> None:
    # The body promptfoo 0.123.1 sent for this config (the differential's PaLM config compares
    # such bodies with the real ones): the context is not rendered, the prompt's config not read,
    # a safety setting's probability stands for its threshold.
    document = render(
        {
            "promptfooconfig.yaml": """\
prompts:
  - raw: "Describe {{ animal }}"
    label: described
    config: {temperature: 0.9}
providers:
  - id: vertex:chat-bison
    config:
      context: "Talk about {{ animal }}"
      temperature: 0.2
      maxOutputTokens: 40
      safetySettings: [{category: HARM_CATEGORY_TOXICITY, probability: LOW}]
tests:
  - vars: {animal: a badger}
"""
        }
    )
    (case,) = document.cases
    assert evaluation_contract(case)["payload"] == {
        "instances": [{"messages": [{"author": "user", "content": "Describe a badger"}]}],
        "parameters": {
            "context": "Talk about {{ animal }}",
            "safetySettings": [{"category": "HARM_CATEGORY_TOXICITY", "threshold": "LOW"}],
            "temperature": 0.2,
            "maxOutputTokens": 40,
        },
    }
    assert [
        (str(message.role), "".join(part.text for part in message.segments)) for message in case.messages
    ] == [
        ("system", "Talk about {{ animal }}"),
        ("user", "Describe a badger"),
    ]


def test_the_newest_claude_models_are_sent_as_promptfoos_table_of_claude_models_says() -> None:
    # Bodies promptfoo 0.123.1 sent for these (the differential configs compare such bodies with
    # the real ones): Opus 4.7 drops its sampling and its budget becomes adaptive thinking; Opus 5
    # thinks unasked (max_tokens 2048) and leaves `disabled` out at effort max; Fable 5 cannot
    # turn thinking off; an older Claude keeps a budget, clamps top_p and raises max_tokens above it.
    document = render(
        {
            "promptfooconfig.yaml": """\
prompts: ["Hi {{ q }}"]
providers:
  - id: anthropic:messages:claude-opus-4-7
    config: {temperature: 0.4, top_p: 0.5, top_k: 3, thinking: {type: enabled, budget_tokens: 3000}}
  - id: anthropic:messages:claude-opus-5
    config: {thinking: {type: disabled}, effort: max}
  - id: bedrock:anthropic.claude-fable-5-v1:0
    config: {thinking: {type: disabled}, temperature: 0.2}
  - id: bedrock:converse:anthropic.claude-haiku-6-v1:0
    config: {temperature: 0.2, maxTokens: 50}
  - id: vertex:claude-sonnet-5
    config: {temperature: 0.2, effort: low}
  - id: anthropic:messages:claude-sonnet-4-5
    config: {top_p: 0.5, temperature: 1, max_tokens: 900, thinking: {type: enabled, budget_tokens: 2000}}
tests:
  - vars: {q: there}
"""
        }
    )
    payloads = [evaluation_contract(case)["payload"] for case in document.cases]
    messages = [{"role": "user", "content": [{"type": "text", "text": "Hi there"}]}]
    assert payloads == [
        {
            "model": "claude-opus-4-7",
            "max_tokens": 2048,
            "messages": messages,
            "stream": False,
            "thinking": {"type": "adaptive"},
        },
        {
            "model": "claude-opus-5",
            "max_tokens": 2048,
            "messages": messages,
            "stream": False,
            "output_config": {"effort": "max"},
        },
        {"messages": messages, "anthropic_version": "bedrock-2023-05-31", "max_tokens": 1024},
        {
            "messages": [{"role": "user", "content": [{"text": "Hi there"}]}],
            "inferenceConfig": {"maxTokens": 50},
        },
        {
            "anthropic_version": "vertex-2023-10-16",
            "stream": False,
            "max_tokens": 2048,
            "output_config": {"effort": "low"},
            "messages": messages,
        },
        {
            "model": "claude-sonnet-4-5",
            "max_tokens": 3024,
            "messages": messages,
            "stream": False,
            "top_p": 0.95,
            "thinking": {"type": "enabled", "budget_tokens": 2000},
        },
    ]


def test_a_later_claude_missing_from_promptfoos_table_keeps_its_sampling_on_another_host() -> None:
    # promptfoo guesses that a Claude of generation 5 or later drops its sampling only on
    # Anthropic's and Vertex's own hosts.
    document = render(
        {
            "promptfooconfig.yaml": """\
prompts: ["Hi"]
providers:
  - id: anthropic:messages:claude-haiku-6
    config: {temperature: 0.3}
  - id: anthropic:messages:claude-haiku-6
    config: {temperature: 0.3, apiBaseUrl: "https://gateway.example.com/v1"}
  - id: vertex:claude-haiku-6
    config: {temperature: 0.3, apiHost: "proxy.example.com"}
tests: [{}]
"""
        }
    )
    temperatures = [evaluation_contract(case)["payload"].get("temperature") for case in document.cases]
    assert temperatures == [None, 0.3, 0.3]


def test_a_judges_text_points_at_the_assertion_the_vars_and_the_prompt_it_quotes() -> None:
    document = render(
        {
            "promptfooconfig.yaml": "prompts: [file://p.txt]\nproviders: [openai:gpt-4.1]\n"
            "defaultTest:\n  assert:\n    - type: llm-rubric\n      value: Says {{ topic }} kindly\n"
            "    - type: model-graded-closedqa\n      value: Mentions the weather\n"
            "tests: file://rows.csv\n",
            "p.txt": "Tell me about {{ topic }} today\n",
            "rows.csv": "topic\nthe rain\n",
        }
    )
    rubric, closed_qa = document.cases[0].graders
    # Written in the config's defaultTest, not in the CSV the test comes from.
    assert (rubric.span.path, rubric.span.start_line) == ("promptfooconfig.yaml", 5)
    assert (closed_qa.span.path, closed_qa.span.start_line) == ("promptfooconfig.yaml", 7)
    assert rubric.judge == "gpt-5.6-sol"

    def origins(grader):
        return {
            segment.text: (segment.origin.kind, segment.origin.path, segment.origin.start_line)
            for message in grader.messages
            for segment in message.segments
        }

    rubric_origins = origins(rubric)
    assert rubric_origins["Says the rain kindly"] == (OriginKind.CASE_TEXT, "promptfooconfig.yaml", 5)
    assert rubric_origins["⟨the candidate's answer⟩"] == (OriginKind.MARKER, None, None)
    template = [text for text, where in rubric_origins.items() if where[0] is OriginKind.DEFAULT_PROMPT]
    assert any("You are grading output according to a user-specified rubric" in text for text in template)
    # Closed QA quotes the candidate's prompt: its pieces keep the prompt file's and the CSV's lines.
    closed_origins = origins(closed_qa)
    assert closed_origins["Tell me about "] == (OriginKind.FILE, "p.txt", 1)
    assert closed_origins["the rain"] == (OriginKind.CASE_TEXT, "rows.csv", 2)
    assert closed_origins["Mentions the weather"] == (OriginKind.CASE_TEXT, "promptfooconfig.yaml", 7)
    every_text = "".join(segment.text for message in closed_qa.messages for segment in message.segments)
    assert "Tell me about the rain today" in every_text


def test_an_echo_evaluation_has_no_payload_and_its_judge_is_given_the_prompt() -> None:
    document = render(
        {
            "promptfooconfig.yaml": """\
prompts: ["Reply: {{ reply }}"]
providers: [{id: echo, label: canned}]
tests:
  - vars: {reply: We open at nine}
    assert: [{type: llm-rubric, value: gives a time}]
"""
        }
    )
    (case,) = document.cases
    contract = evaluation_contract(case)
    assert contract["payload"] is None
    assert any("echo provider sends no request" in warning.message for warning in case.warnings)
    (grader,) = contract["graders"]
    judged = json.dumps(grader["payload"], ensure_ascii=False)
    assert "Reply: We open at nine" in judged
    assert "⟨the candidate's answer⟩" not in judged


def test_a_gemini_system_instruction_and_tools_are_built_as_promptfoo_builds_them() -> None:
    document = render(
        {
            "promptfooconfig.yaml": """\
prompts: ['[{"role": "system", "content": "From the prompt"}, {"role": "user", "content": "{{ q }}"}]']
providers:
  - id: google:gemini-2.5-pro
    config:
      systemInstruction: "About {{ q }}"
      tools: [{type: function, function: {name: f, parameters: {type: object, additionalProperties: false}}}]
      tool_choice: required
  - id: vertex:gemini-2.5-pro
    config: {systemInstruction: "About {{ q }}", service_tier: flex}
tests: [{vars: {q: owls}}]
"""
        }
    )
    studio, vertex = (evaluation_contract(case)["payload"] for case in document.cases)
    assert studio["system_instruction"] == {"parts": [{"text": "About owls"}, {"text": "From the prompt"}]}
    assert studio["tools"] == [{"functionDeclarations": [{"name": "f", "parameters": {"type": "OBJECT"}}]}]
    assert studio["toolConfig"] == {"functionCallingConfig": {"mode": "ANY"}}
    assert vertex["systemInstruction"] == studio["system_instruction"]
    assert vertex["serviceTier"] == "SERVICE_TIER_FLEX"


def test_a_messages_object_prompt_is_sent_to_openai_as_promptfoo_sends_it_with_a_warning() -> None:
    document = render(
        {
            "promptfooconfig.yaml": "prompts: [file://p.yaml]\nproviders: [openai:chat:gpt-4o-mini]\ntests: [{}]\n",
            "p.yaml": "messages:\n  - role: user\n    content: Hi\n",
        }
    )
    (case,) = document.cases
    assert evaluation_contract(case)["payload"]["messages"] == {
        "messages": [{"role": "user", "content": "Hi"}]
    }
    assert [message.role for message in case.messages] == ["user"]
    assert any("OpenAI refuses the request" in warning.message for warning in case.warnings)


def test_a_glob_whose_matching_would_run_away_is_refused_by_name_not_matched_for_minutes() -> None:
    stars = "*a" * 8 + "b.txt"
    files = {
        "promptfooconfig.yaml": f"prompts: [file://{stars}]\nproviders: [openai:gpt-4.1]\ntests: [{{}}]\n",
        "a" * 60 + ".txt": "hello",
    }
    with pytest.raises(InputError, match="more than 3 `\\*` in one name") as refused:
        render(files)
    assert (refused.value.diagnostic.path, refused.value.diagnostic.line) == ("promptfooconfig.yaml", 1)


def test_a_bedrock_invokemodel_evaluation_is_its_familys_body_and_converts_by_its_messages() -> None:
    # Bodies promptfoo 0.123.1 sent for this config (the differential test compares every family).
    document = render(
        {
            "promptfooconfig.yaml": """\
env: {AWS_BEDROCK_MAX_TOKENS: "77 tokens"}
prompts: ["system: Be brief.\\nuser: Hi {{ name }}"]
providers:
  - bedrock:meta.llama3-8b-instruct-v1:0
  - id: bedrock:completion:anthropic.claude-3-haiku-20240307-v1:0
    config: {thinking: {type: enabled, budget_tokens: 2000}}
  - bedrock:amazon.titan-text-express-v1
tests:
  - vars: {name: Ada}
"""
        }
    )
    llama, claude, titan = document.cases
    assert evaluation_contract(llama)["payload"] == {
        # Llama's prompt is promptfoo's chat messages: role lines are one user message's text.
        "prompt": "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nsystem: Be brief.\nuser: Hi Ada"
        "<|eot_id|><|start_header_id|>assistant<|end_header_id|>",
        "temperature": 0,
        "top_p": 1,
        "max_gen_len": 1024,
    }
    assert evaluation_contract(claude)["payload"] == {
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi Ada"}]}],
        "anthropic_version": "bedrock-2023-05-31",
        "max_tokens": 3024,
        "temperature": 0,
        "thinking": {"type": "enabled", "budget_tokens": 2000},
        "system": [{"type": "text", "text": "Be brief."}],
    }
    # The messages are the neutral case's, so --to converts them as for every input.
    from inspector.core.export import export_case

    converted = export_case(llama, "openai-chat").payload
    assert [message["content"] for message in converted["messages"]] == ["system: Be brief.\nuser: Hi Ada"]
    claude_as_chat = export_case(claude, "openai-chat").payload["messages"]
    assert [(message["role"], json.dumps(message["content"])) for message in claude_as_chat] == [
        ("system", json.dumps([{"type": "text", "text": "Be brief."}])),
        ("user", json.dumps([{"type": "text", "text": "Hi Ada"}])),
    ]
    assert titan.skipped and "amazon.titan-text-express-v1" in titan.skipped


def test_sampling_promptfoo_sends_to_claude_is_named_where_the_api_types_no_longer_have_it() -> None:
    document = render(
        {
            "promptfooconfig.yaml": "prompts: [hi]\nproviders:\n  - anthropic:messages:claude-sonnet-4-5\n"
            "  - anthropic:messages:claude-sonnet-5\ntests: [{}]\n",
        }
    )
    older, newer = document.cases
    assert any("sends temperature to claude-sonnet-4-5" in item.message for item in older.warnings)
    assert not any("sampling fields" in item.message for item in newer.warnings)


def test_a_judge_whose_request_cannot_be_built_is_named_at_its_assertion_and_the_evaluation_renders() -> None:
    document = render(
        {
            "promptfooconfig.yaml": "prompts: [hi]\nproviders: [openai:gpt-4.1]\ntests:\n  - assert:\n"
            "      - type: llm-rubric\n        value: ok\n        provider:\n"
            "          id: bedrock:converse:amazon.nova-2-lite-v1:0\n          config: {tools: 5}\n",
        }
    )
    (case,) = document.cases
    assert not case.skipped and case.messages
    assert case.graders == []
    problems = [(item.message, item.path, item.line) for item in case.warnings]
    assert any(
        message.startswith(
            "the `llm-rubric` assertion's judge is not rendered: promptfoo fails Bedrock Converse"
        )
        and (path, line) == ("promptfooconfig.yaml", 5)
        for message, path, line in problems
    ), problems
