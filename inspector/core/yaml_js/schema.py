"""yaml 2.8.3's schemas as its Composer resolves scalars and collection tags with them: the core
schema (schema/core/*, schema/common/*) with the merge key `<<` added (`merge: true`), the YAML 1.1
schema a `%YAML 1.1` document picks (schema/yaml-1.1/*), the core schema's known tags (schema/tags.js
coreKnownTags), and the %YAML/%TAG directives (doc/directives.js).

Only what errors depend on is kept: a scalar's resolved value (duplicate keys compare it), which tag
a text matches, and the messages tags give. JS regexps' `$` is the end of the text, so tests use
`fullmatch`; `[0-9]` is written out because Python's `\\d` also takes other scripts' digits."""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..js import js_string
from .nodes import Collection, JsError, JsObject, Node, Pair, Scalar, is_map, is_seq

YAML_TAG = "tag:yaml.org,2002:"


@dataclass(frozen=True)
class Tag:
    """One of yaml's tag objects: `default` is True, False or "key" (the merge key's, used for keys
    only); `resolve` turns a scalar's text into its JS value and may raise JsError (the JS throws)."""

    tag: str
    default: bool | str = True
    test: re.Pattern[str] | None = None
    resolve: Callable[[str], Any] | None = None
    collection: str | None = None
    resolve_collection: Callable[[Collection, Callable[[str], None]], Node] | None = None
    node_kind: str | None = None
    format: str | None = None


def js_parse_float(text: str) -> float:
    """JS parseFloat: the longest number at the start of the text, or NaN."""
    match = re.match(r"[ \t\n\r]*([-+]?(?:Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?))", text)
    if not match:
        return math.nan
    number = match.group(1)
    return float(number.replace("Infinity", "inf"))


def js_parse_int(text: str, radix: int) -> float:
    """JS parseInt(text, radix) as a JS number: the longest run of digits at the start, or NaN."""
    sign = -1.0 if text[:1] == "-" else 1.0
    text = text[1:] if text[:1] in "-+" and text else text
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"[:radix]
    length = 0
    while length < len(text) and text[length].lower() in digits:
        length += 1
    if length == 0:
        return math.nan
    try:
        return sign * float(int(text[:length], radix))
    except OverflowError:
        return sign * math.inf


def _merge_key(_text: str) -> JsObject:
    return JsObject()  # yaml resolves `<<` to a new Symbol('<<') each time


def _opaque(_text: str) -> JsObject:
    return JsObject()


def _nan_or_infinity(text: str) -> float:
    # floatNaN (schema/core/float.js, schema/yaml-1.1/float.js)
    if text[-3:].lower() == "nan":
        return math.nan
    return -math.inf if text[:1] == "-" else math.inf


def _int_1_1(offset: int, radix: int) -> Callable[[str], float]:
    # intResolve (schema/yaml-1.1/int.js): the sign, then the digits without underscores
    def resolve(text: str) -> float:
        sign = text[:1]
        start = offset + 1 if sign in ("-", "+") and sign else offset
        number = js_parse_int(text[start:].replace("_", ""), radix)
        return -1 * number if sign == "-" else number

    return resolve


def _js_number(text: str) -> float:
    # Number(part) for a sexagesimal part: digits, maybe with a fraction; "" is 0
    return float(text) if text else 0.0


def parse_sexagesimal(text: str) -> float:
    """parseSexagesimal (schema/yaml-1.1/timestamp.js), without BigInt."""
    sign = text[:1]
    parts = text[1:] if sign in ("-", "+") and sign else text
    result = 0.0
    for part in parts.replace("_", "").split(":"):
        result = result * 60 + _js_number(part)
    return -1 * result if sign == "-" else result


TIMESTAMP = re.compile(
    r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
    r"(?:(?:t|T|[ \t]+)([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2}(\.[0-9]+)?)"
    r"(?:[ \t]*(Z|[-+][012]?[0-9](?::[0-9]{2})?))?)?"
)


