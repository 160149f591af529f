"""agentv's main at commit 58f316ca2 (untagged, 45 commits after v5.3.1-next.1): the profile
`agentv-5-next-58f316c`.

That commit changed how eval files are *written*, not how a loaded test is sent, so the agentv 5
reader (v5.py) reads these files, with the rules below from `packages/core/src/evaluation` at the
commit (`yaml-parser.ts`, `loaders/config-loader.ts`, `experiment.ts`): `providers` (promptfoo's
string, object and map forms) replaces `target`/`targets`; the removed run keys, `provider_output`
and an object `evaluate_options.repeat` refuse the file with agentv's words; each test's judge is
its `options.provider` (merged from `default_test.options`), else the file's `defaults.grader`
(which apps/cli's run-eval.ts hands the run). Grader rules are graders_v5_next.py.
"""

from __future__ import annotations

from ..bundle import Bundle
from ..model import InputError
from ..yaml_lines import Node
from .schema import CaseSpec, Suite
from .v5 import read_suite_v5

COMMIT = "58f316ca24e3abcdd253efafbc240882f39dc5b0"

_FIXED_OUTPUT_HINT = (
    "Use an explicit deterministic target such as provider: cli for fixed outputs, or use a "
    "replay/fixture target for captured provider responses."
)
_REPEAT_HINT = "Use a positive integer evaluate_options.repeat instead."

# readSuiteRuntimeBlock at the commit: top-level keys that refuse the file, in agentv's order.
_RUNTIME_KEYS = (
    (
        "experiment",
        "top-level 'experiment' has been removed from authored eval YAML. Use tags.experiment in the "
        "eval file or CLI --experiment at run time.",
    ),
    (
        "policy",
        "top-level 'policy' is not part of eval YAML. Put repeat under evaluate_options.repeat, "
        "timeout_seconds and threshold at the top level, and budget_usd under evaluate_options.",
    ),
    (
        "execution",
        "top-level 'execution' is not part of eval YAML. Use supported top-level fields or "
        "evaluate_options for authored run controls.",
    ),
    (
        "model",
        "top-level 'model' is not part of eval YAML. Put model inside the relevant providers[].config "
        "object.",
    ),
    (
        "graders",
        "top-level 'graders' has been removed. Put grader providers in 'providers' and select them "
        "with defaults.grader, default_test.options.provider, tests[].options.provider, or "
        "assertion provider.",
    ),
    ("runs", "top-level 'runs' has been removed. " + _REPEAT_HINT),
    ("early_exit", "top-level 'early_exit' has been removed. " + _REPEAT_HINT),
    ("repeat", "top-level 'repeat' has been removed. Use evaluate_options.repeat instead."),
    (
        "on_run_complete",
        "top-level 'on_run_complete' has been removed. Use extensions with afterAll instead.",
    ),
)


class NewestRules:
    """v5.py's NewerRules for the commit."""

    def refuse(self, root: Node, default_test: Node | None, default_path: str, path: str) -> None:
        # default_test as read (a file:// one too): the CLI's loadTestSuite checks it resolved.
        _refuse_provider_output(root, default_test, default_path, path)
        _refuse_runtime_keys(root, path)
        if root.get("budget_usd") is not None:  # config-loader.ts rejectAuthoredRuntimeContainers
            raise InputError(
                "Top-level 'budget_usd' has been removed. Use evaluate_options.budget_usd.",
                path,
                _line(root, "budget_usd"),
            )
        _refuse_targets(root, path)
        _refuse_bad_providers(root, path)
        _refuse_repeat_object(root, path)
        _refuse_bad_defaults(root, path)

    def mark(self, case: CaseSpec, test: Node, default_test: Node | None, root: Node) -> None:
        declared = _declared_providers(root)
        candidate = _defaults_name(root, "provider")
        if declared or candidate:
            # What the ledger prices the case and its judges at: the run's provider and the
            # providers its judges are named by.
            case.metadata["agentv_providers"] = {"candidate": candidate, "declared": declared}
        if case.grading is None:
            return
        case.grading.newest = True
        case.grading.default_judge = _defaults_grader(root)
        named = _options_provider(test) or _options_provider(default_test)
        case.grading.judge_named = named is not None
        case.grading.judge = named or case.grading.default_judge
        case.grading.workspace = _has_workspace(test, root)


def read_suite_v5_next(bundle: Bundle, path: str) -> Suite:
    return read_suite_v5(bundle, path, NewestRules())


def _line(node: Node, key: str) -> int:
    return node.value[key].start_line


def _refuse_provider_output(root: Node, default_test: Node | None, default_path: str, path: str) -> None:
    """rejectAuthoredProviderOutput: default_test's, then each inline test's."""
    if (
        default_test is not None
        and isinstance(default_test.value, dict)
        and "provider_output" in default_test.value
    ):
        raise InputError(
            "default_test.provider_output is not supported in authored AgentV YAML. " + _FIXED_OUTPUT_HINT,
            default_path,
            _line(default_test, "provider_output"),
        )
    tests = root.get("tests")
    if tests is None or not isinstance(tests.value, list):
        return
    for index, entry in enumerate(tests.value):
        if isinstance(entry.value, dict) and "provider_output" in entry.value:
            raise InputError(
                f"tests[{index}].provider_output is not supported in authored AgentV YAML. "
                + _FIXED_OUTPUT_HINT,
                path,
                _line(entry, "provider_output"),
            )


def _refuse_runtime_keys(root: Node, path: str) -> None:
    for key, message in _RUNTIME_KEYS:
        if root.get(key) is not None:
            raise InputError(f"Invalid eval runtime config in eval file: {message}", path, _line(root, key))


