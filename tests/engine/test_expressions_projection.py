"""ProjectionExpression: nested paths keep their nesting, list indexes keep index order, overlaps fail."""

from __future__ import annotations

import pytest

from tablewright.engine.errors import ValidationException
from tablewright.engine.expressions import parse_projection, project

ITEM = {
    "a": {"M": {"b": {"L": [{"S": "b0"}, {"S": "b1"}, {"S": "b2"}, {"S": "b3"}]}, "c": {"N": "1"}}},
    "l": {"L": [{"M": {"x": {"S": "x0"}, "y": {"S": "y0"}}}, {"M": {"x": {"S": "x1"}}}]},
    "s": {"S": "top"},
    "n": {"N": "7"},
}

CASES = [
    ("s", {"s": {"S": "top"}}),
    ("s, n", {"s": {"S": "top"}, "n": {"N": "7"}}),
    ("a.b[1]", {"a": {"M": {"b": {"L": [{"S": "b1"}]}}}}),
    ("a.b[3], a.b[1]", {"a": {"M": {"b": {"L": [{"S": "b1"}, {"S": "b3"}]}}}}),
    ("a.b[1], a.c", {"a": {"M": {"b": {"L": [{"S": "b1"}]}, "c": {"N": "1"}}}}),
    ("l[0].y, l[1].x", {"l": {"L": [{"M": {"y": {"S": "y0"}}}, {"M": {"x": {"S": "x1"}}}]}}),
    ("l[1].y", {}),
    ("absent, s.k, a.b[9], n[0]", {}),
    ("#a.c", {"a": {"M": {"c": {"N": "1"}}}}),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_project(text: str, expected: dict) -> None:
    names = {"#a": "a"} if "#a" in text else None
    assert project(parse_projection(text), ITEM, names) == expected


def test_projection_copies_values() -> None:
    result = project(parse_projection("a"), ITEM)
    result["a"]["M"]["c"]["N"] = "2"
    assert ITEM["a"]["M"]["c"]["N"] == "1"


@pytest.mark.parametrize(
    ("text", "problem", "one", "two"),
    [
        ("a, a.c", "overlap", "[a]", "[a, c]"),
        ("a.b[1], a", "overlap", "[a, b, [1]]", "[a]"),
        ("s, s", "overlap", "[s]", "[s]"),
        ("#x, a.c", "overlap", "[a]", "[a, c]"),
        ("l[0], l.x", "conflict", "[l, [0]]", "[l, x]"),
    ],
)
def test_overlapping_paths(text: str, problem: str, one: str, two: str) -> None:
    with pytest.raises(ValidationException) as info:
        project(parse_projection(text), ITEM, {"#x": "a"})
    assert info.value.message == (
        f"Invalid ProjectionExpression: Two document paths {problem} with each other; must remove or rewrite "
        f"one of these paths; path one: {one}, path two: {two}"
    )


def test_distinct_list_indexes_do_not_overlap() -> None:
    assert project(parse_projection("a.b[0], a.b[2]"), ITEM) == {
        "a": {"M": {"b": {"L": [{"S": "b0"}, {"S": "b2"}]}}}
    }
