"""JavaScript's value semantics, which every port of a TypeScript tool reads from inspector.core.js.
The expected texts are what node prints for the same values."""

from __future__ import annotations

from typing import Any

import pytest

from inspector.core.js import (
    UNDEFINED,
    js_json,
    js_number,
    js_round,
    js_string,
    js_trim,
    js_trim_bounds,
    js_truthy,
    js_value,
)


@pytest.mark.parametrize(
    ("number", "text"),
    [
        (2.0, "2"),
        (-0.0, "0"),
        (1.5, "1.5"),
        (1e21, "1e+21"),
        (1e-7, "1e-7"),
        (1.5e300, "1.5e+300"),
        (123456789012345680000.0, "123456789012345680000"),
        (float("nan"), "NaN"),
        (float("inf"), "Infinity"),
        (float("-inf"), "-Infinity"),
    ],
)
def test_numbers_are_written_as_string_writes_them(number: float, text: str):
    assert js_number(number) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("a", "a"),
        (None, "null"),
        (UNDEFINED, "undefined"),
        (True, "true"),
        (3, "3"),
        (2.0, "2"),
        (["a", 1, 2.0, None, [3, 4]], "a,1,2,,3,4"),
        ({"a": 1}, "[object Object]"),
        ([], ""),
    ],
)
def test_string_of_a_value(value: Any, text: str):
    assert js_string(value) == text


@pytest.mark.parametrize(
    ("value", "truthy"),
    [
        ("", False),
        (0, False),
        (0.0, False),
        (float("nan"), False),
        (False, False),
        (None, False),
        (UNDEFINED, False),
        ([], True),
        ({}, True),
        ("0", True),
        (-1, True),
    ],
)
def test_truthiness(value: Any, truthy: bool):
    assert js_truthy(value) is truthy


def test_json_puts_integer_like_keys_first_and_drops_integral_floats_fraction():
    value = {"b": 1.0, "10": float("nan"), "2": [2**60], "01": True}
    assert js_json(value, indent=None) == '{"2":[1152921504606847000],"10":null,"b":1,"01":true}'
    assert js_json({"a": [1]}) == '{\n  "a": [\n    1\n  ]\n}'


def test_trim_takes_javascripts_white_space_not_pythons():
    assert js_trim("\ufeff\u3000 x \u0085\x1c") == "x \u0085\x1c"
    assert js_trim_bounds("  ab\u2028", 1) == (2, 4)


def test_round_takes_halves_up():
    assert (js_round(2.5), js_round(-2.5), js_round(0.49)) == (3, -2, 0)


def test_arrays_and_objects_are_true_in_a_condition_even_when_empty():
    converted = js_value({"list": [], "object": {}})
    assert converted and converted["list"] == [] and converted["list"] and converted["object"]


@pytest.mark.parametrize(
    ("value", "written"),
    [
        (2**53 + 1, "9007199254740992"),
        (12345678901234567890123, "1.2345678901234568e+22"),
        (10**400, "Infinity"),
        ([1, None, 12345678901234567890123], "1,,1.2345678901234568e+22"),
    ],
)
def test_js_string_writes_an_integer_as_the_js_number_it_is(value: Any, written: str):
    """Node: String(9007199254740993), String(12345678901234567890123),
    String(JSON.parse("1" + "0".repeat(400))). Python's int holds them exactly; JavaScript's
    number does not."""
    assert js_string(value) == written
