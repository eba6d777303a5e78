"""TW208 (unique-repeats-table-key): a ``unique`` constraint holding every field of the entity's
table key is kept by the key already, yet the runtime writes a marker item per value for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablewright.lint import lint_file, lint_text

ACCOUNTS = """\
version: 1
name: accounts
tables:
  accounts:
    partition_key: {{name: PK, type: S}}
    sort_key: {{name: SK, type: S}}
entities:
  Account:
    table: accounts
    attributes:
      org: {{type: string, required: true}}
      account_id: {{type: string, required: true}}
      email: {{type: string, required: true}}
    keys:
      table: {{pk: "{pk}", sk: "ACCOUNT#{{account_id}}"}}
    unique: {unique}
volumes:
  entities:
    Account: {{items: 100000, item_size: 500, writes: 1000/day}}
"""
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _tw208(unique: str, pk: str = "ORG#{org}") -> list:
    text = ACCOUNTS.format(unique=unique, pk=pk)
    return [f for f in lint_text(text, "accounts.yaml") if f.rule == "TW208"]


def test_a_constraint_holding_every_table_key_field_is_reported_at_it_with_its_cost() -> None:
    [finding] = _tw208("[[email], [org, account_id]]")
    assert (finding.severity, finding.line, finding.name) == ("warning", 16, "unique-repeats-table-key")
    assert finding.message.startswith(
        "unique constraint [org, account_id] of Account holds every field of its table key (account_id, org)"
    )
    assert "/month at the declared volumes" in finding.message
    assert "marker item" in finding.why and "Remove the constraint" in finding.fix


def test_a_constraint_with_more_than_the_key_fields_is_reported_too() -> None:
    [finding] = _tw208("[[account_id, org, email]]")
    assert "[account_id, org, email]" in finding.message


@pytest.mark.parametrize(
    "unique, pk",
    [
        pytest.param("[[account_id]]", "ORG#{org}", id="one key field: unique across orgs, not implied"),
        pytest.param("[[email]]", "ORG#{org}", id="an attribute outside the key"),
        pytest.param("[[email]]", "ACCOUNTS", id="a constant partition key"),
    ],
)
def test_a_constraint_the_key_does_not_imply_is_quiet(unique: str, pk: str) -> None:
    assert _tw208(unique, pk) == []


def test_the_example_with_unique_constraints_gets_no_false_positive() -> None:
    assert [f for f in lint_file(EXAMPLES / "woms" / "design.yaml") if f.rule == "TW208"] == []


def test_the_configuration_example_in_the_docs_names_rules_that_exist() -> None:
    """docs/lint.md's example set a severity for TW105, which no rule is: copied, it was refused."""
    import re
    from pathlib import Path

    import yaml

    from tablewright.lint.config import LintConfig

    text = (Path(__file__).resolve().parents[2] / "docs" / "lint.md").read_text(encoding="utf-8")
    (example,) = [
        block for block in re.findall(r"```yaml\n(.*?)```", text, re.S) if block.startswith("lint:")
    ]
    config = LintConfig.from_mapping(yaml.safe_load(example)["lint"])
    assert config.severity and config.disable
