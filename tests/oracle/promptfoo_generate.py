"""Hypothesis strategies for promptfoo configs: prompt files of each kind (text with `---`
sections, JSON, JSONL and YAML chat, markdown), inline text, `- role:` and JSON chat prompts, nunjucks with filters
and control flow, vars of every JSON type (list vars that expand, `file://` text and YAML vars,
vars that are templates), tests inline and from CSV, defaultTest, provider and test prompt
filters, prefixes and suffixes, scenarios, provider request options (Gemini's, Bedrock Converse's
with thinking and Nova 2 reasoning, and every Bedrock InvokeModel family's), the config's `env`
with the Bedrock defaults promptfoo reads there, and llm-rubric, closedqa, factuality (some judged
by Bedrock InvokeModel providers), context-recall and answer-relevance judges. Every config is JSON
(promptfooconfig.json), so both sides read the same document."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from hypothesis import strategies as st

NAMES = ("topic", "name", "q", "style", "items")
WORDS = (
    "alpha",
    "Beta",
    "gamma delta",
    "  spaced  ",
    "line one\nline two",
    "x",
    "émoji ✓",
    'quote " mark',
    "tab\there",
    "trailing\n",
    "",
    "0",
    "true",
)
# Single-quoted arguments: a JSON prompt's text keeps them as they are (a prefix or suffix makes
# promptfoo render that JSON text as a whole, backslash escapes and all).
FILTERS = (
    "",
    " | upper",
    " | lower",
    " | trim",
    " | length",
    " | default('none')",
    " | capitalize",
    " | replace('a', 'A')",
    " | first",
    " | join(', ')",
)
MODELS = (
    "openai:chat:gpt-4o-mini",
    "openai:gpt-4.1",
    "openai:chat:gpt-4o",
    "openai:responses:gpt-4.1-mini",
    "anthropic:messages:claude-3-5-haiku-latest",
    "openai:chat:o4-mini",
    "google:gemini-2.5-flash",
    "google:gemini-3.6-flash",
    "vertex:gemini-2.5-flash",
    "vertex:chat:gemini-3.6-flash",
    "vertex:claude-3-5-haiku@20241022",
    "vertex:llama-3.3-70b-instruct-maas",
    "vertex:chat-bison",
    "bedrock:converse:anthropic.claude-3-5-haiku-20241022-v1:0",
    "bedrock:converse:amazon.nova-lite-v1:0",
    "bedrock:converse:anthropic.claude-3-7-sonnet-20250219-v1:0",
    "bedrock:converse:amazon.nova-2-lite-v1:0",
)
# One model of each Bedrock InvokeModel family promptfoo builds (Titan and Llama 2 through
# inference profiles, the only way promptfoo reaches them), drawn a third of the time.
INVOKE_MODELS = (
    "bedrock:anthropic.claude-3-5-sonnet-20241022-v2:0",
    "bedrock:us.anthropic.claude-3-haiku-20240307-v1:0",
    "bedrock:meta.llama3-8b-instruct-v1:0",
    "bedrock:meta.llama3-1-8b-instruct-v1:0",
    "bedrock:us.meta.llama3-2-11b-instruct-v1:0",
    "bedrock:meta.llama3-3-70b-instruct-v1:0",
    "bedrock:meta.llama4-maverick-17b-instruct-v1:0",
    "bedrock:amazon.nova-micro-v1:0",
    "bedrock:completion:amazon.nova-2-lite-v1:0",
    "bedrock:mistral.mistral-small-2402-v1:0",
    "bedrock:mistral.pixtral-large-2502-v1:0",
    "bedrock:ai21.jamba-1-5-mini-v1:0",
    "bedrock:cohere.command-r-v1:0",
    "bedrock:cohere.command-nightly",
    "bedrock:deepseek.r1-v1:0",
    "bedrock:deepseek.v3-v1:0",
    "bedrock:openai.gpt-oss-20b-1:0",
    "bedrock:qwen.qwen3-32b-v1:0",
    "bedrock:google.gemma-3-4b-it",
    "bedrock:arn:aws:bedrock:us-east-1:111122223333:application-inference-profile/titan",
    "bedrock:arn:aws:bedrock:us-east-1:111122223333:application-inference-profile/llama2",
)
# The newest Claude models, whose requests promptfoo shapes by its table of Claude models, on
# every route; drawn a sixth of the time. On Anthropic and Vertex only models in that table: a
# later Claude missing from it is judged by the host, and the oracle's host is not Anthropic's.
LATER_CLAUDE_MODELS = (
    "anthropic:messages:claude-opus-4-7",
    "anthropic:messages:claude-opus-5",
    "anthropic:messages:claude-fable-5-1",
    "vertex:claude-sonnet-5",
    "vertex:claude-opus-4-8@20260101",
    "bedrock:converse:us.anthropic.claude-opus-5-v1:0",
    "bedrock:converse:anthropic.claude-mythos-5-v1:0",
    "bedrock:anthropic.claude-opus-4-7-v1:0",
    "bedrock:us.anthropic.claude-sonnet-5-v1:0",
    "bedrock:anthropic.claude-haiku-6-v1:0",
)
# Judges on Bedrock InvokeModel providers (llm-rubric, closedqa and factuality); none of them is
# among the candidates' models, so a judge never names a configured Bedrock provider here: whether
# promptfoo can grade with one depends on when that provider's client was made (see
# docs/promptfoo.md), which the written configs check where it is certain.
INVOKE_JUDGES = (
    "bedrock:meta.llama3-2-1b-instruct-v1:0",
    "bedrock:amazon.nova-lite-v1:0",
    "bedrock:mistral.mistral-7b-instruct-v0:2",
    "bedrock:anthropic.claude-3-haiku-20240307-v1:0",
    "bedrock:qwen.qwen3-235b-a22b-2507-v1:0",
    "bedrock:anthropic.claude-opus-5-v1:0",
)
# The config's `env` values promptfoo reads for Bedrock's defaults.
BEDROCK_ENV = {
    "AWS_BEDROCK_MAX_TOKENS": ("77", "12x", ""),
    "AWS_BEDROCK_TEMPERATURE": ("0.3", "1", "warm"),
    "AWS_BEDROCK_TOP_P": ("0.9",),
    "AWS_BEDROCK_STOP": ('["STOP"]', "[]"),
    "AWS_BEDROCK_MAX_GEN_LEN": ("33",),
    "AWS_BEDROCK_PRESENCE_PENALTY": ("0.5",),
    "MISTRAL_MAX_TOKENS": ("44",),
    "MISTRAL_TOP_K": ("5",),
    "COHERE_TEMPERATURE": ("0.6",),
}


def _word() -> st.SearchStrategy[str]:
    return st.sampled_from(WORDS)


@st.composite
def template(draw: Any, names: list[str]) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.integers(0, 5))
        name = draw(st.sampled_from(names))
        if kind <= 1:
            parts.append(draw(st.sampled_from(("Say ", "About ", "\n", "Hello, ", "Note: ", "- "))))
        elif kind <= 3:
            parts.append("{{ " + name + draw(st.sampled_from(FILTERS)) + " }}")
        elif kind == 4:
            parts.append("{% if " + name + " %}yes {{ " + name + " }}{% else %}no{% endif %}")
        else:
            parts.append("{% for x in " + name + " %}[{{ x }}]{% endfor %}")
    text = "".join(parts)
    return "Task: " + text if text.lstrip()[:1] in ("[", "{", "-", '"') or not text.strip() else text


@st.composite
def var_value(draw: Any, names: list[str]) -> Any:
    kind = draw(st.integers(0, 9))
    if kind <= 3:
        return draw(_word())
    if kind == 4:
        return draw(st.integers(-5, 100))
    if kind == 5:
        return draw(st.booleans())
    if kind == 6:
        return draw(st.lists(_word(), min_size=1, max_size=3))
    if kind == 7:
        return {"k": draw(_word())}
    if kind == 8:
        return "Hi {{ " + draw(st.sampled_from(names)) + " }}"
    return draw(st.sampled_from(("file://vars/note.txt", "file://vars/data.yaml")))


@st.composite
def prompt_entries(draw: Any, names: list[str], files: dict[str, str]) -> list[Any]:
    entries: list[Any] = []
    for index in range(draw(st.integers(1, 3))):
        kind = draw(st.integers(0, 8))
        text = draw(template(names))
        if kind == 0:
            entries.append(text)
        elif kind == 1:
            entries.append({"raw": text, "label": f"p{index}"})
        elif kind == 2:
            chat = [{"role": "system", "content": draw(template(names))}, {"role": "user", "content": text}]
            entries.append(json.dumps(chat))
        elif kind == 3:
            files[f"prompts/p{index}.txt"] = "\n" + text + "\n---\n" + draw(template(names)) + "\n"
            entries.append(f"file://prompts/p{index}.txt")
        elif kind == 4:
            chat = [{"role": "user", "content": text}]
            files[f"prompts/p{index}.json"] = json.dumps(chat, indent=2)
            entries.append({"id": f"file://prompts/p{index}.json", "label": f"p{index}"})
        elif kind == 5:
            files[f"prompts/p{index}.md"] = text + "\n"
            entries.append(f"file://prompts/p{index}.md")
        elif kind == 6:
            files[f"prompts/p{index}.yaml"] = (
                f"- role: system\n  content: {json.dumps(text)}\n- role: user\n  content: 'Hello {index}'\n"
            )
            entries.append(f"file://prompts/p{index}.yaml")
        elif kind == 7:
            entries.append(
                "- role: system\n  content: Be brief\n- role: user\n  content: "
                + json.dumps(f"Q{index}")
                + "\n"
            )
        else:
            lines = [
                json.dumps([{"role": "user", "content": text}]),
                json.dumps([{"role": "user", "content": draw(template(names))}]),
            ]
            files[f"prompts/p{index}.jsonl"] = "\n".join(lines) + "\n"
            entries.append(f"file://prompts/p{index}.jsonl")
    return entries


@st.composite
def providers(draw: Any) -> list[Any]:
    chosen = []
    for index in range(draw(st.integers(1, 2))):
        route = draw(st.integers(0, 5))
        models = INVOKE_MODELS if route < 2 else LATER_CLAUDE_MODELS if route == 2 else MODELS
        model = draw(st.sampled_from(models))
        config: dict[str, Any] = {}
        if draw(st.booleans()):
            config["temperature"] = draw(st.sampled_from((0, 0.2, 1, 1.5)))
        if draw(st.booleans()):
            config["max_tokens"] = draw(st.integers(1, 4096))
        if draw(st.booleans()):
            config["seed"] = draw(st.integers(0, 99))
        if draw(st.integers(0, 3)) == 0:
            config["top_p"] = draw(st.sampled_from((0.5, 1)))
        if model.startswith(("google:", "vertex:")):
            # Gemini's own spellings (promptfoo reads neither max_tokens nor top_p for it).
            if draw(st.booleans()):
                config["maxOutputTokens"] = draw(st.integers(1, 4096))
            if draw(st.integers(0, 3)) == 0:
                config["topK"] = draw(st.integers(1, 40))
            if "gemini" in model:
                config.update(draw(gemini_config()))
            if "bison" in model:
                config.update(draw(palm_config()))
        if model.startswith("bedrock:converse:"):
            # Converse's own spellings, read before max_tokens, top_p and stop.
            if draw(st.integers(0, 2)) == 0:
                config["maxTokens"] = draw(st.integers(1, 4096))
            if draw(st.integers(0, 3)) == 0:
                config["topP"] = draw(st.sampled_from((0.25, 1)))
            if draw(st.integers(0, 2)) == 0:
                key = draw(st.sampled_from(("stop", "stopSequences")))
                config[key] = draw(st.lists(st.sampled_from(("END", "\n\n", "x")), max_size=2))
            config.update(draw(converse_reasoning(model)))
            if draw(st.integers(0, 2)) == 0:
                config.update(draw(converse_tools()))
        if model.startswith("bedrock:") and not model.startswith("bedrock:converse:"):
            config.update(draw(invoke_options(model)))
        if model in LATER_CLAUDE_MODELS:
            config.update(draw(claude_thinking(model)))
        if not config and draw(st.booleans()):
            chosen.append(model)
            continue
        entry: dict[str, Any] = {"id": model, "config": config}
        if draw(st.booleans()):
            entry["label"] = f"provider{index}"
        chosen.append(entry)
    return chosen


FUNCTION = {
    "name": "lookup",
    "description": "Finds a word",
    "parameters": {
        "type": "object",
        "additionalProperties": False,
        "properties": {"word": {"type": "string", "default": "x"}, "n": {"type": "integer", "minimum": 1}},
        "required": ["word"],
    },
}


@st.composite
def palm_config(draw: Any) -> dict[str, Any]:
    """The keys PaLM on Vertex sends as its parameters (besides temperature, maxOutputTokens and
    topK): a context, examples, stop sequences, topP, safety settings spelled either way."""
    options: dict[str, Any] = {}
    if draw(st.booleans()):
        options["context"] = draw(st.sampled_from(("Answer in French", "{{ topic }} only", "")))
    if draw(st.integers(0, 2)) == 0:
        options["examples"] = [{"input": {"content": "ping"}, "output": {"content": "pong"}}]
    if draw(st.integers(0, 2)) == 0:
        options["stopSequences"] = draw(st.lists(st.sampled_from(("STOP", "\n")), max_size=2))
    if draw(st.integers(0, 2)) == 0:
        options["topP"] = draw(st.sampled_from((0.1, 1)))
    if draw(st.integers(0, 2)) == 0:
        level = draw(st.sampled_from(("threshold", "probability")))
        options["safetySettings"] = [{"category": "HARM_CATEGORY_DEROGATORY", level: "BLOCK_LOW_AND_ABOVE"}]
    return options


@st.composite
def gemini_config(draw: Any) -> dict[str, Any]:
    """The Gemini config keys promptfoo's google and Vertex providers put in the body, each drawn
    now and then: system instruction, tools in OpenAI's and Gemini's spellings, tool choice and
    tool config, response schema, safety settings, thinking, service tier, passthrough."""
    config: dict[str, Any] = {}
    name = draw(st.sampled_from(NAMES))
    if draw(st.integers(0, 3)) == 0:
        config["systemInstruction"] = draw(
            st.sampled_from(
                (
                    f"Answer about {{{{ {name} }}}}",
                    {"parts": [{"text": f"One {{{{ {name} }}}}"}, {"text": "Two"}]},
                    "Plain instruction",
                )
            )
        )
    if draw(st.integers(0, 3)) == 0:
        config["tools"] = draw(
            st.sampled_from(
                (
                    [{"type": "function", "function": FUNCTION}],
                    [{"function_declarations": [FUNCTION]}, {"google_search": {}}],
                    {"functionDeclarations": [FUNCTION], "codeExecution": {}},
                    [{"googleSearch": {}}],
                )
            )
        )
    choice = draw(st.integers(0, 5))
    if choice == 0:
        config["tool_choice"] = draw(st.sampled_from(("auto", "none", "required")))
    elif choice == 1:
        config["toolConfig"] = {
            "functionCallingConfig": {"mode": draw(st.sampled_from(("any", "NONE", "auto")))}
        }
    elif choice == 2:
        config["tool_config"] = {
            "function_calling_config": {"mode": "any", "allowed_function_names": ["lookup"]},
            "retrieval_config": {"language_code": "en"},
        }
    if draw(st.integers(0, 4)) == 0:
        config["responseSchema"] = {"type": "object", "properties": {"a": {"type": "string"}}}
    if draw(st.integers(0, 4)) == 0:
        config["safetySettings"] = [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}]
    if draw(st.integers(0, 4)) == 0:
        config["generationConfig"] = {"thinkingConfig": {"thinkingLevel": "LOW"}, "candidateCount": 1}
    if draw(st.integers(0, 4)) == 0:
        config["service_tier"] = draw(st.sampled_from(("flex", "SERVICE_TIER_PRIORITY", "standard")))
    if draw(st.integers(0, 5)) == 0:
        config["passthrough"] = {"labels": {"team": "a"}, "tools": [{"urlContext": {}}]}
    return config


@st.composite
def converse_reasoning(draw: Any, model: str) -> dict[str, Any]:
    """Claude's thinking and extra fields, Nova 2's reasoningConfig (Converse)."""
    options: dict[str, Any] = {}
    if "claude-3-7" in model and draw(st.booleans()):
        options["thinking"] = {"type": "enabled", "budget_tokens": draw(st.sampled_from((1024, 2048)))}
        if draw(st.booleans()):
            options["additionalModelRequestFields"] = {"top_k": draw(st.integers(1, 50))}
    if "nova-2" in model and draw(st.booleans()):
        options["reasoningConfig"] = {
            "type": draw(st.sampled_from(("enabled", "disabled"))),
            "maxReasoningEffort": draw(st.sampled_from(("low", "medium", "high"))),
        }
    return options


# Tools in each form convertToolsToConverseFormat reads, with and without what it fills in.
CONVERSE_TOOL_FORMS: tuple[dict[str, Any], ...] = (
    {
        "toolSpec": {
            "name": "find",
            "description": "Finds a page",
            "inputSchema": {"json": {"type": "object"}},
        }
    },
    {"type": "function", "function": {"name": "add", "parameters": {"type": "object", "required": ["a"]}}},
    {"type": "function", "function": {"name": "shout", "description": "Says it loudly"}},
    {"name": "weigh", "description": "Weighs a parcel", "input_schema": {"type": "object", "properties": {}}},
    {"name": "count", "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}}},
    {"name": "rest"},
)
# Each spelling of a tool choice: OpenAI's, Converse's, and what promptfoo reads as `auto`.
CONVERSE_TOOL_CHOICES: tuple[Any, ...] = (
    "auto",
    "any",
    "required",
    "none",
    {"tool": {"name": "find"}},
    {"type": "function", "function": {"name": "add"}},
    {"any": {}},
)


@st.composite
def converse_tools(draw: Any) -> dict[str, Any]:
    """Bedrock Converse `tools` and a tool choice under either of its names."""
    options: dict[str, Any] = {
        "tools": draw(st.lists(st.sampled_from(CONVERSE_TOOL_FORMS), min_size=0, max_size=3, unique_by=str))
    }
    if draw(st.booleans()):
        options[draw(st.sampled_from(("tool_choice", "toolChoice")))] = draw(
            st.sampled_from(CONVERSE_TOOL_CHOICES)
        )
    return options


@st.composite
def claude_thinking(draw: Any, model: str) -> dict[str, Any]:
    """Thinking written where each route reads it (and effort where promptfoo sends it), and the
    sampling the newest Claude models drop."""
    options: dict[str, Any] = {}
    thinking = draw(
        st.sampled_from(
            (
                None,
                {"type": "enabled", "budget_tokens": 3000},
                {"type": "enabled", "budget_tokens": 1500, "display": "omitted"},
                {"type": "disabled"},
                {"type": "adaptive"},
            )
        )
    )
    if thinking is not None:
        options["thinking"] = thinking
    if model.startswith(("anthropic:", "vertex:")) and draw(st.booleans()):
        options["effort"] = draw(st.sampled_from(("low", "high", "xhigh", "max")))
    if model.startswith("bedrock:converse:") and draw(st.booleans()):
        options["additionalModelRequestFields"] = {
            "top_k": 5,
            "output_config": {"effort": draw(st.sampled_from(("high", "max")))},
            "thinking": draw(
                st.sampled_from(({"type": "disabled"}, {"type": "enabled", "budget_tokens": 900}))
            ),
        }
    if draw(st.booleans()):
        options["top_k"] = draw(st.integers(1, 9))
    return options


@st.composite
def invoke_options(draw: Any, model: str) -> dict[str, Any]:
    """The config keys each Bedrock InvokeModel family reads."""
    options: dict[str, Any] = {}
    if model.endswith("/titan"):
        options["inferenceModelType"] = "titan"
        if draw(st.booleans()):
            options["textGenerationConfig"] = {"maxTokenCount": draw(st.integers(1, 500)), "topP": 0.5}
    elif model.endswith("/llama2"):
        options["inferenceModelType"] = draw(st.sampled_from(("llama2", "llama3.1", "llama")))
    if "llama" in model and draw(st.booleans()):
        options["max_gen_len"] = draw(st.integers(1, 512))
    if "nova" in model and draw(st.booleans()):
        options["interfaceConfig"] = {"max_new_tokens": draw(st.integers(1, 300)), "top_p": 0.4}
    if "nova-2" in model and draw(st.booleans()):
        options["reasoningConfig"] = {
            "type": draw(st.sampled_from(("enabled", "disabled"))),
            "maxReasoningEffort": draw(st.sampled_from(("low", "high"))),
        }
    if "claude" in model and draw(st.integers(0, 2)) == 0:
        options["thinking"] = {"type": "enabled", "budget_tokens": draw(st.sampled_from((512, 3000)))}
    if draw(st.integers(0, 2)) == 0:
        options["stop"] = draw(st.lists(st.sampled_from(("END", "x")), max_size=2))
    if draw(st.integers(0, 3)) == 0:
        options["presence_penalty"] = 0.25
    if draw(st.integers(0, 3)) == 0:
        options["reasoning_effort"] = draw(st.sampled_from(("low", "high")))
    if draw(st.integers(0, 3)) == 0:
        options["top_k"] = draw(st.integers(1, 9))
    return options


@st.composite
def tests_of(draw: Any, names: list[str], files: dict[str, str]) -> list[Any]:
    tests: list[Any] = []
    for _ in range(draw(st.integers(1, 3))):
        chosen = draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names)))
        test: dict[str, Any] = {"vars": {name: draw(var_value(names)) for name in chosen}}
        if draw(st.integers(0, 4)) == 0:
            kind = draw(
                st.sampled_from(
                    (
                        "llm-rubric",
                        "model-graded-closedqa",
                        "factuality",
                        "context-recall",
                        "answer-relevance",
                    )
                )
            )
            test["assert"] = [{"type": kind, "value": "Mentions {{ " + draw(st.sampled_from(names)) + " }}"}]
            if kind in ("llm-rubric", "model-graded-closedqa", "factuality") and draw(st.integers(0, 2)) == 0:
                test["assert"][0]["provider"] = draw(st.sampled_from(INVOKE_JUDGES))
        if draw(st.integers(0, 5)) == 0:
            test["options"] = {"prefix": "PRE ", "suffix": draw(st.sampled_from((" END", "\n")))}
        tests.append(test)
    if draw(st.booleans()):
        rows = [[draw(_word()) for _ in names] for _ in range(draw(st.integers(1, 3)))]
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(names)
        writer.writerows(rows)
        files["tests.csv"] = buffer.getvalue()
        tests.append("file://tests.csv")
    return tests


@st.composite
def configs(draw: Any) -> dict[str, str]:
    files: dict[str, str] = {
        "vars/note.txt": "  A note\nwith two lines \n\n",
        "vars/data.yaml": "key: value\nlist: [1, 2]\n",
    }
    names = list(NAMES)
    config: dict[str, Any] = {
        "prompts": draw(prompt_entries(names, files)),
        "providers": draw(providers()),
        "tests": draw(tests_of(names, files)),
    }
    if draw(st.booleans()):
        default = {"vars": {draw(st.sampled_from(names)): draw(var_value(names))}}
        if draw(st.booleans()):
            files["default.json"] = json.dumps(default)
            config["defaultTest"] = "file://default.json"
        else:
            config["defaultTest"] = default
    if draw(st.integers(0, 4)) == 0:
        config["scenarios"] = [
            {
                "config": [{"vars": {"name": draw(_word())}}, {"vars": {"name": draw(_word())}}],
                "tests": [{"vars": {"q": draw(_word())}}],
            }
        ]
    labels = [entry["label"] for entry in config["prompts"] if isinstance(entry, dict)]
    if labels and draw(st.booleans()):
        config["tests"][0] = (
            {**config["tests"][0], "prompts": [labels[0]]}
            if isinstance(config["tests"][0], dict)
            else config["tests"][0]
        )
    if draw(st.integers(0, 3)) == 0:
        chosen = draw(st.lists(st.sampled_from(sorted(BEDROCK_ENV)), unique=True, min_size=1, max_size=4))
        config["env"] = {name: draw(st.sampled_from(BEDROCK_ENV[name])) for name in chosen}
    files["promptfooconfig.json"] = json.dumps(config, indent=2, ensure_ascii=False)
    return files
