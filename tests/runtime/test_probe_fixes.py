"""Bugs found by probes of the runtime: typed items read through an index that does not project
their type, order checks over unprojected attributes, table settings on created tables, replacing
an item stored without a version, unique maps, and arguments of the wrong kind."""

from __future__ import annotations

import functools
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

import pytest

import tablewright
from tablewright.design import loads
from tablewright.runtime import (
    AmbiguousItemError,
    ConflictError,
    Runtime,
    UniquenessError,
)
from tablewright.runtime.check import CheckOptions, check_designs
from tablewright.runtime.samples import Example
from tablewright.runtime.verify import stored_records, verify_pattern

# -------------------------------------------------------------- typed items without their type

REPOS = """
entity_type_attribute: entityType
tables:
  accounts:
    partition_key: PK
    sort_key: SK
    indexes:
      ByOwner: {partition_key: GSI1PK, sort_key: GSI1SK, projection: PROJECTION}
entities:
  Repo:
    table: accounts
    entity_type: REPO
    attributes:
      owner: {type: string, required: true}
      name: {type: string, required: true}
      stars: {type: number}
    keys:
      table: {pk: "REPO#{owner}#{name}", sk: REPO}
      ByOwner: {pk: "ACCOUNT#{owner}", sk: "REPO#{name}"}
  Issue:
    table: accounts
    entity_type: ISSUE
    attributes:
      owner: {type: string, required: true}
      name: {type: string, required: true}
      number: {type: number, required: true}
    keys:
      table: {pk: "REPO#{owner}#{name}", sk: "ISSUE#{number}"}
      ByOwner: {pk: "ACCOUNT#{owner}", sk: "ISSUE#{name}#{number}"}
patterns:
  repos_of_owner:
    params: {owner: string}
    returns: Repo
    means: {where: "owner = :owner"}
    served: {op: query, index: ByOwner}
  everything_of_owner:
    params: {owner: string}
    returns: [Repo, Issue]
    means: {where: "owner = :owner"}
    served: {op: query, index: ByOwner}
  repos_by_stars:
    params: {owner: string}
    returns: Repo
    means: {where: "owner = :owner", order: stars desc}
    served: {op: query, index: ByOwner}
  top_repo:
    params: {owner: string}
    returns: Repo
    means: {where: "owner = :owner", order: stars desc, limit: 1}
    served: {op: query, index: ByOwner}
"""


def _repos(projection: str = "KEYS_ONLY") -> Runtime:
    rt = Runtime(loads(REPOS.replace("PROJECTION", projection)), tablewright.connect(), secret=b"t")
    rt.create_tables()
    rt.put("Repo", {"owner": "ada", "name": "engine", "stars": 5})
    rt.put("Issue", {"owner": "ada", "name": "engine", "number": 7})
    return rt


def test_a_typed_entity_read_through_a_keys_only_index_is_found_by_its_key_shape():
    page = _repos().run("repos_of_owner", {"owner": "ada"})
    assert [(r.entity, r.key) for r in page.items] == [("Repo", {"PK": "REPO#ada#engine", "SK": "REPO"})]


def test_an_include_projection_without_the_type_attribute_is_typed_by_key_shape():
    page = _repos("{include: [name]}").run("repos_of_owner", {"owner": "ada"})
    # owner is not projected: it comes back from the key (REPO#ada#engine, ACCOUNT#ada).
    assert [(r.entity, dict(r)) for r in page.items] == [("Repo", {"name": "engine", "owner": "ada"})]


def test_two_typed_entities_sharing_an_index_are_told_apart_where_their_keys_differ():
    page = _repos().run("everything_of_owner", {"owner": "ada"})
    assert sorted((r.entity, r.key["SK"]) for r in page.items) == [("Issue", "ISSUE#7"), ("Repo", "REPO")]


SAME_SHAPES = """
entity_type_attribute: entityType
tables:
  things:
    partition_key: PK
    sort_key: SK
    indexes:
      ByOwner: {partition_key: GSI1PK, sort_key: GSI1SK, projection: KEYS_ONLY}
entities:
  Repo:
    table: things
    entity_type: REPO
    attributes: {owner: {type: string, required: true}, name: {type: string, required: true}}
    keys:
      table: {pk: "OWNER#{owner}", sk: "{name}"}
      ByOwner: {pk: "ACCOUNT#{owner}", sk: "{name}"}
  Gist:
    table: things
    entity_type: GIST
    attributes: {owner: {type: string, required: true}, name: {type: string, required: true}}
    keys:
      table: {pk: "OWNER#{owner}", sk: "{name}"}
      ByOwner: {pk: "ACCOUNT#{owner}", sk: "{name}"}
patterns:
  repos_of_owner:
    params: {owner: string}
    returns: Repo
    means: {where: "owner = :owner"}
    served: {op: query, index: ByOwner}
"""


def test_typed_entities_whose_keys_have_one_shape_are_said_to_be_ambiguous_not_guessed():
    rt = Runtime(loads(SAME_SHAPES), tablewright.connect(), secret=b"t")
    rt.create_tables()
    rt.put("Gist", {"owner": "ada", "name": "notes"})
    with pytest.raises(AmbiguousItemError, match="fits Repo and Gist: project entityType"):
        rt.run("repos_of_owner", {"owner": "ada"})


