"""Typed request and response bodies of the JSON API. Response schemas mirror inspector.core.serialize,
so the OpenAPI document describes exactly what the core produces."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from ninja import Field, Schema
from pydantic import BaseModel

from inspector.core.export import FORMATS, PROVIDERS
from inspector.core.formats import INPUT_FORMATS
from inspector.core.options import PROFILES

# The enums come from the core's own lists, so the API offers exactly what the core knows.
Profile = Literal[PROFILES]  # type: ignore[valid-type]
# agentv's `--grader-provider agentv`: the run's judge is agentv's own agent.
GraderProvider = Literal["agentv"]
InputFormat = Literal[INPUT_FORMATS]  # type: ignore[valid-type]
Provider = Literal[PROVIDERS]  # type: ignore[valid-type]
ExportFormat = Literal[FORMATS]  # type: ignore[valid-type]


class ErrorOut(Schema):
    detail: str
    file: str | None = None
    line: int | None = None
    likely_start_line: int | None = Field(
        None,
        description="Where the mistake likely starts when the "
        "parser noticed it lines later: the open quote of a "
        "string that runs on to `line`.",
    )
    # Field-by-field problems when the request itself does not match the schema (422).
    errors: list[dict[str, Any]] | None = None


# --- query parameters -------------------------------------------------------------------------


GRADER_PROVIDER_HELP = (
    "agentv's `--grader-provider`: `agentv` makes the run's judge agentv's own agent, which the "
    "`agentv-5-next-58f316c` profile shows asked with a system and a user prompt (in a test "
    "with a workspace) wherever a grader names no judge of its own. Absent: the file's judges."
)


class RenderSettingsQuery(Schema):
    """The inspector page's render settings (render_settings.SETTING_NAMES)."""

    profile: Profile | None = Field(
        None,
        description=(
            "Which agentv release's rendering to follow. `agentv-5` is tag v5.3.1-next.1; "
            "`agentv-5-next-58f316c` is agentv's main at commit 58f316ca2, untagged (its "
            "`providers`, `defaults.grader` and `agent-rubric`)."
        ),
    )
    patterns: str | None = Field(
        None,
        description="Guideline file patterns, one per line or comma separated. Absent: take "
        "them from .agentv/config.yaml; present but empty: no guideline files.",
    )
    system_prompt: str | None = Field(None, description="A configured default system prompt.")
    max_tokens: int | None = Field(
        None, description="Context budget in tokens (1 to 10,000,000); messages that do not fit are omitted."
    )
    input_format: InputFormat | None = Field(None, description="Force a loader instead of sniffing.")
    grader_provider: GraderProvider | None = Field(None, description=GRADER_PROVIDER_HELP)
    gambit_context: str | None = Field(
        None,
        description="gambit decks: the run's context input (JSON, or text), sent as the "
        "gambit_context tool result, as `gambit run --context` does.",
    )
    gambit_context_sample: str | None = Field(
        None,
        description="gambit decks: the context input from a file of the deck's samples/ "
        "folder, by name (the case's `gambit.samples` lists them), instead of gambit_context.",
    )
    gambit_message: str | None = Field(
        None, description="gambit decks: the first user message, as `gambit run --message`."
    )
    gambit_conversation: str | None = Field(
        None,
        description="gambit grader decks: the conversation to grade, a JSON array of "
        "{role, content}; one case per graded turn, as `gambit grade` runs the grader.",
    )
    gambit_conversation_sample: str | None = Field(
        None,
        description="gambit grader and scenario decks: the conversation from a JSON file "
        "(an array of messages, or a saved session's {messages}): a sample of the deck by name "
        "(the case's `gambit.conversation_samples` lists them) or a file of the bundle by its "
        "path, instead of gambit_conversation; traced to the file's lines.",
    )


class RenderQuery(RenderSettingsQuery):
    document: str | None = Field(
        None,
        description="The bundle file to read. Default: the only document, or the first one "
        "that holds the case.",
    )


class ExportQuery(RenderQuery):
    provider: Provider | None = Field(None, description="Default: openai-chat.")
    model: str | None = None
    max_output_tokens: int | None = Field(None, description="1 to 1,000,000.")
    temperature: float | None = Field(None, description="0 to 2.")


class PayloadQuery(ExportQuery):
    format: ExportFormat | None = Field(
        None,
        description="json (default): payload, changes, lints and warnings as JSON. curl, "
        "python, typescript: runnable code as text/plain.",
    )
    cache_breakpoints: bool | None = Field(
        None,
        description="provider=anthropic only: cache_control after each prefix the document's "
        "cache map finds shared (at most four), listed in changes.",
    )


# --- rendered cases ---------------------------------------------------------------------------


class DiagnosticOut(Schema):
    message: str
    path: str | None
    line: int | None
    column: int | None
    severity: str


class SpanOut(Schema):
    path: str
    start_line: int
    end_line: int


