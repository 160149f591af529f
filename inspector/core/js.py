"""JavaScript's value semantics, for mimicking tools written in TypeScript (agentv, gambit, aibff).

Their prompts are built from values as JavaScript prints, joins, trims and tests them: `String(2.0)`
is "2", `[]` is true, `JSON.stringify` puts integer-like keys first, and `trim()` strips U+FEFF
but not U+0085. Every port reads these rules from here, so that all of them agree.
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any

# ECMAScript's WhiteSpace and LineTerminator: what String.prototype.trim() strips and `\s` matches.
# Python's str.strip() and `\s` differ (they keep U+FEFF and take U+001C..U+001F and U+0085).
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
# The same characters as the body of a regular expression's character class.
JS_SPACE_CLASS = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_JS_WHITESPACE_SET = frozenset(JS_WHITESPACE)

# What a template literal or String() writes for a value that is not there at all.
UNDEFINED = object()


def js_trim(text: str) -> str:
    return text.strip(JS_WHITESPACE)


def js_trim_bounds(text: str, start: int = 0, end: int | None = None) -> tuple[int, int]:
    """Offsets of text[start:end] after JavaScript's trim()."""
    end = len(text) if end is None else end
    while start < end and text[start] in _JS_WHITESPACE_SET:
        start += 1
    while end > start and text[end - 1] in _JS_WHITESPACE_SET:
        end -= 1
    return start, end


def js_number(value: float) -> str:
    """A number as JavaScript's String() writes it (what agentv's JSON and keys hold)."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    if value.is_integer() and abs(value) < 1e21:
        return str(_integer_digits(value))
    text = repr(value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        sign = "-" if exponent.startswith("-") else "+"
        text = f"{mantissa}e{sign}{exponent.lstrip('+-').lstrip('0') or '0'}"
    return text


def js_string(value: Any) -> str:
    """String(value) for a plain YAML/JSON/TOML value: an array is its items' strings joined by
    commas (null items empty), any object "[object Object]"."""
    if isinstance(value, str):
        return str(value)  # a plain str, also of a subclass (nunjucks' SafeString is an object)
    if value is None:
        return "null"
    if value is UNDEFINED:
        return "undefined"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number(_as_js_number(value))
    if isinstance(value, list):
        return ",".join("" if item is None else js_string(item) for item in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def _as_js_number(value: float) -> float:
    """A number as JavaScript holds it: an integer past 2**53 rounded, one past a double's range
    Infinity (Python's int holds both exactly; JSON and TOML readers give such ints)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def js_truthy(value: Any) -> bool:
    """JavaScript truthiness: "", 0, NaN, false and null are false; [] and {} are true."""
    if isinstance(value, (list, dict)):
        return True
    return value is not UNDEFINED and bool(value) and value == value


def js_round(value: float) -> int:
    """Math.round: halves go up, towards positive infinity."""
    return math.floor(value + 0.5)


def js_json(value: Any, indent: int | None = 2) -> str:
    """JSON.stringify(value, null, indent): integral floats lose their `.0`, NaN is null, and
    integer-like keys come first in ascending order, as JavaScript objects keep them."""
    if indent == 2:
        return json.dumps(js_json_value(value), indent=2, ensure_ascii=False)
    return json.dumps(js_json_value(value), ensure_ascii=False, separators=(",", ":"))


def js_json_value(value: Any) -> Any:
    """The value JSON.stringify would see, as Python's json module writes it."""
    if isinstance(value, list):
        return [js_json_value(item) for item in value]
    if isinstance(value, dict):
        index_keys = sorted((key for key in value if _is_array_index(key)), key=int)
        other_keys = [key for key in value if not _is_array_index(key)]
        return {key: js_json_value(value[key]) for key in [*index_keys, *other_keys]}
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _json_number(value)
    return value


def _json_number(value: float) -> float | int | None:
    if isinstance(value, int):
        # Past 2**53 a JavaScript number has lost the integer's last digits.
        return value if abs(value) < 2**53 else _json_number(float(value))
    if value != value or value in (float("inf"), float("-inf")):
        return None
    return _integer_digits(value) if value.is_integer() and abs(value) < 1e21 else value


def _integer_digits(value: float) -> int:
    """An integral number as JavaScript writes it: its shortest round-tripping digits, then zeros
    (2**60 is 1152921504606847000, not the float's exact 1152921504606846976)."""
    if abs(value) < 2**53:
        return int(value)
    return int(Decimal(repr(value)))


def _is_array_index(key: str) -> bool:
    return key.isdigit() and (key == "0" or not key.startswith("0")) and int(key) < 2**32 - 1


class JsList(list):
    """An array: true in a condition even when empty."""

    def __bool__(self) -> bool:
        return True


class JsObject(dict):
    """An object: true in a condition even when empty."""

    def __bool__(self) -> bool:
        return True


def js_value(value: Any) -> Any:
    """A plain YAML/JSON value with JavaScript's truthiness for arrays and objects."""
    if isinstance(value, dict):
        return JsObject({key: js_value(item) for key, item in value.items()})
    if isinstance(value, list):
        return JsList(js_value(item) for item in value)
    return value