def _refuse_targets(root: Node, path: str) -> None:
    """extractTargetRefsFromSuite: `target` and `targets` gave way to `providers`."""
    if "target" in root.value:
        raise InputError(
            "Top-level 'target' has been removed. Use top-level 'providers' instead.",
            path,
            _line(root, "target"),
        )
    if "targets" in root.value:
        raise InputError(
            "Top-level 'targets' has been removed. Use 'providers'; map targets[].id to "
            "providers[].label and targets[].provider to providers[].id.",
            path,
            _line(root, "targets"),
        )


def _refuse_bad_providers(root: Node, path: str) -> None:
    """parseInlineProviderRefs and assertUniqueProviderRefs: an empty reference, or two providers
    with one identity (a label, else the id)."""
    providers = root.get("providers")
    if providers is None:
        return
    entries = providers.value if isinstance(providers.value, list) else [providers]
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        if isinstance(entry.value, str) and not entry.value.strip():
            raise InputError(
                f"Invalid providers[{index}]: provider reference must be non-empty.", path, entry.start_line
            )
        for identity in _identities(entry.value):
            if identity in seen:
                raise InputError(
                    f"Duplicate provider identity '{identity}'. Provider labels and unlabeled "
                    "provider ids must be unique.",
                    path,
                    entry.start_line,
                )
            seen.add(identity)


def _identities(value: object) -> list[str]:
    """Each provider an entry declares, named by its label, else its id."""
    if isinstance(value, str):
        return [value.strip()]
    if not isinstance(value, dict):
        return []
    if "id" in value:
        return [_name(value.get("label")) or str(value["id"]).strip()]
    return [
        (_name(options.get("label")) if isinstance(options, dict) else None) or str(key).strip()
        for key, options in value.items()
    ]


def _refuse_repeat_object(root: Node, path: str) -> None:
    """experiment.ts readRepeat: only a positive integer is a repeat now."""
    options = root.get("evaluate_options")
    repeat = options.get("repeat") if options is not None and isinstance(options.value, dict) else None
    if repeat is None:
        return
    value = repeat.value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(
            "Experiment repeat must be a positive integer. The repeat object shape has been removed; "
            "use evaluate_options.repeat: 2.",
            path,
            repeat.start_line,
        )
    if value != int(value) or value < 1:
        raise InputError("Experiment repeat must be a positive integer.", path, repeat.start_line)


def _refuse_bad_defaults(root: Node, path: str) -> None:
    """extractSuiteDefaults (the CLI reads the suite's defaults before it runs anything)."""
    defaults = root.get("defaults")
    if defaults is None or defaults.value is None:
        return
    if not isinstance(defaults.value, dict):
        raise InputError("Invalid defaults: expected an object.", path, defaults.start_line)
    if "target" in defaults.value:
        raise InputError(
            "Invalid defaults.target: defaults.target has been removed. Use defaults.provider.",
            path,
            _line(defaults, "target"),
        )
    for key in ("provider", "grader"):
        found = defaults.get(key)
        if found is not None and found.value is not None and not _name(found.value):
            raise InputError(f"Invalid defaults.{key}: expected a non-empty string.", path, found.start_line)


def _name(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _options_provider(test: Node | None) -> str | None:
    """readOptionsProvider: a non-empty string names the judge; anything else is ignored."""
    options = test.get("options") if test is not None and isinstance(test.value, dict) else None
    provider = options.get("provider") if options is not None and isinstance(options.value, dict) else None
    return _name(provider.value) if provider is not None else None


def _has_workspace(test: Node, root: Node) -> bool:
    """prepareEvalCaseWorkspace: a host `environment` (the test's, else the file's; yaml-parser.ts)
    is made the test's workspace. A docker one runs the target elsewhere and leaves the graders
    none; a `file://` recipe is not read here, and counts as none."""
    environment = test.get("environment") if isinstance(test.value, dict) else None
    if environment is None:
        environment = root.get("environment")
    if environment is None or not isinstance(environment.value, dict):
        return False
    kind, workdir = environment.get("type"), environment.get("workdir")
    return kind is not None and kind.value == "host" and workdir is not None and bool(_name(workdir.value))


def _defaults_grader(root: Node) -> str | None:
    return _defaults_name(root, "grader")


def _defaults_name(root: Node, key: str) -> str | None:
    """extractSuiteDefaults: `defaults.provider` (the run's provider) or `defaults.grader`."""
    defaults = root.get("defaults")
    found = defaults.get(key) if defaults is not None and isinstance(defaults.value, dict) else None
    return _name(found.value) if found is not None else None


def _declared_providers(root: Node) -> dict[str, dict[str, str | None]]:
    """Each provider `providers` declares, by its identity (its label, else its id): its id and
    its `config.model`, in every form promptfoo's `providers` takes."""
    providers = root.get("providers")
    if providers is None:
        return {}
    entries = providers.plain() if isinstance(providers.value, list) else [providers.plain()]
    declared: dict[str, dict[str, str | None]] = {}
    for entry in entries:
        for identity, provider_id, options in _entries(entry):
            config = options.get("config") if isinstance(options, dict) else None
            model = config.get("model") if isinstance(config, dict) else None
            declared[identity] = {"id": provider_id, "model": model if isinstance(model, str) else None}
    return declared


def _entries(value: object) -> list[tuple[str, str, object]]:
    """(identity, id, the entry's options) of one `providers` entry, as _identities names them."""
    if isinstance(value, str):
        return [(value.strip(), value.strip(), None)]
    if not isinstance(value, dict):
        return []
    if "id" in value:
        return [(_name(value.get("label")) or str(value["id"]).strip(), str(value["id"]).strip(), value)]
    return [
        (
            (_name(options.get("label")) if isinstance(options, dict) else None) or str(key).strip(),
            str(key),
            options,
        )
        for key, options in value.items()
    ]