def _timestamp(text: str) -> JsObject:
    # timestamp.resolve (schema/yaml-1.1/timestamp.js) throws when the text is no date
    if not TIMESTAMP.fullmatch(text):
        raise JsError("!!timestamp expects a date, starting with yyyy-mm-dd")
    return JsObject()


def _resolve_map(node: Collection, on_error: Callable[[str], None]) -> Node:
    if not is_map(node):
        on_error("Expected a mapping for this tag")
    return node


def _resolve_seq(node: Collection, on_error: Callable[[str], None]) -> Node:
    if not is_seq(node):
        on_error("Expected a sequence for this tag")
    return node


def resolve_pairs(seq: Collection, on_error: Callable[[str], None]) -> Collection:
    """resolvePairs (schema/yaml-1.1/pairs.js): each item of the sequence becomes one pair."""
    if not is_seq(seq):
        on_error("Expected a sequence for this tag")
        return seq
    for index, item in enumerate(seq.items):
        if isinstance(item, Pair):
            continue
        if is_map(item):
            if len(item.items) > 1:
                on_error("Each pair must have its own sequence indicator")
            item = item.items[0] if item.items else Pair(Scalar(value=None))
        seq.items[index] = item if isinstance(item, Pair) else Pair(item)
    return seq


def key_string(value: Any) -> str:
    """JS String(value) for a resolved scalar value, as omap's message interpolates it."""
    return "Symbol(<<)" if isinstance(value, JsObject) else js_string(value)


def _resolve_omap(seq: Collection, on_error: Callable[[str], None]) -> Node:
    # omap.resolve (schema/yaml-1.1/omap.js): `includes` finds NaN, unlike ===
    pairs = resolve_pairs(seq, on_error)
    seen: list[Any] = []
    for pair in pairs.items:
        key = pair.key if isinstance(pair, Pair) else None
        if isinstance(key, Scalar):
            if any(same_value_zero(key.value, other) for other in seen):
                on_error(f"Ordered maps must not include duplicate keys: {key_string(key.value)}")
            else:
                seen.append(key.value)
    return dataclasses.replace(pairs, kind="omap")


def same_value_zero(a: Any, b: Any) -> bool:
    """JS SameValueZero, as Array#includes and Map#has compare: NaN is NaN."""
    both_nan = isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)
    return both_nan or (type(a) is type(b) and a == b)


def _has_all_null_values(node: Collection) -> bool:
    # Collection.hasAllNullValues(true) (nodes/Collection.js)
    for pair in node.items:
        if not isinstance(pair, Pair):
            return False
        value = pair.value
        if value is None:
            continue
        if not (isinstance(value, Scalar) and value.value is None and not value.comment and not value.tag):
            return False
    return True


def _resolve_set(node: Collection, on_error: Callable[[str], None]) -> Node:
    # set.resolve (schema/yaml-1.1/set.js)
    if not is_map(node):
        on_error("Expected a mapping for this tag")
    elif _has_all_null_values(node):
        return dataclasses.replace(node, kind="set")
    else:
        on_error("Set items must all have null values")
    return node


MAP = Tag(YAML_TAG + "map", collection="map", resolve_collection=_resolve_map, node_kind="map")
SEQ = Tag(YAML_TAG + "seq", collection="seq", resolve_collection=_resolve_seq, node_kind="seq")
STRING = Tag(YAML_TAG + "str", resolve=lambda text: text)
# The tests yaml_keys.py also writes by (a text one of them passes is quoted there).
NULL_TEST = re.compile(r"(?:~|[Nn]ull|NULL)?")
BOOL_TEST = re.compile(r"(?:[Tt]rue|TRUE|[Ff]alse|FALSE)")
FLOAT_NAN_TEST = re.compile(r"(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)")
MERGE_TEST = re.compile(r"<<")
NULL = Tag(YAML_TAG + "null", test=NULL_TEST, resolve=lambda _text: None)
MERGE = Tag(YAML_TAG + "merge", default="key", test=MERGE_TEST, resolve=_merge_key)
BINARY = Tag(YAML_TAG + "binary", default=False, resolve=_opaque)
TIMESTAMP_TAG = Tag(YAML_TAG + "timestamp", test=TIMESTAMP, resolve=_timestamp)
OMAP = Tag(
    YAML_TAG + "omap", default=False, collection="seq", resolve_collection=_resolve_omap, node_kind="omap"
)
PAIRS = Tag(YAML_TAG + "pairs", default=False, collection="seq", resolve_collection=resolve_pairs)
SET = Tag(YAML_TAG + "set", default=False, collection="map", resolve_collection=_resolve_set, node_kind="set")

