"""Table settings DynamoDB accepts and then ignores, or refuses: a TTL that names no attribute, a
space-padded one or a key that is not a Number; on-demand billing given capacity units. Refused at
their place when the design loads."""

from __future__ import annotations

import pytest

from tablewright.design import DesignError, loads

DESIGN = """
version: 1
tables:
  main:
    partition_key: PK
    sort_key: {{name: SK, type: {sk_type}}}
    indexes: {{by_day: {{partition_key: day, sort_key: {{name: at, type: S}}}}}}
    {setting}
entities:
  Thing:
    table: main
    attributes:
      id: {{type: string, required: true}}
      expires: {{type: number, format: epoch_s}}
    keys:
      table: {{pk: "T#{{id}}", sk: "{sk}"}}
"""


def design(setting: str, sk_type: str = "S") -> str:
    return DESIGN.format(setting=setting, sk_type=sk_type, sk="{id}" if sk_type == "S" else "{expires}")


@pytest.mark.parametrize(
    ("setting", "said"),
    [
        ('ttl: ""', "ttl names no attribute"),
        ('ttl: " expires"', "ttl ' expires' begins or ends with a space"),
        ("ttl: PK", "ttl PK is the partition key, of type S: TTL reads only Numbers"),
        ("ttl: at", "ttl at is the index by_day's sort key, of type S"),
        ("billing: {mode: on_demand, read: 5, write: 5}", "on-demand billing takes no read or write units"),
    ],
)
def test_a_setting_dynamodb_would_ignore_or_refuse_is_refused_at_its_place(setting, said) -> None:
    with pytest.raises(DesignError) as refused:
        loads(design(setting))
    assert said in str(refused.value)
    assert "<design>:8:" in str(refused.value)  # the setting's own line


def test_a_number_key_may_be_the_ttl_and_plain_settings_load() -> None:
    assert loads(design("ttl: SK", sk_type="N")).tables["main"].ttl == "SK"
    assert loads(design("ttl: expires")).tables["main"].ttl == "expires"
    assert loads(design("billing: {mode: provisioned, read: 5, write: 5}")).tables["main"].billing.read == 5
