import os

import pytest

from inspector.core.bundle import (
    DirectoryBundle,
    MemoryBundle,
    decode,
    glob_paths,
    join,
    normalize,
    parent_folders,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("evals/a.yaml", "evals/a.yaml"),
        ("/evals/a.yaml", "evals/a.yaml"),
        ("./evals/../evals/a.yaml", "evals/a.yaml"),
        ("evals\\a.yaml", "evals/a.yaml"),
        ("../etc/passwd", None),
        ("evals/../../etc/passwd", None),
        ("", ""),
    ],
)
def test_normalize_keeps_paths_inside_the_root(raw, expected):
    assert normalize(raw) == expected


def test_join_resolves_relative_references_and_refuses_escapes():
    assert join("docs/evals", "../prompts/x.md") == "docs/prompts/x.md"
    assert join("docs", "../../etc/passwd") is None
    assert join("", "a.md") == "a.md"


def test_parent_folders_run_from_nearest_to_root():
    assert parent_folders("a/b/c.yaml") == ["a/b", "a", ""]
    assert parent_folders("c.yaml") == [""]


def test_decode_turns_crlf_into_lf_and_reports_invalid_utf8():
    assert decode(b"a\r\nb").text == "a\nb"
    assert decode(b"a\r\nb").problem is None
    broken = decode(b"ok \xff\xfe")
    assert "not valid UTF-8" in broken.problem
    assert "\ufffd" in broken.text
    assert "binary" in decode(b"\x00\x01\x02").problem


def test_memory_bundle_reads_only_its_own_files():
    bundle = MemoryBundle({"evals/a.yaml": b"x", "/b.md": b"y"})
    assert bundle.read("evals/a.yaml") == b"x"
    assert bundle.read("b.md") == b"y"
    assert bundle.read("../evals/a.yaml") is None
    assert bundle.paths() == ["b.md", "evals/a.yaml"]


def test_directory_bundle_never_reads_outside_its_root(tmp_path):
    root = tmp_path / "repo"
    (root / "evals").mkdir(parents=True)
    (root / "evals" / "a.yaml").write_text("inside")
    secret = tmp_path / "secret.txt"
    secret.write_text("outside")
    os.symlink(secret, root / "evals" / "link.txt")
    bundle = DirectoryBundle(root)
    assert bundle.read("evals/a.yaml") == b"inside"
    assert bundle.read("../secret.txt") is None
    assert bundle.read("evals/link.txt") is None
    assert bundle.read(str(secret)) is None
    assert bundle.paths() == ["evals/a.yaml"]


def test_directory_bundle_follows_symlinks_that_stay_inside_and_not_a_sibling_with_its_prefix(tmp_path):
    root = tmp_path / "repo"
    (root / "guides").mkdir(parents=True)
    (root / "guides" / "g.md").write_text("guide")
    (tmp_path / "repo-other").mkdir()
    (tmp_path / "repo-other" / "x.md").write_text("sibling")
    os.symlink(root / "guides", root / "linked")
    os.symlink(tmp_path / "repo-other", root / "other")
    bundle = DirectoryBundle(root)
    assert bundle.read("linked/g.md") == b"guide"
    assert bundle.read("other/x.md") is None  # "/repo-other" starts with "/repo", yet is outside


def test_directory_bundle_reads_no_folder_and_never_waits_on_a_fifo(tmp_path):
    (tmp_path / "evals").mkdir()
    os.mkfifo(tmp_path / "evals" / "pipe")  # opening it for reading would block till a writer came
    bundle = DirectoryBundle(tmp_path)
    assert bundle.read("evals/pipe") is None
    assert bundle.read("evals") is None
    assert bundle.read("evals/missing.md") is None


GLOBBED = MemoryBundle(
    {
        name: b"x"
        for name in (
            "s/one.yaml",
            "s/two.json",
            "s/three.yml",
            "s/.hidden.yaml",
            "s/deep/four.yml",
            "s/.dot/five.yml",
            "s/notes.txt",
            "s/{one}.yaml",
        )
    }
)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        # fast-glob's and node-glob's `dot: false`: no wildcard matches a dotfile or a dot folder
        ("s/*.yaml", ["s/one.yaml", "s/{one}.yaml"]),
        ("s/*", ["s/notes.txt", "s/one.yaml", "s/three.yml", "s/two.json", "s/{one}.yaml"]),
        ("s/**/*.yml", ["s/deep/four.yml", "s/three.yml"]),
        ("s/.hidden.yaml", ["s/.hidden.yaml"]),
        ("s/.*.yaml", ["s/.hidden.yaml"]),
        ("s/.dot/*.yml", ["s/.dot/five.yml"]),
        # braces pick among names, nested ones too; a brace without a choice is a plain character
        ("s/*.{yaml,json}", ["s/one.yaml", "s/two.json", "s/{one}.yaml"]),
        ("s/{one,th{ree,ing}}.y*ml", ["s/one.yaml", "s/three.yml"]),
        ("s/{one}.yaml", ["s/{one}.yaml"]),
        ("s/t?o.json", ["s/two.json"]),
        ("s/?hidden.yaml", []),
    ],
)
def test_globs_read_as_agentv_and_promptfoo_expand_them(pattern, expected):
    """Each expectation is what fast-glob 3 (agentv's scenario-file-loader.ts) returned for the
    same files and pattern."""
    assert glob_paths(GLOBBED, pattern) == expected