INT = YAML_TAG + "int"
FLOAT = YAML_TAG + "float"
FLOAT_NAN = Tag(FLOAT, test=FLOAT_NAN_TEST, resolve=_nan_or_infinity)

# schema/core/schema.js, with the merge tag getTags adds for `merge: true`
CORE_TAGS = [
    MAP,
    SEQ,
    STRING,
    NULL,
    Tag(YAML_TAG + "bool", test=BOOL_TEST, resolve=lambda t: t[0] in "tT"),
    Tag(INT, test=re.compile(r"0o[0-7]+"), resolve=lambda t: js_parse_int(t[2:], 8), format="OCT"),
    Tag(INT, test=re.compile(r"[-+]?[0-9]+"), resolve=lambda t: js_parse_int(t, 10)),
    Tag(INT, test=re.compile(r"0x[0-9a-fA-F]+"), resolve=lambda t: js_parse_int(t[2:], 16), format="HEX"),
    FLOAT_NAN,
    Tag(
        FLOAT,
        test=re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+"),
        resolve=js_parse_float,
        format="EXP",
    ),
    Tag(FLOAT, test=re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)"), resolve=js_parse_float),
    MERGE,
]


def _float_1_1(text: str) -> float:
    return js_parse_float(text.replace("_", ""))


# schema/yaml-1.1/schema.js
YAML_1_1_TAGS = [
    MAP,
    SEQ,
    STRING,
    NULL,
    Tag(
        YAML_TAG + "bool",
        test=re.compile(r"(?:Y|y|[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)"),
        resolve=lambda _t: True,
    ),
    Tag(
        YAML_TAG + "bool",
        test=re.compile(r"(?:N|n|[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)"),
        resolve=lambda _t: False,
    ),
    Tag(INT, test=re.compile(r"[-+]?0b[0-1_]+"), resolve=_int_1_1(2, 2), format="BIN"),
    Tag(INT, test=re.compile(r"[-+]?0[0-7_]+"), resolve=_int_1_1(1, 8), format="OCT"),
    Tag(INT, test=re.compile(r"[-+]?[0-9][0-9_]*"), resolve=_int_1_1(0, 10)),
    Tag(INT, test=re.compile(r"[-+]?0x[0-9a-fA-F_]+"), resolve=_int_1_1(2, 16), format="HEX"),
    FLOAT_NAN,
    Tag(FLOAT, test=re.compile(r"[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?[eE][-+]?[0-9]+"), resolve=_float_1_1),
    Tag(FLOAT, test=re.compile(r"[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*"), resolve=_float_1_1),
    BINARY,
    MERGE,
    OMAP,
    PAIRS,
    SET,
    Tag(
        INT, test=re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+"), resolve=parse_sexagesimal, format="TIME"
    ),
    Tag(FLOAT, test=re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*"), resolve=parse_sexagesimal),
    TIMESTAMP_TAG,
]

# coreKnownTags (schema/tags.js): tags a 1.2 document may name without the core schema holding them
CORE_KNOWN_TAGS = {tag.tag: tag for tag in (BINARY, MERGE, OMAP, PAIRS, SET, TIMESTAMP_TAG)}


@dataclass
class Schema:
    """A document's schema (schema/Schema.js): its own list of tags, as the Composer adds the known
    tags a document names to it."""

    tags: list[Tag]
    known_tags: dict[str, Tag]


def schema_for(version: str) -> Schema:
    """Document.setSchema (doc/Document.js): 1.1 picks the YAML 1.1 schema, anything else the core."""
    if version == "1.1":
        return Schema(list(YAML_1_1_TAGS), {})
    return Schema(list(CORE_TAGS), dict(CORE_KNOWN_TAGS))
