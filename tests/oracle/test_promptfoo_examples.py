"""promptfoo's own example configs, held out: rendered by the inspector and run by promptfoo
0.123.1, every recorded request compared.

The examples are promptfoo's (repository promptfoo/promptfoo, `examples/`), not ours to commit:
the test runs only when PI_PROMPTFOO_EXAMPLES names a folder holding them, one example per
subfolder with its promptfooconfig.yaml (.yml, .json) and the files it reads, and is skipped with
that reason otherwise. An example whose config the inspector refuses is skipped with the error;
evaluations the inspector does not render (JavaScript prompts, custom providers, transforms …) are
listed with their reason, and every other evaluation's request and every judge request it shows
must be promptfoo's. Each example's figures are printed (`-s` shows them).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from inspector.core.model import InputError

from .promptfoo_oracle import PromptfooOracle, available
from .test_promptfoo_differential import _sorted, judge_bodies, ours, theirs

EXAMPLES = (
    Path(os.environ["PI_PROMPTFOO_EXAMPLES"]).resolve() if os.environ.get("PI_PROMPTFOO_EXAMPLES") else None
)
CONFIG_NAMES = ("promptfooconfig.yaml", "promptfooconfig.yml", "promptfooconfig.json")
LARGEST_FILE = 5_000_000  # bytes: larger files (datasets, media) are not read into the example


def _example_folders() -> list[object]:
    if EXAMPLES is None:
        reason = "PI_PROMPTFOO_EXAMPLES is not set: it names a folder of promptfoo's own example configs"
        return [pytest.param(None, marks=pytest.mark.skip(reason=reason), id="examples")]
    if not EXAMPLES.is_dir():
        raise pytest.UsageError(f"PI_PROMPTFOO_EXAMPLES names {EXAMPLES}, which is not a folder")
    folders = sorted(path.parent for name in CONFIG_NAMES for path in EXAMPLES.glob(f"*/{name}"))
    return [pytest.param(folder, id=folder.name) for folder in folders]


@pytest.fixture(scope="module")
def oracle() -> Iterator[PromptfooOracle]:
    if not available():
        pytest.skip("promptfoo is not installed in tests/oracle/promptfoo (.ci/setup --test)")
    with PromptfooOracle() as running:
        yield running


def _files(folder: Path) -> dict[str, str | bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.stat().st_size <= LARGEST_FILE
    }


@pytest.mark.parametrize("folder", _example_folders())
def test_promptfoo_example_sends_what_promptfoo_sends(folder: Path, oracle: PromptfooOracle) -> None:
    files = _files(folder)
    config = next(name for name in CONFIG_NAMES if name in files)
    try:
        mine = ours(files, config)
    except InputError as error:
        pytest.skip(f"{folder.name}: the inspector does not render this config: {error}")
    real, real_judges = theirs(oracle.run(files, config))
    skipped = Counter(str(item["skipped"]) for item in mine if item["skipped"])
    found = [f"{len(mine)} evaluations, promptfoo ran {len(real)}"] if len(mine) != len(real) else []
    identical = 0
    for index, (left, right) in enumerate(zip(mine, real, strict=False)):
        keys = ("test_idx", "prompt_idx", "provider") + (() if left["skipped"] else ("payload",))
        wrong = [key for key in keys if left[key] != right[key]]
        found += [
            f"evaluation {index} {key}: ours {left[key]!r}\npromptfoo's {right[key]!r}" for key in wrong
        ]
        identical += not wrong and not left["skipped"]
    my_judges, their_judges = Counter(_sorted(judge_bodies(mine))), Counter(_sorted(real_judges))
    # promptfoo grades the evaluations the inspector does not render too: with those, the
    # inspector's judges are some of promptfoo's, each one of them.
    if (my_judges != their_judges) if not skipped else bool(my_judges - their_judges):
        found.append(f"judge requests: ours {sorted(my_judges)!r}\npromptfoo's {sorted(their_judges)!r}")
    print(
        f"\n{folder.name}: {len(mine)} evaluations, {identical} identical, "
        f"{sum(skipped.values())} not rendered; {sum((my_judges & their_judges).values())} judge "
        f"requests identical "
        f"of promptfoo's {sum(their_judges.values())} (ours {sum(my_judges.values())})"
        + "".join(f"\n  not rendered ×{count}: {reason}" for reason, count in skipped.items())
    )
    assert found == []
