"""``served.sort`` operators however a design spells them: ours, DynamoDB's symbols, ElectroDB's names."""

from __future__ import annotations

import pytest

from tablewright.design import DesignError, loads

DESIGN = """
version: 1
name: spellings
tables:
  main: {name: Main, partition_key: {name: PK, type: S}, sort_key: {name: SK, type: S}}
entities:
  Reading:
    table: main
    attributes: {device: string, at: string}
    keys:
      table: {pk: "DEV#{device}", sk: "AT#{at}"}
patterns:
  p:
    params: {device: string, at: string}
    returns: Reading
    means: {where: "device = :device"}
    served: {op: query, sort: {%s: %s}}
"""


@pytest.mark.parametrize(
    ("spelling", "op"),
    [
        ("ge", "ge"),
        ('">="', "ge"),
        ("gte", "ge"),
        ("lte", "le"),
        ('"<="', "le"),
        ('"<"', "lt"),
        ('">"', "gt"),
        ('"="', "eq"),
        ("begins", "begins_with"),
        ("begins_with", "begins_with"),
    ],
)
def test_each_spelling_is_one_operator(spelling, op):
    design = loads(DESIGN % (spelling, '":at"'))
    assert design.patterns["p"].served.sort.op == op


def test_an_unknown_operator_is_refused_where_it_is_written():
    with pytest.raises(DesignError, match=r"unknown key 'above' in patterns/p/served/sort"):
        loads(DESIGN % ("above", '":at"'))
