"""YAML merge keys (``<<: *anchor``) in design files: shared attribute sets written once."""

from __future__ import annotations

import yaml

from tablewright.design import DesignError, loads
from tablewright.design.yamlsource import load_source

DESIGN = """\
version: 1
name: shared-attributes
tables:
  main:
    partition_key: {name: pk, type: S}
    sort_key: {name: sk, type: S}
    billing: on_demand
entities:
  Invoice:
    table: main
    attributes: &audited
      tenant: {type: string, required: true}
      created_by: {type: string, max_length: 64}
      amount: {type: number, min: 0}
    keys:
      table: {pk: "T#{tenant}", sk: "INV#{amount}"}
  Refund:
    table: main
    attributes:
      <<: *audited
      amount: {type: number, max: 0}
      reason: string
    keys:
      table: {pk: "T#{tenant}", sk: "REF#{amount}"}
"""


def test_merged_attributes_load_and_own_keys_win() -> None:
    design = loads(DESIGN, "shared.yaml")
    refund = design.entities["Refund"]
    assert set(refund.attributes) == {"tenant", "created_by", "amount", "reason"}
    assert refund.attributes["tenant"].required
    assert refund.validate({"tenant": "t1", "amount": 5})  # max 0: its own amount won over the merged one
    assert not refund.validate({"tenant": "t1", "amount": -5, "created_by": "ops"})
    # The same data PyYAML's own merge gives.
    assert load_source(DESIGN, "f").data == yaml.safe_load(DESIGN)


def test_an_error_in_a_merged_value_points_where_it_is_written() -> None:
    broken = DESIGN.replace("created_by: {type: string, max_length: 64}", "created_by: {type: strnig}")
    try:
        loads(broken, "shared.yaml")
    except DesignError as error:
        found = sorted((problem.line, problem.message.split(" at ")[-1]) for problem in error.problems)
    else:
        raise AssertionError("a misspelt type in the anchored mapping loaded")
    # Both entities are wrong, and both are reported at the anchored mapping's line 13, where it is written.
    assert found == [
        (13, "entities/Invoice/attributes/created_by/type"),
        (13, "entities/Refund/attributes/created_by/type"),
    ]


def test_merge_lists_earlier_mappings_win_and_non_mappings_are_refused() -> None:
    text = "a: &a {x: 1, y: 1}\nb: &b {x: 2, z: 2}\nc:\n  <<: [*a, *b]\n"
    source = load_source(text, "f")
    assert source.data["c"] == {"x": 1, "y": 1, "z": 2} == yaml.safe_load(text)["c"]
    assert source.marks[("c", "x")] == (1, 11)
    try:
        load_source("a: &a 1\nb:\n  <<: *a\n", "f")
    except yaml.YAMLError as error:
        assert "mapping" in str(error) and "line 3" in str(error)
    else:
        raise AssertionError("merging a scalar loaded")
