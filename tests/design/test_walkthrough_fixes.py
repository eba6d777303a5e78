"""Found writing the GitHub model of "The DynamoDB Book" as a design: a count written `10k` reported
twice (the second time as Python's "invalid literal for int()"), an `entity_type` written to no
attribute, a zero-padded issue number whose bounds allow more digits than its padding (loaded, then
every write of a large number refused), and `tablewright init` answers that silently wrote a design
`check` cannot pass."""

from __future__ import annotations

import pytest

from tablewright.design import DesignError, loads
from tablewright.design.scaffold import from_answers, parse_entity

VOLUMES = """\
tables: {things: {partition_key: PK}}
entities: {Thing: {table: things, attributes: {PK: string}}}
volumes:
  entities:
    Thing: {items: 10k, growth_per_month: 2.5M, writes: 1/s}
"""


def _problems(text: str) -> list:
    with pytest.raises(DesignError) as caught:
        loads(text, "design.yaml")
    return caught.value.problems


def test_a_count_with_a_thousands_suffix_is_one_problem_with_the_number_to_write() -> None:
    problems = _problems(VOLUMES)
    assert [p.line for p in problems] == [5, 5]
    assert not any("invalid literal" in p.message for p in problems)
    assert "write 10000 " in problems[0].hint
    assert "write 2500000 " in problems[1].hint


ENTITY_TYPE = """\
{top}tables: {{accounts: {{partition_key: PK, sort_key: SK}}}}
entities:
  User:
    table: accounts
    entity_type: {kind}
    attributes: {{username: {{type: string, required: true}}}}
    keys: {{table: {{pk: "ACCOUNT#{{username}}", sk: "ACCOUNT#{{username}}"}}}}
"""


def test_an_entity_type_with_no_attribute_to_hold_it_is_refused_at_its_line() -> None:
    (problem,) = _problems(ENTITY_TYPE.format(top="", kind="USER"))
    assert problem.line == 5
    assert "'USER' of User names no attribute" in problem.message
    assert "entity_type_attribute" in problem.hint


@pytest.mark.parametrize(
    ("top", "kind"),
    [("entity_type_attribute: entityType\n", "USER"), ("", "{attribute: kind, value: USER}")],
)
def test_an_entity_type_with_its_attribute_is_written_on_every_item(top: str, kind: str) -> None:
    design = loads(ENTITY_TYPE.format(top=top, kind=kind))
    user = design.entities["User"]
    assert user.entity_type_attribute in ("entityType", "kind")
    assert user.entity_type == "USER"


@pytest.mark.parametrize(
    ("answers", "said"),
    [
        (["Repo:x=number,x=string"], "attribute 'x' is given twice"),
        (["Repo:repo_id=number,name"], "repo_id is Repo's id"),
        (["Repo:name", "Issue:repo_id=number"], "Issue: repo_id is Repo's id"),
        (["Order:total=number", "ORDER:note"], "Order and ORDER would share the key prefix 'ORDER'"),
        (["Repo:name", "OrderLine:a", "Orderline:b"], "would share the key prefix 'ORDERLINE'"),
    ],
)
def test_init_answers_that_would_write_a_wrong_design_are_refused(answers: list[str], said: str) -> None:
    with pytest.raises(ValueError, match=said):
        from_answers("shop", [parse_entity(a) for a in answers])


def test_init_says_what_a_plain_attribute_name_is() -> None:
    with pytest.raises(ValueError, match=r"letters, digits and _"):
        parse_entity("Repo:repo-name")


PADDED = """\
tables: {issues: {partition_key: PK, sort_key: SK}}
entities:
  Issue:
    table: issues
    attributes:
      repo: {type: string, required: true}
      number: {type: number, required: true, min: %s, max: %s}
    keys: {table: {pk: "REPO#{repo}", sk: "ISSUE#{number:07}"}}
"""


def test_a_padding_narrower_than_the_bounds_is_refused_where_the_template_is() -> None:
    (problem,) = _problems(PADDED % (1, 99999999))
    assert problem.line == 8
    assert "pads number to 7 digits, but Issue.number may be up to 99999999 (8 digits)" in problem.message
    assert problem.hint == "widen the padding to :08, or lower max to 9999999"


def test_a_negative_lower_bound_under_zero_padding_is_refused() -> None:
    (problem,) = _problems(PADDED % (-5, 9999999))
    assert "may be -5" in problem.message


def test_bounds_that_fit_the_padding_load() -> None:
    assert loads(PADDED % (1, 9999999)).entities["Issue"].attributes["number"].max == 9999999
