"""Imports a probe found wanting: the NoSQL Workbench note on shared GSI capacity read as a sentence
cut off, and ``init --from-endpoint/--db`` wrote stored decimals through a float, so a number key
such as 1.0000000000000001 came back as an example that finds nothing."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import tablewright
from tablewright.design import loads
from tablewright.design.scaffold import to_yaml
from tablewright.imports import read
from tablewright.imports.sampled import design_from_endpoint
from tablewright.runtime import Runtime


def test_the_workbench_note_on_shared_gsi_capacity_is_a_whole_sentence(tmp_path: Path) -> None:
    table = {
        "TableName": "things",
        "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"}},
        "BillingMode": "PROVISIONED",
        "ProvisionedCapacitySettings": {
            "ProvisionedThroughput": {"ReadCapacityUnits": 7, "WriteCapacityUnits": 3}
        },
        "GlobalSecondaryIndexes": [
            {
                "IndexName": "byG",
                "KeyAttributes": {"PartitionKey": {"AttributeName": "g", "AttributeType": "S"}},
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
    }
    model = tmp_path / "model.json"
    model.write_text(json.dumps({"ModelName": "m", "DataModel": [table]}))
    [imported] = read(model, "nosql-workbench").tables
    [note] = [n for n in imported.notes if "capacity of their own" in n]
    assert note == (
        "the model gives indexes no capacity of their own, so each GSI is given the table's "
        "provisioned capacity (7 read and 3 write units)"
    )


EXACT_KEY, EXACT_VALUE = "1.0000000000000001", "1234567890.123456789"


def test_sampled_decimals_are_written_so_they_read_back_exactly() -> None:
    client = tablewright.connect()
    client.create_table(
        TableName="readings",
        KeySchema=[
            {"AttributeName": "device", "KeyType": "HASH"},
            {"AttributeName": "at", "KeyType": "RANGE"},
        ],
        AttributeDefinitions=[
            {"AttributeName": "device", "AttributeType": "S"},
            {"AttributeName": "at", "AttributeType": "N"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    stored = {"device": {"S": "d1"}, "at": {"N": EXACT_KEY}, "value": {"N": EXACT_VALUE}}
    client.put_item(TableName="readings", Item=stored)
    design = loads(to_yaml(design_from_endpoint(client, name="live"), "from a test"))
    [sample] = design.samples["Readings"]
    assert (sample["at"], sample["value"]) == (Decimal(EXACT_KEY), Decimal(EXACT_VALUE))
    [example] = design.patterns["get_readings"].examples
    assert example == {"device": "d1", "at": Decimal(EXACT_KEY)}
    [found] = Runtime(design, client).run("get_readings", example)  # the live item, by the example
    assert found["value"] == Decimal(EXACT_VALUE)
