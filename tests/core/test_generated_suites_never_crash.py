"""No eval file gives an internal error, under any profile: a rendering or a located InputError,
and every rendering serializes (CLI and API forms) and exports to every provider in every form."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings

from inspector.core.bundle import DirectoryBundle
from inspector.core.documents import render_document
from inspector.core.export import FORMATS, PROVIDERS, batch_export, export_case, render_code
from inspector.core.model import InputError
from inspector.core.options import PROFILES, RenderOptions
from inspector.core.serialize import case_contract, case_detail
from tests.oracle.generate import Suite, suites


def _assert_points_inside(bundle: DirectoryBundle, origin) -> None:
    """Provenance names a file of the bundle and lines that file has."""
    if origin.path is None:
        return
    data = bundle.read(origin.path)
    assert data is not None, origin
    if origin.start_line is not None:
        lines = data.count(b"\n") + 1
        assert 1 <= origin.start_line <= origin.end_line <= lines, origin


@settings(
    max_examples=300, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)
@given(suite=suites())
def test_every_profile_renders_or_names_the_problem(suite: Suite):
    folder = Path(tempfile.mkdtemp(prefix="agentv-suite-"))
    try:
        suite.write(folder)
        bundle = DirectoryBundle(folder)
        for profile in PROFILES:
            try:
                document = render_document(bundle, suite.eval_path, RenderOptions(profile=profile))
            except InputError as error:
                assert error.diagnostic.path, f"{profile}: {error} names no file"
                continue
            for case in document.cases:
                for message in case.messages:
                    assert "".join(s.text for s in message.segments) == message.content
                    for segment in message.segments:
                        _assert_points_inside(bundle, segment.origin)
                json.dumps([case_contract(case), case_detail(case)])
                for provider in PROVIDERS:
                    result = export_case(case, provider)
                    json.dumps(result.as_contract(case.id))
                    for form in FORMATS:
                        render_code(result, form)
            for provider in PROVIDERS:
                batch_export(document.cases, provider)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
