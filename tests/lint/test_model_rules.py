"""Rules for limits the design loader also enforces. A design built in Python skips the loader, so lint
must catch these itself: each test loads the sound base design, breaks the model, and lints it."""

from __future__ import annotations

import yaml

from tablewright.design import loads
from tablewright.design.model import Index, KeyAttribute, Projection
from tablewright.design.yamlsource import load_source
from tablewright.lint import lint_design

from .designs import design

MODEL_ONLY = {"TW205", "TW404"}


def _rules(mutate) -> set[str]:  # type: ignore[no-untyped-def]
    text = design()
    model = loads(text, "base.yaml")
    mutate(model)
    return {f.rule for f in lint_design(model, load_source(text, "base.yaml"))}


def _add_gsis(count: int):  # type: ignore[no-untyped-def]
    def mutate(model) -> None:  # type: ignore[no-untyped-def]
        table = model.tables["orders"]
        for i in range(count):
            table.indexes[f"X{i}"] = Index(f"X{i}", KeyAttribute(f"X{i}PK"))

    return mutate


def _add_lsis(count: int):  # type: ignore[no-untyped-def]
    def mutate(model) -> None:  # type: ignore[no-untyped-def]
        table = model.tables["orders"]
        for i in range(count):
            table.indexes[f"L{i}"] = Index(f"L{i}", KeyAttribute("PK"), KeyAttribute(f"L{i}SK"), kind="local")

    return mutate


def test_more_than_20_gsis_is_an_error() -> None:
    assert "TW205" in _rules(_add_gsis(20))  # 21 with the base's GSI1
    assert "TW205" not in _rules(_add_gsis(19))


def test_more_than_5_lsis_is_an_error() -> None:
    assert "TW205" in _rules(_add_lsis(6))
    assert "TW205" not in _rules(_add_lsis(5))


def _include(count: int):  # type: ignore[no-untyped-def]
    def mutate(model) -> None:  # type: ignore[no-untyped-def]
        model.tables["orders"].indexes["GSI1"].projection = Projection(
            "INCLUDE", tuple(f"a{i}" for i in range(count))
        )

    return mutate


def test_more_than_100_include_attributes_is_an_error() -> None:
    assert "TW404" in _rules(_include(101))
    assert "TW404" not in _rules(_include(100))


def test_hits_are_located_at_their_yaml_lines() -> None:
    text = design({"patterns": {"order_by_id": {"served": {"consistent": True}}}})
    model = loads(text, "base.yaml")
    [finding] = [f for f in lint_design(model, load_source(text, "base.yaml")) if f.rule == "TW206"]
    lines = text.splitlines()
    pattern_line = next(i for i, line in enumerate(lines, 1) if line.strip() == "order_by_id:")
    served_line = next(i for i, line in enumerate(lines, 1) if i > pattern_line and line.strip() == "served:")
    assert (finding.file, finding.line) == ("base.yaml", served_line)
    assert yaml.safe_load(text)["patterns"]["order_by_id"]["served"]["consistent"] is True
