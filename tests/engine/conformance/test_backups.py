"""On-demand backups and point-in-time recovery, restored for real.

Reference: API Reference CreateBackup, DescribeBackup, ListBackups, DeleteBackup,
RestoreTableFromBackup, UpdateContinuousBackups, DescribeContinuousBackups,
RestoreTableToPointInTime; Developer Guide "Restoring a DynamoDB table from a backup"
(what a restored table keeps), "Point-in-time recovery".
"""

from __future__ import annotations

import datetime
import time

import pytest

from ._support import moto_differs, put_all, raises_dynamodb


def _items(client, table: str) -> dict[str, dict]:
    return {
        i["pk"]["S"] + "/" + i["sk"]["S"]: i
        for i in client.scan(TableName=table, ConsistentRead=True)["Items"]
    }


def _row(pk: str, sk: str, **extra) -> dict:
    item = {"pk": {"S": pk}, "sk": {"S": sk}, "gpk": {"S": "all"}, "gsk": {"N": str(len(extra))}}
    item.update({k: {"S": v} for k, v in extra.items()})
    return item


def test_backup_is_a_copy_that_restores_items_and_indexes(client, make_table):
    table = make_table("gsi", "orders")
    put_all(client, table, [_row("a", "1", note="first"), _row("b", "2")])
    details = client.create_backup(TableName=table, BackupName="before-cleanup")["BackupDetails"]
    assert details["BackupName"] == "before-cleanup" and details["BackupType"] == "USER"
    assert details["BackupArn"].startswith(
        client.describe_table(TableName=table)["Table"]["TableArn"] + "/backup/"
    )
    assert details["BackupStatus"] in ("CREATING", "AVAILABLE")
    # Changes after the backup are not in it.
    client.delete_item(TableName=table, Key={"pk": {"S": "a"}, "sk": {"S": "1"}})
    client.put_item(TableName=table, Item=_row("c", "3"))

    restored = client.restore_table_from_backup(
        TargetTableName="orders_restored", BackupArn=details["BackupArn"]
    )
    description = restored["TableDescription"]
    assert description["TableName"] == "orders_restored"
    assert description["RestoreSummary"]["SourceBackupArn"] == details["BackupArn"]
    client.get_waiter("table_exists").wait(TableName="orders_restored")
    assert set(_items(client, "orders_restored")) == {"a/1", "b/2"}
    assert _items(client, "orders_restored")["a/1"]["note"] == {"S": "first"}
    by_index = client.query(
        TableName="orders_restored",
        IndexName="gsi1",
        KeyConditionExpression="gpk = :g",
        ExpressionAttributeValues={":g": {"S": "all"}},
    )
    assert by_index["Count"] == 2
    assert set(_items(client, table)) == {"b/2", "c/3"}  # the source is untouched


@moto_differs("moto lists USER backups for BackupType=SYSTEM")
def test_backup_described_listed_filtered_and_deleted(client, make_table):
    first = make_table("hash_range_s", "first")
    second = make_table("hash_range_s", "second")
    put_all(client, first, [{"pk": {"S": "x"}, "sk": {"S": "1"}}])
    one = client.create_backup(TableName=first, BackupName="one")["BackupDetails"]["BackupArn"]
    two = client.create_backup(TableName=second, BackupName="two")["BackupDetails"]["BackupArn"]

    found = client.describe_backup(BackupArn=one)["BackupDescription"]
    assert found["BackupDetails"]["BackupArn"] == one
    assert found["SourceTableDetails"]["TableName"] == first and found["SourceTableDetails"]["ItemCount"] == 1
    assert [k["AttributeName"] for k in found["SourceTableDetails"]["KeySchema"]] == ["pk", "sk"]

    arns = lambda **filters: [s["BackupArn"] for s in client.list_backups(**filters)["BackupSummaries"]]  # noqa: E731
    assert set(arns()) == {one, two}
    assert arns(TableName=first) == [one]
    assert arns(BackupType="SYSTEM") == []
    assert set(arns(BackupType="ALL")) == {one, two}
    future = datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=1)
    assert arns(TimeRangeLowerBound=future) == []
    page = client.list_backups(Limit=1)
    assert len(page["BackupSummaries"]) == 1 and "LastEvaluatedBackupArn" in page
    rest = client.list_backups(ExclusiveStartBackupArn=page["LastEvaluatedBackupArn"])["BackupSummaries"]
    assert {s["BackupArn"] for s in page["BackupSummaries"] + rest} == {one, two}

    deleted = client.delete_backup(BackupArn=one)["BackupDescription"]["BackupDetails"]
    assert deleted["BackupStatus"] == "DELETED"
    assert arns() == [two]
    with raises_dynamodb("BackupNotFoundException", one):
        client.describe_backup(BackupArn=one)
    with raises_dynamodb("BackupNotFoundException"):
        client.restore_table_from_backup(TargetTableName="again", BackupArn=one)


