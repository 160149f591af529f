"""One renderer per profile: how a normalised case becomes the messages a model receives."""

from __future__ import annotations

from collections.abc import Callable

from ...model import RenderedCase
from ..prepare import Context
from ..schema import CaseSpec
from . import agentv_0_10, agentv_3_8, agentv_4, spec

Renderer = Callable[[CaseSpec, Context], RenderedCase]

RENDERERS: dict[str, Renderer] = {
    "spec": spec.render,
    "agentv-0.10": agentv_0_10.render,
    "agentv-3.8": agentv_3_8.render,
    "agentv-4": agentv_4.render,
    # agentv 5 changed how tests are written, not how a loaded test is sent (see v5.py).
    "agentv-5": agentv_4.render,
    # agentv's main at 58f316ca2, untagged: the authored format changed again, sending did not.
    "agentv-5-next-58f316c": agentv_4.render,
}
