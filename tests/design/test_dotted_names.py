"""An attribute whose name holds a dot cannot be named by a predicate: ``first.name`` there is member
``name`` of map ``first``, as in DynamoDB's own expressions. A design whose filter, meaning or sparse
condition would read it that way is refused where it says so, instead of matching nothing."""

from __future__ import annotations

import pytest

from tablewright.design import DesignError, loads

DESIGN = """
version: 1
tables:
  main: {{partition_key: PK, sort_key: SK, indexes: {{by_first: {{partition_key: GK}}}}}}
entities:
  Person:
    table: main
    attributes:
      id: {{type: string, required: true}}
      first.name: {{type: string}}
      profile: {{type: map}}
    keys:
      table: {{pk: "P#{{id}}", sk: "PERSON"}}
      by_first: {{pk: "F#{{id}}", when: "{when}"}}
patterns:
  by_first:
    params: {{id: string, fn: string}}
    returns: Person
    means: {{where: "id = :id AND {where} = :fn"}}
    served: {{op: query, filter: "{where} = :fn"}}
"""


def test_a_filter_naming_a_dotted_attribute_is_refused_at_its_place() -> None:
    with pytest.raises(DesignError) as refused:
        loads(DESIGN.format(when="attribute_exists(profile)", where="first.name"))
    text = str(refused.value)
    assert "<design>:19:" in text and "<design>:20:" in text  # the meaning's line and the filter's
    assert "declares an attribute named 'first.name'" in text and "first_name" in text
    assert text.count("which a predicate cannot name") == 2


def test_a_sparse_condition_naming_it_is_refused_too() -> None:
    with pytest.raises(DesignError, match="declares an attribute named 'first.name'"):
        loads(DESIGN.format(when="first.name <> ''", where="profile.first"))


def test_a_path_into_a_map_is_still_a_path() -> None:
    design = loads(DESIGN.format(when="attribute_exists(profile)", where="profile.first"))
    assert design.patterns["by_first"].served.filter.paths == {"profile.first"}
