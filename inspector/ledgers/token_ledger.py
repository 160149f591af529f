"""The token ledger and cache map of a stored bundle (or one of its documents), for the bundle
page, the case page's cached-prefix band and the API; kept per process, since bundles never change."""

from __future__ import annotations

from dataclasses import dataclass, field

from inspector.bundles import loading
from inspector.core import readers
from inspector.core.export import ExportResult, ExportSettings, export_case, provider_spec
from inspector.core.ledger import Ledger, build_ledger, cache_marks, cases_a_run_sends
from inspector.core.model import InputError, RenderedCase, RenderedDocument
from inspector.core.options import RenderOptions
from inspector.rendering import stored_renders


@dataclass(frozen=True)
class BundleLedger:
    ledger: Ledger
    cases: list[RenderedCase]  # in the ledger's order
    documents: list[str]  # of each case, in the same order
    skipped: list[str]  # documents that cannot be rendered, with the reason
    # Documents a suite reads as its cases, with that suite: left out, the suite's cases count them.
    read_by: dict[str, str] = field(default_factory=dict)


# A ledger holds its cases: a few of them bound the memory of each worker.
_ledgers: loading._LruCache[BundleLedger] = loading._LruCache(8)


def bundle_ledger(
    loaded: loading.LoadedBundle,
    options: RenderOptions,
    provider: str,
    export: ExportSettings,
    document: str | None = None,
    as_configured: bool = False,
) -> BundleLedger:
    """Every case of the bundle (or of `document`, whose render error is raised) in one ledger;
    documents that cannot be rendered are left out and named."""
    key = (
        loaded.cache_id,
        document,
        options,
        provider,
        export,
        as_configured,
    )  # local mode: the folder's version
    found = _ledgers.get(key)
    if found is not None:
        return found
    rendered: dict[str, RenderedDocument | InputError] = {}
    for path in (document,) if document else loaded.documents:
        try:
            rendered[path] = stored_renders.render(loaded, path, options)
        except InputError as problem:
            if document:
                raise
            rendered[path] = problem
    result = _ledger_of(rendered, provider, export, as_configured)
    _ledgers.put(key, result)
    return result


def _ledger_of(
    rendered: dict[str, RenderedDocument | InputError],
    provider: str,
    export: ExportSettings,
    as_configured: bool,
) -> BundleLedger:
    """The cases a run sends: not those of a file a suite reads (the suite's count them), nor
    those the tool skips."""
    read = readers.read_by(
        {
            path: readers.case_sources(item) if isinstance(item, RenderedDocument) else ()
            for path, item in rendered.items()
        }
    )
    suites = {path: item for path, item in rendered.items() if path not in read}
    skipped = [f"{path}: {item}" for path, item in suites.items() if isinstance(item, InputError)]
    cases: list[RenderedCase] = []
    owners: list[str] = []
    for path, item in suites.items():
        if isinstance(item, RenderedDocument):
            run = cases_a_run_sends(item.cases)  # as build_ledger counts them: owners stay in step
            cases.extend(run)
            owners.extend([path] * len(run))
    all_cases = [
        case for item in suites.values() if isinstance(item, RenderedDocument) for case in item.cases
    ]
    ledger = build_ledger(all_cases, provider, export, as_configured)
    return BundleLedger(ledger, cases, owners, skipped, read)


def unstored_ledger(
    cases: list[RenderedCase], document: str, provider: str, export: ExportSettings
) -> BundleLedger:
    """The ledger of cases rendered from unsaved text (a preview): not kept."""
    run = cases_a_run_sends(cases)
    return BundleLedger(build_ledger(cases, provider, export), run, [document] * len(run), [])


def cached_export(found: BundleLedger, case: RenderedCase, export: ExportSettings) -> ExportResult:
    """The export of a case with cache breakpoints where its ledger's cache map says."""
    position = next((number for number, item in enumerate(found.cases) if item.id == case.id), None)
    if position is None:  # a case the tool skips is in no run's cache: it is exported as it is
        return export_case(case, found.ledger.provider, export)
    mark = provider_spec(found.ledger.provider).export_with_breakpoints
    if mark is None:
        raise ValueError(f"{found.ledger.provider} has no cache breakpoints")
    return mark(case, export, cache_marks(found.ledger, position))


def export_with_cache_breakpoints(
    loaded: loading.LoadedBundle,
    options: RenderOptions,
    document: str,
    case: RenderedCase,
    export: ExportSettings,
    provider: str,
) -> ExportResult:
    return cached_export(bundle_ledger(loaded, options, provider, export, document), case, export)
