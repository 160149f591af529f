"""What a run kept, in one shape whichever runner made it: per case the messages that were sent
(as the run recorded them), the candidate's answer and the judge requests, with the run file each
came from. Readers (one module per run format) fill it; compare.py sets it against the files."""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol


@dataclass(frozen=True)
class SentMessage:
    role: str
    content: str

    def as_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True)
class RecordedJudge:
    """A judge request the run kept: the grader's name and the messages sent to the judge model."""

    name: str
    messages: list[SentMessage]


@dataclass
class RecordedCase:
    id: str
    # The eval file the case was read from, relative to the project root, when the run says.
    eval_path: str | None = None
    # The eval file the runner copied into the run for this case (agentv's task/EVAL.yaml or
    # test/EVAL.yaml), relative to the run's root: what "the files inside the run" means.
    bundle_eval_path: str | None = None
    # What the model received; None when the run kept no record of it (e.g. a case that failed).
    messages: list[SentMessage] | None = None
    # The run kept these messages without the runner's own default system prompt (agentv's
    # input.md holds the test's input only): the comparison leaves that prompt out too, unless
    # the recording has it.
    without_default_prompt: bool = False
    answer: str | None = None
    judges: list[RecordedJudge] = field(default_factory=list)
    # The raw request bodies the run logged for the candidate's calls (Inspect AI's call.request).
    requests: list[dict[str, Any]] = field(default_factory=list)
    source: str | None = None  # the run file the messages were read from
    error: str | None = None  # what the runner reported for a case that did not complete


@dataclass
class Run:
    runner: str  # agentv, inspect_ai, promptfoo
    runner_version: str | None
    # The profile whose rendering this run is compared with (agentv-4, agentv-5), None for runners
    # whose inputs no eval file of ours renders.
    profile: str | None
    cases: list[RecordedCase]
    # Why runner_version is what it is when the run does not record it.
    version_note: str | None = None
    notes: list[str] = field(default_factory=list)


class RunError(Exception):
    """The path is not a run this tool reads, or the run is unreadable."""


class RunFiles(Protocol):
    """A run's files by posix path relative to the run's root: a folder, a zip or one file."""

    def paths(self) -> list[str]: ...

    def read(self, path: str) -> bytes | None: ...


# A run file past this size is refused: run logs are large, but not this large.
MAX_RUN_FILE_BYTES = 512 * 1024 * 1024


class FolderFiles:
    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def paths(self) -> list[str]:
        return sorted(
            path.relative_to(self.root).as_posix() for path in self.root.rglob("*") if path.is_file()
        )

    def read(self, path: str) -> bytes | None:
        target = (self.root / path).resolve()
        if not target.is_relative_to(self.root) or not target.is_file():
            return None
        if target.stat().st_size > MAX_RUN_FILE_BYTES:
            raise RunError(f"{path}: larger than {MAX_RUN_FILE_BYTES} bytes")
        return target.read_bytes()


class ZipFiles:
    """A zip's members; a zip holding one top folder is read from inside that folder."""

    def __init__(self, data: bytes) -> None:
        try:
            self.archive = zipfile.ZipFile(io.BytesIO(data))
        except zipfile.BadZipFile as error:
            raise RunError(f"not a zip: {error}") from None
        names = [info.filename for info in self.archive.infolist() if not info.is_dir()]
        self.prefix = single_top_folder(names)
        self.names = {name[len(self.prefix) :]: name for name in names}

    def paths(self) -> list[str]:
        return sorted(self.names)

    def read(self, path: str) -> bytes | None:
        name = self.names.get(path)
        if name is None:
            return None
        if self.archive.getinfo(name).file_size > MAX_RUN_FILE_BYTES:
            raise RunError(f"{path}: larger than {MAX_RUN_FILE_BYTES} bytes")
        return self.archive.read(name)


def single_top_folder(paths: list[str]) -> str:
    """ "name/" when every path lies in one folder (a folder uploaded or zipped whole), else ""."""
    tops = {path.split("/", 1)[0] for path in paths}
    return f"{next(iter(tops))}/" if len(tops) == 1 and all("/" in path for path in paths) else ""


class MemoryFiles:
    """Uploaded files by path; an upload holding one folder is read from inside it."""

    def __init__(self, files: dict[str, bytes]) -> None:
        prefix = single_top_folder(list(files))
        self.files = {path[len(prefix) :]: data for path, data in files.items()}

    def paths(self) -> list[str]:
        return sorted(self.files)

    def read(self, path: str) -> bytes | None:
        return self.files.get(path)


class OneFile:
    def __init__(self, name: str, data: bytes) -> None:
        self.name, self.data = name, data

    def paths(self) -> list[str]:
        return [self.name]

    def read(self, path: str) -> bytes | None:
        return self.data if path == self.name else None


def text_of(files: RunFiles, path: str) -> str | None:
    data = files.read(path)
    return None if data is None else data.decode("utf-8", "replace")
