"""Diffs in the core and the `manage.py diff` contract: word-level changes, message alignment, the
cause traced through provenance, and exit codes."""

import io
import json

import pytest
from django.core.management import call_command

from inspector.core.diff import message_diffs, word_diff
from inspector.core.model import Message, Origin, OriginKind, Segment
from tests.api.test_review import FILES, GUIDE, SUITE


def message(role, text):
    return Message(role, [Segment(text, Origin(OriginKind.CASE_TEXT))])


def test_word_diff_marks_only_the_changed_words_and_rebuilds_both_texts():
    old, new = "Point out bugs before style.\nQuote it.", "Point out real bugs before tone.\nQuote it."
    ops = word_diff(old, new)
    assert ("+", "real ") in ops or ("+", " real") in ops
    assert "".join(text for op, text in ops if op != "+") == old
    assert "".join(text for op, text in ops if op != "-") == new


def test_an_inserted_message_is_added_not_a_shift_of_every_later_one():
    old = [message("system", "Be brief."), message("user", "Hi")]
    new = [message("system", "Be brief."), message("assistant", "Hello"), message("user", "Hi")]
    assert [d.status for d in message_diffs(old, new)] == ["unchanged", "added", "unchanged"]


def run_diff(*args):
    out, err = io.StringIO(), io.StringIO()
    code = 0
    try:
        call_command("diff", *args, stdout=out, stderr=err)
    except SystemExit as exit_:
        code = exit_.code
    return code, json.loads(out.getvalue()) if out.getvalue().strip() else None, err.getvalue()


def write(root, files):
    for path, data in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)


def test_the_cli_prints_the_summary_changes_with_their_cause_and_ids(tmp_path):
    write(tmp_path / "old", FILES)
    write(
        tmp_path / "new",
        dict(
            FILES,
            **{
                "evals/rules.instructions.md": GUIDE.replace(b"bugs", b"real bugs"),
                "evals/suite.yaml": SUITE.replace(b"  - id: second", b"  - id: third"),
            },
        ),
    )
    code, result, _ = run_diff(
        str(tmp_path / "old/evals/suite.yaml"),
        str(tmp_path / "new/evals/suite.yaml"),
        "--root-old",
        str(tmp_path / "old"),
        "--root-new",
        str(tmp_path / "new"),
    )
    assert code == 0
    assert result["summary"] == {"changed": 1, "added": 1, "removed": 1, "unchanged": 0}
    [changed] = result["changed"]
    assert changed["id"] == "first"
    assert changed["because"] == [{"path": "evals/rules.instructions.md", "lines": [3, 3]}]
    assert ["+", " real"] in changed["messages"][0]["words"]
    assert result["added"] == ["third"] and result["removed"] == ["second"]


def test_the_same_file_compares_unchanged(tmp_path):
    write(tmp_path, FILES)
    path = str(tmp_path / "evals/suite.yaml")
    code, result, _ = run_diff(path, path, "--root-old", str(tmp_path), "--root-new", str(tmp_path))
    assert code == 0 and result["summary"] == {"changed": 0, "added": 0, "removed": 0, "unchanged": 2}


@pytest.mark.parametrize("broken", [b"evalcases: [\n  - id: x\n    input_messages: {", b"description: x\n"])
def test_an_unusable_input_exits_2_with_a_located_message(tmp_path, broken):
    write(tmp_path, FILES)
    (tmp_path / "evals/broken.yaml").write_bytes(broken)
    code, result, err = run_diff(
        str(tmp_path / "evals/suite.yaml"),
        str(tmp_path / "evals/broken.yaml"),
        "--root-old",
        str(tmp_path),
        "--root-new",
        str(tmp_path),
    )
    assert code == 2 and result is None
    assert err.startswith("error: evals/broken.yaml")


def test_a_missing_file_exits_2(tmp_path):
    code, _, err = run_diff(str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml"))
    assert code == 2 and "no such file" in err
