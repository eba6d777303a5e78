"""Designs a tester found loading wrongly: an LSI on a table without a sort key (DynamoDB refuses the
table), a sparse GSI keyed directly on an optional attribute (refused although DynamoDB leaves items
without it out), and YAML 1.1 keys (`on:`, `yes:`) that became attributes named "True"."""

from __future__ import annotations

import pytest

from tablewright.design import DesignError, loads

LSI_WITHOUT_TABLE_SORT_KEY = """\
version: 1
tables:
  events:
    partition_key: {name: pk, type: S}
    indexes:
      by_time:
        kind: local
        partition_key: {name: pk, type: S}
        sort_key: {name: created, type: S}
entities:
  Ev:
    table: events
    attributes:
      pk: {type: string, required: true}
      created: {type: string, required: true, format: rfc3339}
    keys:
      table: {pk: "{pk}"}
      by_time: {pk: "{pk}", sk: "{created}"}
"""


def test_a_local_index_on_a_table_without_a_sort_key_is_refused_at_the_index_until_either_fix() -> None:
    with pytest.raises(DesignError) as refused:
        loads(LSI_WITHOUT_TABLE_SORT_KEY, "l1.yaml")
    [problem] = refused.value.problems
    assert (problem.file, problem.line, problem.column) == ("l1.yaml", 6, 7)  # `by_time:`
    assert "local index by_time needs a table with a sort key, and table events has none" in problem.message
    assert "give the table a sort_key, or make the index global" in problem.hint
    # Either fix loads.
    with_sort_key = LSI_WITHOUT_TABLE_SORT_KEY.replace(
        "    partition_key: {name: pk, type: S}\n    indexes:",
        "    partition_key: {name: pk, type: S}\n    sort_key: {name: sk, type: S}\n    indexes:",
    ).replace('table: {pk: "{pk}"}', 'table: {pk: "{pk}", sk: "EV"}')
    assert loads(with_sort_key).tables["events"].indexes["by_time"].kind == "local"
    made_global = LSI_WITHOUT_TABLE_SORT_KEY.replace("kind: local", "kind: global")
    assert loads(made_global).tables["events"].indexes["by_time"].kind == "global"


SPARSE = """\
version: 1
tables:
  t:
    partition_key: {{name: pk, type: S}}
    indexes:
      sparse:
        kind: global
        partition_key: {{name: flagged, type: S}}
        sort_key: {{name: pk, type: S}}
entities:
  E:
    table: t
    attributes:
      pk: {{type: string, required: true}}
      status: {{type: string, enum: [a, b]}}
      flagged: {flagged}
    keys:
      table: {{pk: "{{pk}}"}}
      sparse: {{pk: "{{flagged}}", sk: "{{pk}}", when: "{when}"}}
"""


def _sparse(flagged: str = "{type: string}", when: str = "flagged exists") -> str:
    return SPARSE.format(flagged=flagged, when=when)


def test_when_exists_on_an_optional_natural_index_key_loads_and_stays_refused_when_always_stored() -> None:
    # Items without `flagged` are left out of the index by DynamoDB itself: the condition is true.
    for when in ("flagged exists", "exists(flagged)", "flagged exists AND pk exists"):
        entry = loads(_sparse(when=when)).entities["E"].keys["sparse"]
        assert entry.compose({"pk": "p1"}) is None
        assert entry.compose({"pk": "p1", "flagged": "yes"}) is not None
    # Stored on every item: the index holds every item whatever `when` says.
    for always in (
        "{type: string, required: true}",
        "{type: string, default: 'no'}",
        "{type: string, computed: {template: 'F#{pk}'}}",
    ):
        with pytest.raises(DesignError) as refused:
            loads(_sparse(flagged=always), "c5.yaml")
        [problem] = refused.value.problems
        assert "its key attribute flagged is stored on every item" in problem.message
        assert (problem.file, problem.line) == ("c5.yaml", 19)


@pytest.mark.parametrize(
    "when",
    ["flagged <> 'x'", "status = 'a'", "flagged exists AND status exists", "flagged exists OR pk exists"],
)
def test_a_when_beyond_exists_on_an_optional_natural_index_key_is_refused_with_the_condition_to_write(
    when: str,
) -> None:
    with pytest.raises(DesignError) as refused:
        loads(_sparse(when=when), "c5.yaml")
    [problem] = refused.value.problems
    assert "DynamoDB indexes each of them whatever when says" in problem.message
    assert 'write when: "flagged exists"' in problem.hint
    assert (problem.file, problem.line) == ("c5.yaml", 19)


YAML_11_KEYS = """\
version: 1
tables:
  things: {partition_key: {name: id, type: S}}
entities:
  Thing:
    table: things
    attributes:
      id: {type: string, required: true}
      on: boolean
      off: boolean
      yes: string
      no: number
      0x1F: string
      pdm: {type: map, attributes: {200: boolean, 1.50: boolean}}
    keys:
      table: {pk: "{id}"}
"""


def test_unquoted_yaml_11_boolean_and_number_keys_are_the_names_written() -> None:
    thing = loads(YAML_11_KEYS).entities["Thing"]
    assert list(thing.attributes) == ["id", "on", "off", "yes", "no", "0x1F", "pdm"]
    assert list(thing.attributes["pdm"].attributes) == ["200", "1.50"]
    assert thing.attributes["on"].type == "boolean"


def test_an_unquoted_key_and_its_quoted_spelling_are_one_name() -> None:
    twice = YAML_11_KEYS.replace("      off: boolean\n", '      "on": boolean\n')
    with pytest.raises(DesignError) as refused:
        loads(twice, "y1.yaml")
    [problem] = refused.value.problems
    assert "duplicate key 'on'" in problem.message and (problem.line, problem.column) == (10, 7)


@pytest.mark.parametrize(("key", "found"), [("[a, b]", "a list"), ("{a: 1}", "a mapping")])
def test_a_mapping_key_that_is_a_list_or_a_mapping_is_refused_where_it_is_written(
    key: str, found: str
) -> None:
    text = YAML_11_KEYS.replace("      off: boolean\n", f"      ? {key}\n      : boolean\n")
    with pytest.raises(DesignError) as refused:
        loads(text, "y1.yaml")
    [problem] = refused.value.problems
    assert f"a mapping key must be text, not {found}" in problem.message
    assert (problem.file, problem.line, problem.column) == ("y1.yaml", 10, 9)
