"""The SYSTEM backup DeleteTable keeps of a table with PITR on expires 35 days after it was made, as
DynamoDB's does (BackupExpiryDateTime); USER backups never expire."""

from __future__ import annotations

import datetime

import pytest
from botocore.exceptions import ClientError

import tablewright
from tablewright.engine import Engine
from tablewright.engine.ops.backups import expire_backups

DAY = 86400.0


class Clock:
    def __init__(self) -> None:
        self.now = 1_760_000_000.0

    def __call__(self) -> float:
        return self.now


def _table(client, name: str) -> None:
    client.create_table(
        TableName=name,
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )
    client.put_item(TableName=name, Item={"pk": {"S": "a"}})


def test_a_system_backup_expires_after_35_days_and_a_user_backup_does_not() -> None:
    clock = Clock()
    engine = Engine(clock=clock)
    client = tablewright.connect(engine=engine)
    _table(client, "dropped")
    client.update_continuous_backups(
        TableName="dropped", PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True}
    )
    _table(client, "kept")
    user = client.create_backup(TableName="kept", BackupName="by-hand")["BackupDetails"]
    client.delete_table(TableName="dropped")
    (system,) = client.list_backups(BackupType="SYSTEM")["BackupSummaries"]
    made = datetime.datetime.fromtimestamp(clock.now, datetime.UTC)

    assert system["BackupExpiryDateTime"] == made + datetime.timedelta(days=35)
    details = client.describe_backup(BackupArn=system["BackupArn"])["BackupDescription"]["BackupDetails"]
    assert details["BackupExpiryDateTime"] == system["BackupExpiryDateTime"]
    assert "BackupExpiryDateTime" not in user

    clock.now += 35 * DAY - 1
    client.restore_table_from_backup(TargetTableName="back", BackupArn=system["BackupArn"])
    clock.now += 1
    for call in (
        lambda: client.describe_backup(BackupArn=system["BackupArn"]),
        lambda: client.restore_table_from_backup(TargetTableName="again", BackupArn=system["BackupArn"]),
        lambda: client.delete_backup(BackupArn=system["BackupArn"]),
    ):
        with pytest.raises(ClientError) as raised:
            call()
        assert raised.value.response["Error"]["Code"] == "BackupNotFoundException"
    listed = client.list_backups(BackupType="ALL")["BackupSummaries"]
    assert [s["BackupArn"] for s in listed] == [user["BackupArn"]]
    assert expire_backups(engine) == 1 and expire_backups(engine) == 0
    with engine.store.read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM tw_backup_items").fetchone()[0] == 1  # the user backup's
