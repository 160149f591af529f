"""promptfoo configs (promptfoo 0.123.1): every evaluation's exact request and its judges'.

`render_promptfoo_file` reads a config into one case per evaluation (evaluations.py); `claims`
is what `auto` asks (detect.py).
"""

from .detect import claims
from .evaluations import render_promptfoo_file

__all__ = ["claims", "render_promptfoo_file"]