def test_an_untyped_item_in_the_table_itself_is_skipped_when_ambiguous_not_raised():
    """Read from the table (which holds every attribute) an item without entityType is foreign data:
    one whose keys fit two entities must not stop a scan of the rest."""
    rt = Runtime(loads(SAME_SHAPES), tablewright.connect(), secret=b"t")
    rt.create_tables()
    rt.put("Repo", {"owner": "ada", "name": "engine"})
    rt.client.put_item(TableName="things", Item={"PK": {"S": "OWNER#bob"}, "SK": {"S": "x"}})
    assert [r.key["PK"] for r in stored_records(rt, ["Repo", "Gist"])] == ["OWNER#ada"]


# -------------------------------------------------------------- order over an unprojected attribute


def test_check_names_the_order_attribute_an_index_does_not_project():
    rt = Runtime(loads(REPOS.replace("PROJECTION", "KEYS_ONLY")), tablewright.connect(), secret=b"t")
    rt.create_tables()
    written = [
        rt.put("Repo", {"owner": "ada", "name": n, "stars": s}).record for n, s in (("a", 1), ("b", 9))
    ]
    verdict = verify_pattern(rt, "repos_by_stars", {"owner": "ada"}, written)
    assert not verdict.ok and not verdict.out_of_order
    assert verdict.summary() == "orders by stars, which index ByOwner does not project"


def test_a_limit_over_an_unprojected_order_names_the_attribute_beside_what_it_missed():
    rt = Runtime(loads(REPOS.replace("PROJECTION", "KEYS_ONLY")), tablewright.connect(), secret=b"t")
    rt.create_tables()
    written = [
        rt.put("Repo", {"owner": "ada", "name": n, "stars": s}).record for n, s in (("a", 1), ("b", 9))
    ]
    verdict = verify_pattern(rt, "top_repo", {"owner": "ada"}, written)
    assert verdict.missing and verdict.extra
    assert "orders by stars, which index ByOwner does not project" in verdict.summary()


def test_an_order_over_a_projected_attribute_is_still_checked():
    rt = _repos("ALL")
    written = [
        rt.put("Repo", {"owner": "ada", "name": n, "stars": s}).record for n, s in (("a", 1), ("b", 9))
    ]
    verdict = verify_pattern(
        rt, "repos_by_stars", {"owner": "ada"}, written + [rt.get("Repo", owner="ada", name="engine")]
    )
    assert verdict.out_of_order and verdict.summary() == "out of order"


# -------------------------------------------------------------- table settings on created tables

SETTINGS = """
tables:
  ledger:
    partition_key: PK
    pitr: true
    tags: {team: payments}
    deletion_protection: true
    encryption: aws_managed
entities:
  Entry:
    table: ledger
    attributes: {id: {type: string, required: true}}
    keys: {table: {pk: "E#{id}"}}
patterns:
  entry:
    params: {id: string}
    returns: Entry
    means: {where: "id = :id"}
    served: {op: get}
    examples: [{id: e1}]
samples:
  Entry: [{id: e1}]
"""


def _sent_create_tables(client) -> list[dict]:
    """The CreateTable requests ``client`` sends, as botocore sends them (its own event hook)."""
    sent: list[dict] = []
    client.meta.events.register(
        "provide-client-params.dynamodb.CreateTable", lambda params, **_: sent.append(dict(params))
    )
    return sent


def test_created_tables_get_the_designs_tags_encryption_protection_and_pitr():
    client = tablewright.connect()
    sent = _sent_create_tables(client)
    rt = Runtime(loads(SETTINGS), client, secret=b"t")
    rt.create_tables()
    (request,) = sent
    assert request["SSESpecification"] == {"Enabled": True, "SSEType": "KMS"}
    described = client.describe_table(TableName="ledger")["Table"]
    assert described["DeletionProtectionEnabled"] is True
    assert client.list_tags_of_resource(ResourceArn=described["TableArn"])["Tags"] == [
        {"Key": "team", "Value": "payments"}
    ]
    backups = client.describe_continuous_backups(TableName="ledger")["ContinuousBackupsDescription"]
    assert backups["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"] == "ENABLED"


def _check_on_an_endpoint(tmp_path: Path, design: str) -> tuple[dict, list[str]]:
    """``check``'s report for ``design`` on a served engine, and the tables left there afterwards."""
    from tablewright.engine import Engine
    from tablewright.server import ServerThread

    (tmp_path / "design.yaml").write_text(design)
    example = Example(design=tmp_path / "design.yaml", generator=None)
    engine = Engine()
    with ServerThread(functools.partial(engine.handle, encoded=True), request_timeout=2.0) as server:
        (report,) = check_designs([example], CheckOptions(endpoint=server.url, table_prefix="p-"))
        left = tablewright.connect(endpoint_url=server.url).list_tables()["TableNames"]
    engine.close()
    return report, left


