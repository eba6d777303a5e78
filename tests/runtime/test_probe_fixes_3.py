"""Bugs found by probes of the runtime (third round): ``update_tables`` leaving an existing table
without the design's settings, records read through a keys-only index carrying none of the values
their keys spell, and unique list values claiming one marker per spelling of a number."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

import tablewright
from tablewright.design import loads
from tablewright.runtime import Runtime, UniquenessError

# -------------------------------------------------------------- settings of an existing table

POLICY = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Deny", "Principal": "*", "Action": "dynamodb:DeleteTable", "Resource": "*"}],
}
SETTINGS = f"""
tables:
  ledger:
    partition_key: PK
    pitr: true
    tags: {{team: payments, tier: gold}}
    deletion_protection: true
    encryption: aws_managed
    contributor_insights: true
    resource_policy: {json.dumps(POLICY)}
entities:
  Entry:
    table: ledger
    attributes: {{id: {{type: string, required: true}}}}
    keys: {{table: {{pk: "E#{{id}}"}}}}
"""


def _sent_operations(client) -> list[str]:
    """The operations ``client`` sends from now on, by name (botocore's own event hook)."""
    sent: list[str] = []
    client.meta.events.register("before-call.dynamodb.*", lambda model, **_: sent.append(model.name))
    return sent


def _bare_ledger(client) -> str:
    """The ``ledger`` table made by hand, without the design's settings; returns its ARN."""
    client.create_table(
        TableName="ledger",
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
        Tags=[{"Key": "team", "Value": "ops"}, {"Key": "owner", "Value": "someone"}],
    )
    return client.describe_table(TableName="ledger")["Table"]["TableArn"]


def test_update_tables_gives_an_existing_table_the_designs_settings():
    client = tablewright.connect()
    arn = _bare_ledger(client)
    Runtime(loads(SETTINGS), client, secret=b"t").update_tables()
    described = client.describe_table(TableName="ledger")["Table"]
    assert described["DeletionProtectionEnabled"] is True
    assert described["SSEDescription"]["SSEType"] == "KMS"
    tags = {t["Key"]: t["Value"] for t in client.list_tags_of_resource(ResourceArn=arn)["Tags"]}
    # The design's tags set, a tag it does not name kept.
    assert tags == {"team": "payments", "tier": "gold", "owner": "someone"}
    backups = client.describe_continuous_backups(TableName="ledger")["ContinuousBackupsDescription"]
    assert backups["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"] == "ENABLED"
    assert client.describe_contributor_insights(TableName="ledger")["ContributorInsightsStatus"] == "ENABLED"
    assert json.loads(client.get_resource_policy(ResourceArn=arn)["Policy"]) == POLICY


def test_update_tables_sends_no_settings_call_for_what_already_matches():
    client = tablewright.connect()
    _bare_ledger(client)
    rt = Runtime(loads(SETTINGS), client, secret=b"t")
    assert "ledger: UpdateContinuousBackups" in rt.update_tables()
    sent = _sent_operations(client)
    assert rt.update_tables() == []
    changing = {"TagResource", "UpdateTable", "PutResourcePolicy", "UpdateContinuousBackups"}
    assert changing.isdisjoint(sent), sent


def test_update_tables_tags_only_the_tags_that_differ():
    client = tablewright.connect()
    _bare_ledger(client)
    sent = _sent_operations(client)
    done = Runtime(loads(SETTINGS), client, secret=b"t").update_tables()
    assert "ledger: TagResource team, tier" in done
    assert sent.count("TagResource") == 1


# -------------------------------------------------------------- values recovered from keys

REPOS = """
entity_type_attribute: entityType
tables:
  accounts:
    partition_key: PK
    sort_key: SK
    indexes:
      ByOwner: {partition_key: GSI1PK, sort_key: GSI1SK, projection: KEYS_ONLY}
      All: {partition_key: GSI2PK, sort_key: GSI2SK, projection: KEYS_ONLY}
entities:
  Repo:
    table: accounts
    entity_type: REPO
    attributes:
      owner: {type: string, required: true}
      name: {type: string, required: true}
    keys:
      table: {pk: "REPO#{owner}#{name}", sk: REPO}
      ByOwner: {pk: "ACCOUNT#{owner}", sk: "REPO#{name}"}
      All: {pk: REPOS, sk: "{owner}#{name}"}
patterns:
  repos_of_owner:
    params: {owner: string}
    returns: Repo
    means: {where: "owner = :owner"}
    served: {op: query, index: ByOwner}
  all_repos:
    returns: Repo
    means: {where: "owner exists"}
    served: {op: scan, index: All}
"""


def _runtime(design: str) -> Runtime:
    rt = Runtime(loads(design), tablewright.connect(), secret=b"t")
    rt.create_tables()
    return rt


def test_a_keys_only_read_gives_back_the_values_its_keys_spell():
    rt = _runtime(REPOS)
    rt.put("Repo", {"owner": "ada", "name": "engine"})
    (record,) = rt.run("repos_of_owner", {"owner": "ada"}).items
    assert dict(record) == {"owner": "ada", "name": "engine"}


def test_a_value_with_the_separator_is_recovered_only_where_its_key_splits_one_way():
    rt = _runtime(REPOS)
    rt.put("Repo", {"owner": "ada", "name": "x#y"})
    rt.put("Repo", {"owner": "bob", "name": "engine"})
    # ACCOUNT#ada and REPO#x#y spell each value alone: both come back.
    (record,) = rt.run("repos_of_owner", {"owner": "ada"}).items
    assert dict(record) == {"owner": "ada", "name": "x#y"}
    # ada#x#y may be (ada, x#y) or (ada#x, y): neither is guessed; bob#engine splits one way.
    records = {r.key["PK"]: dict(r) for r in rt.run("all_repos", {}).items}
    assert records == {"REPO#ada#x#y": {}, "REPO#bob#engine": {"owner": "bob", "name": "engine"}}


def test_a_whole_item_is_not_given_a_value_a_stale_key_still_spells():
    rt = _runtime(REPOS)
    # Written by another tool: no name attribute, though its keys were composed from one.
    item = {
        "PK": "REPO#ada#engine",
        "SK": "REPO",
        "entityType": "REPO",
        "owner": "ada",
        "GSI1PK": "ACCOUNT#ada",
    }
    rt.client.put_item(TableName="accounts", Item={k: {"S": v} for k, v in item.items()})
    assert dict(rt.get("Repo", owner="ada", name="engine")) == {"entityType": "REPO", "owner": "ada"}


TYPED = """
tables:
  things:
    partition_key: PK
    sort_key: SK
    indexes:
      Keys: {partition_key: GSI1PK, sort_key: GSI1SK, projection: KEYS_ONLY}
entities:
  Thing:
    table: things
    attributes:
      id: {type: string, required: true}
      seq: {type: number, required: true}
      price: {type: number, required: true}
      code: {type: string, required: true}
      live: {type: boolean, required: true}
      at: {type: string, format: rfc3339, required: true}
      label: {type: string, required: true}
    keys:
      table: {pk: "T#{id}", sk: "T"}
      Keys: {pk: "THINGS", sk: "{seq:05}#{price}#{code:04}#{live}#{at}#{label|lower}"}
patterns:
  things:
    returns: Thing
    means: {where: "id exists"}
    served: {op: scan, index: Keys}
"""


def test_recovered_values_have_their_attributes_types_and_lost_ones_are_left_out():
    rt = _runtime(TYPED)
    values = {"id": "t1", "seq": 42, "price": Decimal("1.5"), "code": "007", "live": True}
    rt.put("Thing", {**values, "at": "2024-01-02T03:04:05Z", "label": "Big"})
    (record,) = rt.run("things", {}).items
    # The sort key has a filtered field (|lower): it is not read at all; only the table key is.
    assert dict(record) == {"id": "t1"}


def test_zero_padded_numbers_decimals_booleans_and_timestamps_come_back_typed():
    design = TYPED.replace("#{label|lower}", "").replace("#{code:04}", "")
    design = design.replace("label: {type: string, required: true}", "label: string")
    rt = _runtime(design.replace("code: {type: string, required: true}", "code: string"))
    values = {"id": "t1", "seq": 42, "price": Decimal("1.5"), "live": True, "at": "2024-01-02T03:04:05Z"}
    rt.put("Thing", values)
    (record,) = rt.run("things", {}).items
    assert dict(record) == values
    assert isinstance(record["seq"], int) and record["live"] is True


def test_a_zero_padded_string_is_left_out():
    design = TYPED.replace('sk: "{seq:05}#{price}#{code:04}#{live}#{at}#{label|lower}"', 'sk: "C#{code:04}"')
    rt = _runtime(design)
    rt.put(
        "Thing",
        {
            "id": "t1",
            "seq": 1,
            "price": 1,
            "code": "007",
            "live": False,
            "at": "2024-01-02T03:04:05Z",
            "label": "x",
        },
    )
    (record,) = rt.run("things", {}).items
    # "007" and "7" both store as C#0007: the key cannot say which.
    assert dict(record) == {"id": "t1"}


# -------------------------------------------------------------- unique lists

UNIQUE_LISTS = """
tables:
  main: {partition_key: PK, sort_key: SK}
entities:
  Acct:
    table: main
    attributes:
      id: {type: string, required: true}
      dims: list
    keys:
      table: {pk: "A#{id}", sk: "A"}
    unique: [[dims]]
"""


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ([1], [Decimal("1.0")]),
        ([Decimal("2.50"), "a"], [Decimal("2.5"), "a"]),
        ([[1, {"n": Decimal("3.0")}]], [[Decimal("1"), {"n": 3}]]),
    ],
)
def test_a_unique_list_claims_one_marker_however_its_numbers_are_spelled(first, second):
    rt = _runtime(UNIQUE_LISTS)
    rt.put("Acct", {"id": "1", "dims": first})
    with pytest.raises(UniquenessError):
        rt.put("Acct", {"id": "2", "dims": second})


def test_a_unique_list_of_texts_keeps_the_marker_it_always_had():
    rt = _runtime(UNIQUE_LISTS)
    rt.put("Acct", {"id": "1", "dims": ["a", "b"]})
    markers = [
        i["PK"]["S"] for i in rt.client.scan(TableName="main")["Items"] if i["PK"]["S"].startswith("_tw#")
    ]
    assert markers == [f"_tw#unique#Acct#dims#{['a', 'b']}"]
