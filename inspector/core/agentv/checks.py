"""What agentv's graders that ask no judge model do instead, in a sentence for the page, the API
and the CLI `note` (a grader's place would otherwise be silently empty).

Each kind's sentence follows what its grader does in agentv's code (agentv 4.42.4's and 5.3.1-next.1's
`graders/` and `registry/builtin-graders.ts`; agentv 5's `javascript`, `python`, `webhook` and
`similar` are in `graders/promptfoo-assertions.ts`). `similar` does call a model, an embedding
model, not a judge: it sends no messages, so its note names the two texts it embeds. Script graders
(`code-grader`, `script`) have their own note in graders.py, naming the script file.
"""

from __future__ import annotations

from typing import Any

NO_PROMPT = "No judge model is asked, so there is no prompt to show."

# kind -> what it does after the run; `{value}` is the assertion's `value` as written.
CHECKS: dict[str, str] = {
    "contains": "Checks that the answer contains {value}.",
    "contains-any": "Checks that the answer contains at least one of {value}.",
    "contains-all": "Checks that the answer contains each of {value}.",
    "icontains": "Checks that the answer contains {value}, ignoring case.",
    "icontains-any": "Checks that the answer contains at least one of {value}, ignoring case.",
    "icontains-all": "Checks that the answer contains each of {value}, ignoring case.",
    "starts-with": "Checks that the answer starts with {value}.",
    "ends-with": "Checks that the answer ends with {value}.",
    "regex": "Matches the answer against the regular expression {value}.",
    "is-json": "Checks that the answer parses as JSON.",
    "equals": "Checks that the answer equals {value}.",
    "tool-trajectory": "Compares the tools the agent called, from the run's trace, with the expected calls.",
    "field-accuracy": "Compares fields of the answer's JSON with the test's expected output.",
    "latency": "Checks how long the run took against its limit.",
    "cost": "Checks what the run cost against its budget.",
    "token-usage": "Checks the tokens the run used against its limits.",
    "execution-metrics": "Checks the run's metrics (tool calls, tokens, time, cost) against its limits.",
    "skill-trigger": "Checks in the run's trace whether the agent used the skill.",
    "skill-used": "Checks in the run's trace that the agent used the skill.",
    "not-skill-used": "Checks in the run's trace that the agent did not use the skill.",
    "javascript": "Runs the JavaScript {value} inside agentv's own process, with the answer as "
    "`output` and the test's context as `context`; its result is the score.",
    "python": "Runs the Python {value} with `python3 -c`, sending the answer and the test's "
    "context as JSON on its standard input; what it prints is the score.",
    "webhook": "Posts the answer and the test's context as JSON to {value}; its reply is the score.",
    "similar": "Compares the answer with {value} by meaning: agentv asks the embedding model "
    "named in `config.embedding_provider` to embed both texts (no messages, no "
    "judge) and scores their cosine similarity.",
}
# grader-parser.ts: these kinds are skipped without a non-blank string `value`.
NEEDS_VALUE = frozenset(
    {
        "contains",
        "icontains",
        "starts-with",
        "ends-with",
        "regex",
        "javascript",
        "python",
        "webhook",
        "similar",
    }
)


def check_note(kind: str, fields: dict[str, Any]) -> str | None:
    """The sentence for a grader of this kind that asks no judge, or None when agentv skips the
    entry or the kind is not agentv's own."""
    base = kind
    negated = fields.get("negate") is True
    if kind.startswith(("trajectory:", "not-trajectory:")):
        negated = negated or kind.startswith("not-")
        sentence = f"Checks the agent's tool calls in the run's trace ({kind.split(':', 1)[1]})."
    else:
        template = CHECKS.get(base)
        if template is None:
            return None
        value = fields.get("value")
        if base in NEEDS_VALUE and not (isinstance(value, str) and value.strip()):
            return None
        sentence = template.format(value=_shown(value))
    if negated:
        sentence += " With `negate: true` it passes when that check fails."
    return f"{sentence} {NO_PROMPT}"


CUSTOM_SUFFIXES = (".ts", ".js", ".mts", ".mjs")


def custom_script(kind: str, resolve) -> str | None:
    """registry/assertion-discovery.ts: a type that is none of agentv's own runs the file
    `.agentv/assertions/<type>.ts` (or .js, .mts, .mjs) found beside the eval file or above it,
    as a script grader. Its bundle path, or None when the bundle has none."""
    for suffix in CUSTOM_SUFFIXES:
        found = resolve(f".agentv/assertions/{kind}{suffix}")
        if found is not None:
            return found[1]
    return None


def custom_note(kind: str, script: str | None) -> str:
    """An assertion type that is none of agentv's own: a custom assertion, found by name."""
    if script is not None:
        return (
            f"Runs the custom assertion {script} (type `{kind}`) on the answer after the run. "
            f"A script grader sends nothing to a model, so there is no prompt to show."
        )
    return (
        f"`{kind}` is none of agentv's own graders, and the bundle has no custom assertion "
        f"`.agentv/assertions/{kind}.ts` (or .js, .mts, .mjs) beside the eval file or above "
        "it: agentv fails this grader when it runs. It sends nothing to a model."
    )


def _shown(value: Any) -> str:
    if isinstance(value, str):
        if "\n" in value.strip():
            return f"written in `value` ({value.strip().count(chr(10)) + 1} lines)"
        text = value if len(value) <= 200 else value[:200] + "…"
        return f"`{text}`"
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return ", ".join(f"`{item}`" for item in value) or "the listed texts"
    return "the expected value"