def test_check_on_an_endpoint_removes_the_deletion_protected_tables_it_created(tmp_path: Path):
    report, left = _check_on_an_endpoint(tmp_path, SETTINGS)
    assert report["status"] == "pass", report
    assert "cleanup_errors" not in report and left == []


def test_check_on_an_endpoint_removes_a_table_whose_setting_was_refused(tmp_path: Path):
    refused = SETTINGS.replace(
        "    pitr: true\n", '    kinesis_stream: "arn:aws:kinesis:us-east-1:12:stream/x"\n'
    )
    report, left = _check_on_an_endpoint(tmp_path, refused)
    assert report["status"] == "fail" and "EnableKinesisStreamingDestination" in report["error"]
    assert left == []


# -------------------------------------------------------------- replacing an item without a version

DOCS = """
tables:
  docs: {partition_key: PK, sort_key: SK}
entities:
  Doc:
    table: docs
    version: rev
    attributes:
      id: {type: string, required: true}
      body: {type: string}
      rev: {type: number}
    keys:
      table: {pk: "D#{id}", sk: DOC}
"""


def _docs() -> Runtime:
    rt = Runtime(loads(DOCS), tablewright.connect(), secret=b"t")
    rt.create_tables()
    return rt


def _store_unversioned(rt: Runtime, **extra: dict) -> None:
    # As another tool writes it: no rev attribute (or a NULL one).
    item = {"PK": {"S": "D#d"}, "SK": {"S": "DOC"}, "id": {"S": "d"}, "body": {"S": "old"}, **extra}
    rt.client.put_item(TableName="docs", Item=item)


@pytest.mark.parametrize("extra", [{}, {"rev": {"NULL": True}}], ids=["absent", "null"])
def test_an_item_stored_without_a_version_is_replaced_with_expected_version_0(extra):
    rt = _docs()
    _store_unversioned(rt, **extra)
    rt.replace("Doc", {"id": "d", "body": "new"}, expected_version=0)
    assert rt.get("Doc", id="d") == {"id": "d", "body": "new", "rev": 1}
    with pytest.raises(ConflictError):  # it has a version now: 0 no longer names it
        rt.replace("Doc", {"id": "d", "body": "again"}, expected_version=0)


def test_expected_version_0_replaces_into_no_item_and_means_the_same_to_every_write():
    rt = _docs()
    rt.replace("Doc", {"id": "d", "body": "first"}, expected_version=0)
    assert rt.get("Doc", id="d")["rev"] == 1
    _store_unversioned(rt)
    rt.update("Doc", {"id": "d"}, {"body": "changed"}, expected_version=0)
    assert rt.get("Doc", id="d")["rev"] == 1
    _store_unversioned(rt)
    rt.transact([rt.tx_replace("Doc", {"id": "d", "body": "in a transaction"}, expected_version=0)])
    assert rt.get("Doc", id="d")["rev"] == 1
    _store_unversioned(rt)
    rt.delete("Doc", {"id": "d"}, expected_version=0)
    assert rt.get("Doc", id="d") is None


def test_replace_without_expected_version_says_0_names_an_unversioned_item():
    rt = _docs()
    _store_unversioned(rt)
    with pytest.raises(TypeError, match="0 for an item stored without a version"):
        rt.replace("Doc", {"id": "d", "body": "new"})


# -------------------------------------------------------------- unique maps

PROFILES = """
tables:
  profiles: {partition_key: PK}
entities:
  Profile:
    table: profiles
    attributes:
      id: {type: string, required: true}
      address: {type: map}
    keys: {table: {pk: "P#{id}"}}
    unique: [[address]]
"""


def test_a_unique_map_is_one_value_whatever_the_order_of_its_entries():
    rt = Runtime(loads(PROFILES), tablewright.connect(), secret=b"t")
    rt.create_tables()
    rt.put("Profile", {"id": "p1", "address": {"street": "Main", "number": 1}})
    with pytest.raises(UniquenessError):
        rt.put("Profile", {"id": "p2", "address": {"number": Decimal("1.0"), "street": "Main"}})


# -------------------------------------------------------------- arguments of the wrong kind


@pytest.mark.parametrize("now", [1_736_942_400, date(2025, 1, 15), 0], ids=["epoch", "date", "zero"])
def test_a_now_that_is_no_datetime_is_refused_naming_now(now):
    rt = _docs()
    with pytest.raises(TypeError, match="now must be a datetime"):
        rt.put("Doc", {"id": "d"}, now=now)
    with pytest.raises(TypeError, match="now must be a datetime"):
        rt.transact([rt.tx_put("Doc", {"id": "d"})], now=now)
    assert rt.get("Doc", id="d") is None


def test_transact_says_where_operations_come_from():
    rt = _docs()
    with pytest.raises(TypeError, match=r"\[0\] dict are not operations: build them with rt.tx_put"):
        rt.transact([{"put": 1}])
    with pytest.raises(ValueError, match="at least one operation .build them with rt.tx_put"):
        rt.transact([])
    rt.put("Doc", {"id": "d"}, now=datetime(2025, 1, 15, tzinfo=UTC))