class OriginOut(Schema):
    kind: str = Field(description="case, guideline, file, marker, default, separator or deck")
    path: str | None
    start_line: int | None
    end_line: int | None
    via: SpanOut | None = Field(
        None,
        description="For text from another file: the lines of the "
        "reference (e.g. a `type: file` block) that pulled it in.",
    )


class GuidelineWhyOut(Schema):
    pattern: str | None = Field(description="The guideline pattern the file's path matched.")
    source: str | None = Field(description="The config file listing that pattern.")
    line: int | None = Field(description="The pattern's line in that file.")


class SegmentOut(Schema):
    text: str
    origin: OriginOut
    guideline: GuidelineWhyOut | None = Field(
        None, description="A guideline segment: why its file is a guideline (as the case's `guidelines`)."
    )
    guideline_span: SpanOut | None = Field(
        None,
        description=(
            "A guideline segment: all the lines of the file the case sends. When the text is those "
            "lines verbatim it comes one segment per line, `origin` naming that line alone."
        ),
    )


class FunctionCallOut(Schema):
    name: str
    arguments: str


class ToolCallOut(Schema):
    id: str
    type: str
    function: FunctionCallOut


class TextPartOut(Schema):
    type: Literal["text"]
    text: str


class ImageUrlOut(Schema):
    url: str | None = Field(
        description=(
            "The image's own address (http or https, or a provider's file URI such as gs://) or a "
            "data URL of its bytes; null when it is known only by a provider's file id."
        )
    )
    detail: str | None = Field(None, description="OpenAI's image detail (low, high, auto).")
    file_id: str | None = Field(None, description="A provider's file id for the image.")


class ImagePartOut(Schema):
    type: Literal["image_url"]
    image_url: ImageUrlOut


class FilePartFileOut(Schema):
    file_data: str | None = Field(None, description="A data URL of the file's bytes.")
    file_url: str | None = Field(None, description="The file's address (OpenAI Responses' name).")
    file_id: str | None = Field(None, description="A provider's file id.")
    filename: str | None = None


class FilePartOut(Schema):
    type: Literal["file"]
    file: FilePartFileOut


ContentPartOut = Annotated[TextPartOut | ImagePartOut | FilePartOut, Field(discriminator="type")]


class MessageOut(Schema):
    role: str
    content: str | list[ContentPartOut] = Field(
        description=(
            "The message's text; when it holds images or files, OpenAI chat content parts instead: "
            "`text`, `image_url` and `file` parts in order."
        )
    )
    name: str | None = None
    tool_calls: list[ToolCallOut] | None = None
    tool_call_id: str | None = None
    span: SpanOut | None
    omitted: str | None = Field(description="Why the message is shown but not sent; null if sent.")
    segments: list[SegmentOut]


class ToolOut(Schema):
    name: str
    description: str | None
    parameters: dict[str, Any] | None
    strict: bool | None


class OutputSchemaOut(Schema):
    name: str
    schema_: dict[str, Any] = Field(alias="schema")
    strict: bool | None


class GraderOut(Schema):
    name: str = Field(
        description=(
            "The grader's name; a composite's members and aggregator are `composite › member`, a "
            "conversation's graders `turn N › grader` and `conversation › grader`."
        )
    )
    messages: list[MessageOut] = Field(
        description=(
            "What the grader sends the judge model; what only the run knows (the candidate's "
            "answer, a composite's member results) is a segment of kind `marker` holding a "
            "placeholder. Empty for a script grader, which asks no model."
        )
    )
    note: str | None = Field(None, description="A script grader: what it runs instead.")
    span: SpanOut | None = Field(None, description="Where the grader is written.")
    script: str | None = Field(None, description="The script a script grader runs, when found.")
    judge: str | None = Field(
        None,
        description=(
            "The provider agentv asks for this grader when the file names it (agentv's main after "
            "5.3.1-next.1: the assertion's `provider`, the test's `options.provider`, or "
            "`defaults.grader`); null: the run's judge."
        ),
    )


class GuidelineOut(Schema):
    path: str = Field(description="A file whose text agentv moves into the system message.")
    pattern: str | None = Field(description="The guideline pattern its path matched.")
    source: str | None = Field(
        description="The config file listing that pattern (null: the render "
        "settings' patterns or agentv's defaults)."
    )
    line: int | None = Field(description="The pattern's line in that file.")


class CaseOut(Schema):
    id: str
    span: SpanOut | None
    skipped: str | None
    metadata: dict[str, Any]
    warnings: list[DiagnosticOut]
    messages: list[MessageOut]
    graders: list[GraderOut] = Field(
        description=(
            "agentv's graders of the case (agentv-4 and agentv-5 profiles), in the order agentv runs "
            "them: LLM graders with their messages, script graders with a note."
        )
    )
    tools: list[ToolOut]
    output_schema: OutputSchemaOut | None
    guidelines: list[GuidelineOut] = Field(
        default_factory=list,
        description=(
            "agentv files: why each guideline file the case sends is one (the pattern and its line)."
        ),
    )


