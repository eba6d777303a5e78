"""ImportTable through the bulk load: many transactions, several files, a GSI (the general path), items
refused in the middle of a file, a key repeated across files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablewright.engine import Engine

ITEMS_PER_FILE = 1_200  # more than one bulk transaction (500 items) per file


@pytest.fixture
def bucket(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TABLEWRIGHT_S3_ROOT", str(tmp_path))
    folder = tmp_path / "incoming" / "load"
    folder.mkdir(parents=True)
    return folder


def _line(pk: str, n: int, **more: dict) -> str:
    return json.dumps({"Item": {"pk": {"S": pk}, "n": {"N": f"{n}.0"}, **more}})


@pytest.mark.parametrize("with_index", [False, True])
def test_import_loads_every_file_in_bulk_counting_refusals(bucket: Path, with_index: bool) -> None:
    lines = [_line(f"p{i}", i, g={"S": f"g{i % 3}"}) for i in range(ITEMS_PER_FILE)]
    lines[700] = _line("bad", 1, g={"N": "5"})  # wrong type for the GSI's key (or just a number)
    lines[701] = json.dumps({"Item": {"pk": {"S": "empty"}, "s": {"SS": []}}})  # an empty set
    (bucket / "part-0.json").write_text("\n".join(lines) + "\n")
    (bucket / "part-1.json").write_text(_line("p5", 99, g={"S": "later"}) + "\n")  # replaces p5
    parameters = {
        "TableName": "imported",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "BillingMode": "PAY_PER_REQUEST",
    }
    if with_index:
        parameters["AttributeDefinitions"].append({"AttributeName": "g", "AttributeType": "S"})
        parameters["GlobalSecondaryIndexes"] = [
            {
                "IndexName": "by_g",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            }
        ]
    engine = Engine()
    done = engine.import_table(
        {
            "S3BucketSource": {"S3Bucket": "incoming", "S3KeyPrefix": "load/"},
            "InputFormat": "DYNAMODB_JSON",
            "TableCreationParameters": parameters,
        }
    )["ImportTableDescription"]
    found = engine.describe_import({"ImportArn": done["ImportArn"]})["ImportTableDescription"]
    refused = 2 if with_index else 1  # without the index, g = 5 is just a number
    assert (found["ProcessedItemCount"], found["ErrorCount"], found["ImportedItemCount"]) == (
        ITEMS_PER_FILE + 1,
        refused,
        ITEMS_PER_FILE + 1 - refused,
    )
    p5 = engine.get_item({"TableName": "imported", "Key": {"pk": {"S": "p5"}}})["Item"]
    assert p5["n"] == {"N": "99"} and p5["g"] == {"S": "later"}  # normalised, and the later file won
    count = engine.scan({"TableName": "imported", "Select": "COUNT"})["Count"]
    assert count == ITEMS_PER_FILE - refused  # p5 twice
    if with_index:
        later = engine.query(
            {
                "TableName": "imported",
                "IndexName": "by_g",
                "KeyConditionExpression": "g = :g",
                "ExpressionAttributeValues": {":g": {"S": "later"}},
            }
        )["Items"]
        assert later == [{"pk": {"S": "p5"}, "g": {"S": "later"}}]
        g2 = engine.query(
            {
                "TableName": "imported",
                "IndexName": "by_g",
                "KeyConditionExpression": "g = :g",
                "ExpressionAttributeValues": {":g": {"S": "g2"}},
                "Select": "COUNT",
            }
        )["Count"]
        assert g2 == sum(1 for i in range(ITEMS_PER_FILE) if i % 3 == 2 and i not in (5, 700, 701))
