"""An Inspect AI task run by inspect_ai itself with its mockllm model (no network: each output
carries its usage, so mockllm counts no tokens). `python inspect_task.py LOG_DIR FORMAT` writes
one log, `eval` or `json`."""

from __future__ import annotations

import sys

from inspect_ai import Task  # noqa: A004 (inspect_ai's own name)
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import model_graded_qa
from inspect_ai.solver import generate, system_message

CANDIDATE_ANSWER = "Hello there, Ada!"


def answering(text: str):  # noqa: ANN201 (mockllm's callable outputs)
    def outputs(*_args: object) -> ModelOutput:
        output = ModelOutput.from_content(model="mockllm", content=text)
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    return outputs


def greet() -> Task:
    judge = get_model("mockllm/model", custom_outputs=answering("GRADE: C"))
    return Task(
        dataset=[
            Sample(id="ada", input="Say hello to Ada.", target="Greets Ada"),
            Sample(id="bob", input="Say hello to Bob.", target="Greets Bob"),
        ],
        solver=[system_message("You are friendly."), generate()],
        scorer=model_graded_qa(model=judge),
        name="greet",
    )


if __name__ == "__main__":
    log_dir, log_format = sys.argv[1], sys.argv[2]
    inspect_eval(
        greet(),
        model=get_model("mockllm/model", custom_outputs=answering(CANDIDATE_ANSWER)),
        log_dir=log_dir,
        log_format=log_format,
        display="none",
    )
