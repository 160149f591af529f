"""One render cache for the workers: bounded in bytes, holding refusals as well as renders."""

import os

import pytest

from inspector.bundles import loading
from inspector.bundles.ingest import _write_bundle
from inspector.core.options import RenderOptions
from inspector.core.safe_parse import LimitExceeded
from inspector.rendering import document_views, stored_renders, web_policy
from inspector.rendering.cache import ByteBoundedFileCache
from tests.hostile import shapes


def test_the_file_cache_keeps_its_folder_under_the_byte_budget(tmp_path):
    cache = ByteBoundedFileCache(str(tmp_path), {"OPTIONS": {"MAX_BYTES": 20_000, "MAX_ENTRIES": 1_000_000}})
    for number in range(60):
        cache.set(f"entry-{number}", os.urandom(1_000))
    total = sum(path.stat().st_size for path in tmp_path.iterdir())
    assert total <= 20_000 + 2_000  # the budget, plus the entry written after the last cull
    assert cache.get("entry-59") is not None  # the newest stays


@pytest.fixture
def counted_renders(monkeypatch):
    calls = []
    real = web_policy.render_to_keep  # how a stored bundle's document is rendered

    def counting(*args, **kwargs):
        calls.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(web_policy, "render_to_keep", counting)
    return calls


def test_a_refusal_is_cached_so_views_of_a_poisoned_bundle_do_not_parse_again(db, counted_renders):
    path, text, _, _ = shapes()["yaml-alias-bomb"]
    bundle, _ = _write_bundle({path: text.encode()}, title="old", parent=None, example="")
    loaded = loading.load_bundle(bundle.pk)
    for _ in range(3):
        with pytest.raises(LimitExceeded, match="alias"):
            stored_renders.render(loaded, path, RenderOptions())
    assert counted_renders == [path]


def test_a_render_is_cached_per_settings(db, counted_renders):
    bundle, _ = _write_bundle(
        {"e.yaml": b"tests:\n  - id: a\n    input: hi\n"}, title="t", parent=None, example=""
    )
    loaded = loading.load_bundle(bundle.pk)
    for _ in range(2):
        assert stored_renders.render(loaded, "e.yaml", RenderOptions()).cases[0].id == "a"
        stored_renders.render(loaded, "e.yaml", RenderOptions(profile="agentv-4"))
    assert counted_renders == ["e.yaml", "e.yaml"]


def test_a_render_larger_than_an_eighth_of_the_budget_is_not_cached(db, counted_renders, settings):
    settings.RENDER_CACHE_BYTES = 800
    big = "tests:\n" + "".join(f"  - id: c{i}\n    input: {os.urandom(8).hex()}\n" for i in range(50))
    bundle, _ = _write_bundle({"e.yaml": big.encode()}, title="t", parent=None, example="")
    loaded = loading.load_bundle(bundle.pk)
    stored_renders.render(loaded, "e.yaml", RenderOptions())
    stored_renders.render(loaded, "e.yaml", RenderOptions())
    assert counted_renders == ["e.yaml", "e.yaml"]


def test_a_template_change_makes_a_new_cache_version(settings, tmp_path):
    """Cached pages are made by the templates: an upgrade that changes one must not serve the old
    version's pages."""
    from inspector.rendering import cache as render_cache

    (tmp_path / "page.html").write_text("one")
    settings.TEMPLATES = [{**settings.TEMPLATES[0], "DIRS": [tmp_path]}]
    before = render_cache.source_version()
    (tmp_path / "page.html").write_text("two")
    assert render_cache.source_version() != before


@pytest.mark.parametrize(
    "module",
    [
        "rendering/document_views.py",
        "ledgers/panels.py",
        "rendering/kept_render.py",
        "views/case.py",
        "core/model.py",
        "review/service.py",
    ],
)
def test_an_edit_of_any_module_of_the_package_makes_a_new_cache_version(tmp_path, module):
    """No hand-kept list: rendering/document_views.py defines the pickled Outline and CaseIndex, and
    ledgers/panels.py makes cached pages; an edit of either (or of any module) is a new version."""
    import shutil

    from inspector.rendering import cache as render_cache

    copy = tmp_path / "inspector"
    shutil.copytree(render_cache.PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = render_cache.source_version(render_cache.source_files(copy, templates=[]))
    with (copy / module).open("a") as edited:
        edited.write("\n# edited\n")
    after = render_cache.source_version(render_cache.source_files(copy, templates=[]))
    assert after != before
    assert [name for name, _ in render_cache.source_files(copy, templates=[])].count(
        "inspector/" + module
    ) == 1


def test_every_cached_shape_has_its_own_version_in_the_key():
    from inspector.rendering import cache as render_cache

    keys = {shape: render_cache.key(shape, "bundle", "e.yaml") for shape in render_cache.SHAPES}
    assert len(set(keys.values())) == len(keys)
    for shape, made in keys.items():
        assert f":{shape}.{render_cache.SHAPES[shape]}:" in made
    with pytest.raises(KeyError):
        render_cache.key("a-shape-nobody-declared", "bundle")


def test_an_upload_kept_in_the_cache_reads_back_as_its_render(db, counted_renders):
    from inspector.bundles.ingest import store_bundle

    suite = (
        "tests:\n  - id: a\n    input: hi\n  - id: a\n    input: again\n"
        "  - id: b\n    input:\n      - role: user\n        content: [{type: file, value: gone.md}]\n"
    )
    bundle, _ = store_bundle({"e.yaml": suite.encode()}, title="t")
    assert counted_renders == ["e.yaml"]  # the upload's check: the one render, kept
    counted_renders.clear()
    loaded = loading.load_bundle(bundle.pk)
    kept = stored_renders.render(loaded, "e.yaml", RenderOptions())
    index = document_views.case_index(loaded, "e.yaml", RenderOptions())
    assert counted_renders == []
    fresh = web_policy.render_files(loaded.files, "e.yaml", RenderOptions())
    assert kept == fresh
    assert index.ids == ("a", "a#2", "b")
    assert [index.case(case_id) for case_id in index.ids] == fresh.cases
    assert document_views.line_map(loaded, "e.yaml", RenderOptions()) is not None  # made on first use
