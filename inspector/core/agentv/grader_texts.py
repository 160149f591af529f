"""agentv's own prompt texts for its graders, verbatim (graders.py fills them in).

agentv 4.42.4's `graders/llm-grader.ts` and `graders/composite.ts`, and what agentv 5.3.1-next.1
changed in llm-grader.ts: the same prompts told to be skeptical, and `llm-rubric`'s own output
schema.
"""

from __future__ import annotations

DEFAULT_TEMPLATE = """You are an expert grader. Your goal is to grade the answer based on how well it achieves the criteria for the original task.

Use the reference_answer as a gold standard for a high-quality response (if provided). The reference_answer may be a simple text response, or it may contain a sequence of expected agent messages including tool calls. When it contains multiple messages, the last message represents the final expected answer. The answer does not need to match it verbatim, but should capture the key points and follow the same spirit.

Be concise and focused in your evaluation. Provide succinct, specific feedback rather than verbose explanations.

[[ ## criteria ## ]]
{{criteria}}

[[ ## question ## ]]
{{input}}

[[ ## reference_answer ## ]]
{{expected_output}}

[[ ## answer ## ]]
{{output}}"""  # noqa: E501  (agentv's text, line for line)

OUTPUT_SCHEMA = "\n".join(
    [
        "You must respond with a single JSON object matching this schema:",
        "",
        "{",
        '  "score": <number between 0.0 and 1.0>,',
        '  "assertions": [',
        "    {",
        '      "text": "<brief description of what was checked>",',
        '      "passed": <boolean>,',
        '      "evidence": "<concise evidence, 1-2 sentences, optional>"',
        "    }",
        "  ],",
        '  "details": {<optional object with domain-specific structured metrics>}',
        "}",
    ]
)

RUBRIC_SCHEMA = """You are an expert grader. Evaluate the candidate answer against each rubric item.
You must return a valid JSON object matching this schema:
{
  "checks": [
    {
      "id": "string (rubric id)",
      "satisfied": boolean,
      "reasoning": "string (brief explanation)"
    }
  ],
  "overall_reasoning": "string (summary)"
}"""

# agentv 5.3.1-next.1
DEFAULT_TEMPLATE_V5 = DEFAULT_TEMPLATE.replace(
    "\n\nBe concise",
    "\n\nBe skeptical. Award credit only for behavior supported by the answer, "
    "file_changes, tool_calls, or referenced workspace paths. When evaluating repo or file work, "
    "cite concrete paths, diffs, tool calls, or answer excerpts in each assertion's evidence "
    "whenever they are available. Do not infer hidden work from intent or plausible next "
    "steps.\n\nBe concise",
    1,
)
RUBRIC_FORMAT = RUBRIC_SCHEMA.split("\n", 1)[1]
RUBRIC_SCHEMA_V5 = "\n".join(
    [
        "You are an expert grader. Evaluate the candidate answer against each rubric item.",
        "Be skeptical: mark a rubric satisfied only when concrete evidence supports it, and cite "
        "paths, diffs, tool calls, or answer excerpts in reasoning when available.",
        RUBRIC_FORMAT,
    ]
)
SKEPTICAL_RUBRIC_LINES = (
    "Be skeptical: mark a rubric satisfied only when the answer, file changes, tool calls, or "
    "concrete workspace paths support it.",
    "Cite paths, diffs, tool calls, or answer excerpts in reasoning whenever they are available.",
)
PROMPTFOO_SCHEMA = "\n".join(
    [
        "You must respond with a single JSON object matching this schema:",
        "",
        "{",
        '  "reason": "<brief explanation for the grading decision>",',
        '  "pass": <boolean>,',
        '  "score": <number between 0.0 and 1.0>,',
        '  "checks": [',
        "    {",
        '      "id": "<optional rubric id>",',
        '      "text": "<optional description of what was checked>",',
        '      "pass": <boolean>,',
        '      "score": <optional number between 0.0 and 1.0>,',
        '      "reason": "<brief explanation for this check>",',
        '      "evidence": "<optional supporting observation distinct from reason>"',
        "    }",
        "  ]",
        "}",
        "",
        'The "checks" array is optional. Return only JSON.',
    ]
)

