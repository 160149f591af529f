"""The one-file offline copy: self-contained (nothing fetched), its data within twice the bundle's
own text plus the fixed viewer, the same cases with provenance, comments and verdicts."""

import io
import json
import re
from pathlib import Path

import pytest
from django.core.management import call_command

from inspector.bundles import offline
from inspector.bundles.ingest import store_bundle
from inspector.core.bundle import DirectoryBundle
from inspector.core.documents import give_cases_distinct_ids, list_documents, render_document
from tests.api.test_review import FILES
from tests.conftest import REPO, corpus_param

# Beyond the empty viewer: room for the structure of a bundle's first few cases.
SLACK = 8 * 1024


def embedded(html: str) -> dict:
    match = re.search(r'<script type="application/json" id="bundle-data">(.*?)</script>', html, re.S)
    return json.loads(match.group(1))


def copy_of(folder: Path) -> tuple[str, int]:
    files = DirectoryBundle(folder)
    documents = offline.render_all(
        lambda p: give_cases_distinct_ids(render_document(files, p, None)), list_documents(files)
    )
    texts = offline.text_files(files)
    html = offline.offline_html(offline.offline_data("x", texts, documents))
    return html, sum(len(t.encode()) for t in texts.values())


@pytest.mark.parametrize(
    "folder",
    sorted(p for p in (REPO / "fixtures" / "examples").iterdir() if p.is_dir())
    + sorted(p for p in (REPO / "tests" / "fixtures").iterdir() if p.is_dir())
    + [
        corpus_param(project, "the real projects' folders as a larger test")
        for project in ("gambit", "agentv")
    ],
    ids=lambda p: p.name,
)
def test_the_copy_is_at_most_twice_the_bundle_plus_a_fixed_overhead(folder):
    fixed = len(offline.offline_html(offline.offline_data("x", {}, [])).encode())
    html, own = copy_of(folder)
    assert len(html.encode()) <= 2 * own + fixed + SLACK


def test_a_thousand_cases_sharing_a_guideline_stay_within_twice_the_bundle():
    from inspector.core.bundle import MemoryBundle

    guide = "# Rules\n\n" + "".join(f"- Rule {n}: point out bugs before style.\n" for n in range(40))
    cases = "".join(
        f"  - id: case-{n}\n    outcome: ok\n    input_messages:\n      - role: user\n"
        f"        content:\n          - type: text\n            value: Review function {n}.\n"
        "          - type: file\n            value: rules.instructions.md\n"
        for n in range(1000)
    )
    files = MemoryBundle(
        {
            "evals/suite.yaml": ("evalcases:\n" + cases).encode(),
            "evals/rules.instructions.md": guide.encode(),
            ".agentv/config.yaml": b'guideline_patterns:\n  - "**/*.instructions.md"\n',
        }
    )
    document = render_document(files, "evals/suite.yaml", None)
    texts = offline.text_files(files)
    fixed = len(offline.offline_html(offline.offline_data("x", {}, [])).encode())
    data = len(offline.offline_html(offline.offline_data("x", texts, [document])).encode()) - fixed
    assert data <= 2 * sum(len(t.encode()) for t in texts.values())


def test_every_segment_reads_back_its_text(settings):
    files = DirectoryBundle(REPO / "fixtures" / "examples" / "code-review")
    document = render_document(files, "evals/code-review.yaml", None)
    data = offline.offline_data("x", offline.text_files(files), [document])
    [case] = data["documents"][0]["cases"]
    for message, index in zip(document.cases[0].messages, case["m"], strict=True):
        flat = data["messages"][index][1]
        rebuilt = "".join(
            data["table"][a] if f == -1 else data["files"][f][a : a + b]
            for f, a, b in (flat[i : i + 3] for i in range(0, len(flat), 7))
        )
        assert rebuilt == message.content


def test_text_that_would_end_the_script_element_is_escaped():
    html = offline.offline_html(offline.offline_data("t", {"a.md": "</script><!-- x"}, []))
    assert html.count("</script>") == 2  # the data's and the viewer's own
    assert embedded(html)["files"] == ["</script><!-- x"]


def test_the_download_holds_comments_and_verdicts(client, db):
    bundle, _ = store_bundle(FILES, title="suite")
    client.post(
        f"/b/{bundle.pk}/review/",
        {
            "document": "evals/suite.yaml",
            "case_id": "first",
            "action": "thread",
            "target": "1",
            "body": "A <b>note</b>",
        },
    )
    client.post(
        f"/b/{bundle.pk}/review/",
        {"document": "evals/suite.yaml", "case_id": "second", "action": "verdict", "verdict": "changes"},
    )
    response = client.get(f"/b/{bundle.pk}/offline.html")
    assert (
        response.status_code == 200 and response["Content-Disposition"] == 'attachment; filename="suite.html"'
    )
    html = response.content.decode()
    assert not re.search(r'(src|href)="(https?:|/)', html)  # nothing to fetch
    data = embedded(html)
    assert data["threads"][0]["comments"][0]["html"] == "<p>A &lt;b&gt;note&lt;/b&gt;</p>\n"
    [verdict] = data["verdicts"]
    assert {key: verdict[key] for key in ("document", "case_id", "verdict", "note", "author")} == {
        "document": "evals/suite.yaml",
        "case_id": "second",
        "verdict": "changes",
        "note": "",
        "author": "Anonymous",
    }
    assert len(verdict["author_fingerprint"]) == 6  # the name is shown with its key's fingerprint
    assert client.get("/b/nope/offline.html").status_code == 404


def test_the_cli_writes_the_copy_and_refuses_bad_input(tmp_path):
    for path, data in FILES.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    out = tmp_path / "out.html"
    call_command("export-html", str(tmp_path / "evals/suite.yaml"), "-o", str(out), "--root", str(tmp_path))
    data = embedded(out.read_text())
    assert [c["id"] for c in data["documents"][0]["cases"]] == ["first", "second"]
    assert set(data["paths"]) == {"evals/suite.yaml", "evals/rules.instructions.md"}
    (tmp_path / "evals/bad.yaml").write_text("evalcases: [\n")
    err = io.StringIO()
    with pytest.raises(SystemExit) as exit_:
        call_command(
            "export-html",
            str(tmp_path / "evals/bad.yaml"),
            "-o",
            str(out),
            "--root",
            str(tmp_path),
            stderr=err,
        )
    assert exit_.value.code == 2 and err.getvalue().startswith("error: evals/bad.yaml")


def test_the_copy_keeps_each_cases_graders_and_the_models_thinking():
    from inspector.core.bundle import MemoryBundle
    from tests.web.test_graders_browser import FILES as JUDGED

    files = MemoryBundle(JUDGED)
    documents = offline.render_all(lambda p: render_document(files, p, None), list_documents(files))
    data = offline.offline_data("x", offline.text_files(files), documents)
    cases = {case["id"]: case for doc in data["documents"] for case in doc["cases"]}
    graders = cases["refund"]["g"]
    assert [grader[0] for grader in graders] == ["policy", "depth", "format", "contains"]
    assert len(graders[0][1]) == 2 and graders[0][2] is None  # the judge's two messages
    assert graders[2][1] == [] and graders[2][2].startswith("Runs `python3 scripts/check_format.py`")
    assert graders[2][3] == "evals/refund.yaml:17"
    thinking = [
        item[4] for item in (data["messages"][index] for index in cases["thinking"]["m"]) if len(item) > 4
    ]
    assert thinking == [
        [[0, "thinking", "I should look."], [1, "redacted thinking", "(encrypted by the provider: 6 bytes)"]]
    ]
