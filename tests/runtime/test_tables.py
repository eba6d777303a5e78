"""CreateTable / UpdateTable from the design, against the embedded engine."""

from tablewright.design.model import Index, KeyAttribute


def test_create_tables_sets_keys_indexes_stream_and_ttl(van):
    table = van.client.describe_table(TableName="van-telemetry")["Table"]
    assert [k["AttributeName"] for k in table["KeySchema"]] == ["thing_name", "timestamp"]
    assert table["GlobalSecondaryIndexes"][0]["IndexName"] == "MessageTypeIndex"
    assert table["StreamSpecification"]["StreamViewType"] == "NEW_IMAGE"
    ttl = van.client.describe_time_to_live(TableName="van-telemetry")["TimeToLiveDescription"]
    assert ttl["AttributeName"] == "ttl"


def test_update_tables_adds_a_new_index(van):
    table = van.design.tables["telemetry"]
    table.indexes["ByVoltage"] = Index(
        "ByVoltage", KeyAttribute("thing_name"), KeyAttribute("battery_voltage", "N")
    )
    assert van.update_tables() == ["van-telemetry: created index ByVoltage"]
    names = {
        g["IndexName"]
        for g in van.client.describe_table(TableName="van-telemetry")["Table"]["GlobalSecondaryIndexes"]
    }
    assert names == {"MessageTypeIndex", "ByVoltage"}
    assert van.update_tables() == []