# composite.ts DEFAULT_COMPOSITE_AGGREGATOR_PROMPT
AGGREGATOR_PROMPT = """Review the following evaluation results:
{{EVALUATOR_RESULTS_JSON}}

Decide the final score and verdict based on all grader results.
Return a JSON object with: score (0.0-1.0), verdict (pass/fail), and reasoning."""

# llm-grader.ts buildScoreRangeFormatInstructions and buildScoreRangeOutputSchema (agentv 4's
# schema opens with one line; agentv 5's adds the skeptical one), and agentv 5's skeptical lines
# of buildScoreRangePrompt.
SCORE_RANGE_FORMAT = """You must return a valid JSON object matching this schema:
{
  "checks": [
    {
      "id": "string (criterion id)",
      "score": integer (0-10),
      "reasoning": "string (brief explanation for score)"
    }
  ],
  "overall_reasoning": "string (summary, optional)"
}

Important: The "score" must be an integer from 0 to 10 that falls within one of the defined score ranges for that criterion."""  # noqa: E501
SCORE_RANGE_SCHEMA = (
    "You are an expert grader. Score the candidate answer on each criterion.\n" + SCORE_RANGE_FORMAT
)
SCORE_RANGE_SCHEMA_V5 = "\n".join(
    [
        "You are an expert grader. Score the candidate answer on each criterion.",
        "Be skeptical: award credit only for concrete evidence, and cite paths, diffs, tool calls, or "
        "answer excerpts in reasoning when available.",
        SCORE_RANGE_FORMAT,
    ]
)
SKEPTICAL_SCORE_RANGE_LINES = (
    "Be skeptical: award credit only for evidence supported by the answer, file changes, tool "
    "calls, or concrete workspace paths.",
    "Cite paths, diffs, tool calls, or answer excerpts in reasoning whenever they are available.",
)

# agentv 3.8.0's `evaluators/llm-grader.ts` (DEFAULT_EVALUATOR_TEMPLATE, buildOutputSchema,
# buildRubricOutputSchema, buildScoreRangeOutputSchema and the rubric prompts' first lines): the
# judge is an "evaluator", the default template reads the `*_text` variables, and the output
# schema has no `details`.
DEFAULT_TEMPLATE_V3 = """You are an expert evaluator. Your goal is to grade the answer based on how well it achieves the criteria for the original task.

Use the reference_answer as a gold standard for a high-quality response (if provided). The reference_answer may be a simple text response, or it may contain a sequence of expected agent messages including tool calls. When it contains multiple messages, the last message represents the final expected answer. The answer does not need to match it verbatim, but should capture the key points and follow the same spirit.

Be concise and focused in your evaluation. Provide succinct, specific feedback rather than verbose explanations.

[[ ## criteria ## ]]
{{criteria}}

[[ ## question ## ]]
{{input_text}}

[[ ## reference_answer ## ]]
{{expected_output_text}}

[[ ## answer ## ]]
{{output_text}}"""  # noqa: E501  (agentv's text, line for line)
OUTPUT_SCHEMA_V3 = "\n".join(
    [
        "You must respond with a single JSON object matching this schema:",
        "",
        "{",
        '  "score": <number between 0.0 and 1.0>,',
        '  "assertions": [',
        "    {",
        '      "text": "<brief description of what was checked>",',
        '      "passed": <boolean>,',
        '      "evidence": "<concise evidence, 1-2 sentences, optional>"',
        "    }",
        "  ]",
        "}",
    ]
)
RUBRIC_SCHEMA_V3 = RUBRIC_SCHEMA.replace("You are an expert grader.", "You are an expert evaluator.", 1)
SCORE_RANGE_SCHEMA_V3 = (
    "You are an expert evaluator. Score the candidate answer on each criterion.\n" + SCORE_RANGE_FORMAT
)
RUBRIC_OPENING_V3 = (
    "You are an expert evaluator. Evaluate the candidate answer against each rubric item below."
)
SCORE_RANGE_OPENING_V3 = (
    "You are an expert evaluator. Score the candidate answer on each criterion below using the "
    "provided score ranges."
)