def test_backup_errors(client, make_table):
    table = make_table("hash_s", "kept")
    with raises_dynamodb("TableNotFoundException", "no_such_table"):
        client.create_backup(TableName="no_such_table", BackupName="nothing")
    arn = client.create_backup(TableName=table, BackupName="kept-backup")["BackupDetails"]["BackupArn"]
    with raises_dynamodb("TableAlreadyExistsException", table):
        client.restore_table_from_backup(TargetTableName=table, BackupArn=arn)


@moto_differs("moto fails on BillingModeOverride (KeyError)")
def test_backup_outlives_its_table_and_restore_takes_overrides(client, make_table):
    table = make_table("gsi", "gone")
    put_all(client, table, [_row("a", "1")])
    arn = client.create_backup(TableName=table, BackupName="last-copy")["BackupDetails"]["BackupArn"]
    client.delete_table(TableName=table)
    client.get_waiter("table_not_exists").wait(TableName=table)
    restored = client.restore_table_from_backup(
        TargetTableName="gone_again",
        BackupArn=arn,
        BillingModeOverride="PAY_PER_REQUEST",
        GlobalSecondaryIndexOverride=[],
    )["TableDescription"]
    assert restored["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert "GlobalSecondaryIndexes" not in client.describe_table(TableName="gone_again")["Table"]
    assert set(_items(client, "gone_again")) == {"a/1"}


# ----------------------------------------------------------------------------------- point in time


def test_continuous_backups_of_a_new_table(client, make_table):
    # Gap 14: ContinuousBackupsStatus is ENABLED for every table (on-demand backups); PITR is off.
    table = make_table("hash_s", "fresh")
    found = client.describe_continuous_backups(TableName=table)["ContinuousBackupsDescription"]
    assert found["ContinuousBackupsStatus"] == "ENABLED"
    assert found["PointInTimeRecoveryDescription"] == {"PointInTimeRecoveryStatus": "DISABLED"}
    with raises_dynamodb("TableNotFoundException", "no_such_table_xyz"):
        client.describe_continuous_backups(TableName="no_such_table_xyz")
    arn = client.describe_table(TableName=table)["Table"]["TableArn"]
    assert client.describe_continuous_backups(TableName=arn)["ContinuousBackupsDescription"] == found


def _enable_pitr(client, table: str) -> dict:
    return client.update_continuous_backups(
        TableName=table, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True}
    )["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]


def _pause_past_a_second() -> datetime.datetime:
    """A moment strictly between the writes before and after it, whole seconds apart (the wire's
    timestamps may carry seconds only)."""
    time.sleep(1.05)
    moment = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    time.sleep(1.05)
    return moment


@moto_differs("moto keeps no history; its LatestRestorableDateTime stays at the time PITR was enabled")
def test_restore_to_a_point_in_time_undoes_later_changes(client, make_table):
    table = make_table("gsi", "ledger")
    put_all(client, table, [_row("a", "1", v="old"), _row("b", "2"), _row("c", "3")])
    pitr = _enable_pitr(client, table)
    assert pitr["PointInTimeRecoveryStatus"] == "ENABLED"
    moment = _pause_past_a_second()
    client.delete_item(TableName=table, Key={"pk": {"S": "b"}, "sk": {"S": "2"}})
    client.put_item(TableName=table, Item=_row("a", "1", v="new"))
    client.put_item(TableName=table, Item=_row("d", "4"))
    client.update_item(
        TableName=table,
        Key={"pk": {"S": "c"}, "sk": {"S": "3"}},
        UpdateExpression="SET gpk = :other",
        ExpressionAttributeValues={":other": {"S": "elsewhere"}},
    )
    client.transact_write_items(
        TransactItems=[{"Delete": {"TableName": table, "Key": {"pk": {"S": "a"}, "sk": {"S": "1"}}}}]
    )

    window = client.describe_continuous_backups(TableName=table)["ContinuousBackupsDescription"]
    earliest = window["PointInTimeRecoveryDescription"]["EarliestRestorableDateTime"]
    assert earliest <= moment <= window["PointInTimeRecoveryDescription"]["LatestRestorableDateTime"]

    restored = client.restore_table_to_point_in_time(
        SourceTableName=table, TargetTableName="ledger_then", RestoreDateTime=moment
    )["TableDescription"]
    assert restored["RestoreSummary"]["SourceTableArn"].endswith(":table/ledger")
    client.get_waiter("table_exists").wait(TableName="ledger_then")
    then = _items(client, "ledger_then")
    assert set(then) == {"a/1", "b/2", "c/3"} and then["a/1"]["v"] == {"S": "old"}
    by_index = client.query(
        TableName="ledger_then",
        IndexName="gsi1",
        KeyConditionExpression="gpk = :g",
        ExpressionAttributeValues={":g": {"S": "all"}},
    )
    assert by_index["Count"] == 3  # the index is rebuilt from the restored items

    latest = client.restore_table_to_point_in_time(
        SourceTableName=table, TargetTableName="ledger_now", UseLatestRestorableTime=True
    )
    assert latest["TableDescription"]["TableName"] == "ledger_now"
    assert set(_items(client, "ledger_now")) == set(_items(client, table)) == {"c/3", "d/4"}


@moto_differs("moto restores tables without PITR")
def test_restore_to_a_point_in_time_refusals(client, make_table):
    table = make_table("hash_range_s", "unprotected")
    with raises_dynamodb("PointInTimeRecoveryUnavailableException", table):
        client.restore_table_to_point_in_time(
            SourceTableName=table, TargetTableName="copy_of_it", UseLatestRestorableTime=True
        )
    _enable_pitr(client, table)
    before = datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=1)
    with raises_dynamodb("InvalidRestoreTimeException"):
        client.restore_table_to_point_in_time(
            SourceTableName=table, TargetTableName="copy_of_it", RestoreDateTime=before
        )
    with raises_dynamodb("TableAlreadyExistsException"):
        client.restore_table_to_point_in_time(
            SourceTableName=table, TargetTableName=table, UseLatestRestorableTime=True
        )
    with raises_dynamodb("TableNotFoundException"):
        client.restore_table_to_point_in_time(
            SourceTableName="no_such_table", TargetTableName="copy_of_it", UseLatestRestorableTime=True
        )