class CaseDetailOut(CaseOut):
    document: str
    url: str | None = Field(description="The case's page, to share with a reviewer.")


# --- bundles ----------------------------------------------------------------------------------


# A plain pydantic model, not a ninja Schema: a Schema validates every instance through a Python
# wrapper (made for ORM objects), and an upload's answer lists a summary per case (14,000 of them
# took 0.5 s). These are always dicts, which pydantic-core validates on its own.
class CaseSummaryOut(BaseModel):
    id: str
    url: str
    message_count: int = Field(description="Messages sent.")
    omitted_count: int
    warning_count: int
    skipped: str | None


class DocumentOut(Schema):
    path: str
    kind: str | None = Field(description="agentv, deck or a conversation format; null if unreadable.")
    profile: str | None = Field(None, description="agentv files: the profile that rendered them.")
    profile_reason: str | None = Field(
        None, description="Why that profile: which schema `auto` recognised, or that it was asked for."
    )
    cases: list[CaseSummaryOut]
    warnings: list[DiagnosticOut]
    error: ErrorOut | None = Field(description="Why the document cannot be rendered at all.")
    conversions: dict[str, str] = Field(
        default_factory=dict,
        description="Converted forms of the file by file name, e.g. a legacy deck in the messages format.",
    )


class FileOut(Schema):
    path: str
    size: int


class BundleOut(Schema):
    id: str
    title: str
    created: datetime
    parent: str | None
    url: str = Field(description="The bundle's page: the share link.")
    files: list[FileOut]
    documents: list[str]


class LeftOutOut(Schema):
    paths: list[str] = Field(description="Files of the upload that were not stored.")
    reason: str = Field(description="Why they were left out.")


class BundleCreatedOut(BundleOut):
    manage_token: str | None = Field(
        description="Deletes the bundle. Shown once; only its hash is "
        "kept. Null when an Idempotency-Key replay found the bundle."
    )
    manage_url: str | None = Field(
        description="The bundle's manage page (holds the token: keep it private). Null with manage_token."
    )
    cases: list[DocumentOut]
    warnings: list[DiagnosticOut] = Field(description="Every warning of every document and case.")
    left_out: LeftOutOut | None = Field(
        None, description="Binary files nothing reads, not stored (null when none was)."
    )


class BundleJsonIn(Schema):
    files: dict[str, str] = Field(description="Relative path -> UTF-8 text.")
    title: str = Field("", max_length=200)


class RenderIn(Schema):
    files: dict[str, str] | None = Field(None, description="Relative path -> UTF-8 text.")
    path: str | None = Field(
        None, description="Which of `files` to render. Default: the only document, or the first."
    )
    content: str | None = Field(None, description="A single file's text (instead of `files`).")
    filename: str | None = Field(None, description="The name of `content`, e.g. eval.yaml.")
    profile: Profile | None = None
    patterns: list[str] | None = Field(
        None, description="Guideline file patterns. Absent: from .agentv/config.yaml; empty: none."
    )
    system_prompt: str | None = None
    max_tokens: int | None = None
    input_format: InputFormat | None = None
    grader_provider: GraderProvider | None = Field(None, description=GRADER_PROVIDER_HELP)
    gambit_context: str | None = Field(None, description="gambit decks: the context input.")
    gambit_context_sample: str | None = Field(
        None, description="gambit decks: the context input from the deck's samples/, by name."
    )
    gambit_message: str | None = Field(None, description="gambit decks: the first user message.")
    gambit_conversation: str | None = Field(
        None, description="gambit grader decks: the conversation to grade (JSON array)."
    )
    gambit_conversation_sample: str | None = Field(
        None,
        description="gambit grader decks: the conversation from a JSON file, by name in the "
        "deck's samples/ or by path in the bundle, instead of gambit_conversation.",
    )


class RenderOut(Schema):
    path: str
    kind: str
    profile: str | None = Field(None, description="agentv files: the profile that rendered them.")
    profile_reason: str | None = Field(
        None, description="Why that profile: which schema `auto` recognised, or that it was asked for."
    )
    documents: list[str] = Field(description="Every renderable file of the posted set.")
    warnings: list[DiagnosticOut]
    cases: list[CaseOut]
    conversions: dict[str, str] = Field(
        default_factory=dict,
        description="Converted forms of the file by file name, e.g. a legacy deck in the messages format.",
    )


class ChangeOut(Schema):
    """Something the exporter did to fit the provider: moved, merged, renamed, mapped."""

    message: str
    message_index: int | None = Field(description="Index into the case's messages, omitted included.")


class LintOut(Schema):
    """Something the provider would reject (error) or silently alter (warning)."""

    message: str
    message_index: int | None
    severity: str


class PayloadOut(Schema):
    id: str
    provider: str
    payload: dict[str, Any] = Field(description="The request body for the provider.")
    changes: list[ChangeOut]
    lints: list[LintOut]
    warnings: list[DiagnosticOut]