@moto_differs("moto accepts any RecoveryPeriodInDays")
@pytest.mark.parametrize("days", [36, 365])
def test_recovery_period_outside_1_to_35_days_is_refused(client, make_table, days):
    table = make_table("hash_s", "period")
    with raises_dynamodb("ValidationException"):
        client.update_continuous_backups(
            TableName=table,
            PointInTimeRecoverySpecification={
                "PointInTimeRecoveryEnabled": True,
                "RecoveryPeriodInDays": days,
            },
        )


@moto_differs("moto restores tables without PITR")
def test_disabling_pitr_forgets_the_window(client, make_table):
    table = make_table("hash_s", "toggled")
    _enable_pitr(client, table)
    off = client.update_continuous_backups(
        TableName=table, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": False}
    )["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
    assert off == {"PointInTimeRecoveryStatus": "DISABLED"}
    with raises_dynamodb("PointInTimeRecoveryUnavailableException"):
        client.restore_table_to_point_in_time(
            SourceTableName=table, TargetTableName="toggled_copy", UseLatestRestorableTime=True
        )


@moto_differs("moto keeps no system backup of a deleted table")
def test_deleting_a_table_with_pitr_keeps_a_system_backup(client, make_table):
    table = make_table("gsi", "mistake")
    put_all(client, table, [_row("a", "1"), _row("b", "2")])
    _enable_pitr(client, table)
    client.delete_table(TableName=table)
    client.get_waiter("table_not_exists").wait(TableName=table)
    assert client.list_backups(TableName=table)["BackupSummaries"] == []  # USER backups only by default
    [system] = client.list_backups(TableName=table, BackupType="SYSTEM")["BackupSummaries"]
    assert system["BackupType"] == "SYSTEM"
    client.restore_table_from_backup(TargetTableName=table, BackupArn=system["BackupArn"])
    client.get_waiter("table_exists").wait(TableName=table)
    assert set(_items(client, table)) == {"a/1", "b/2"}


def test_no_system_backup_without_pitr_or_when_deletion_is_refused(client, make_table):
    plain = make_table("hash_range_s", "plain")
    client.delete_table(TableName=plain)
    protected = make_table("hash_range_s", "protected", DeletionProtectionEnabled=True)
    _enable_pitr(client, protected)
    with raises_dynamodb("ValidationException"):
        client.delete_table(TableName=protected)
    assert client.list_backups(BackupType="ALL")["BackupSummaries"] == []
