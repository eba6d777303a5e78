"""Two engines on one file stand for two processes: each caches table definitions, and a change made
through one is honoured by the other's next request without either checking the file on every read."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablewright.engine import Engine
from tablewright.engine.errors import ResourceNotFoundException, ValidationException


def _table(engine: Engine, name: str = "things", sort: str | None = "sk", sort_type: str = "N") -> None:
    schema = [{"AttributeName": "pk", "KeyType": "HASH"}]
    definitions = [{"AttributeName": "pk", "AttributeType": "S"}]
    if sort:
        schema.append({"AttributeName": sort, "KeyType": "RANGE"})
        definitions.append({"AttributeName": sort, "AttributeType": sort_type})
    engine.handle(
        "CreateTable",
        {
            "TableName": name,
            "KeySchema": schema,
            "AttributeDefinitions": definitions,
            "BillingMode": "PAY_PER_REQUEST",
        },
    )


def _add_colour_index(engine: Engine, projection: str) -> None:
    engine.handle(
        "UpdateTable",
        {
            "TableName": "things",
            "AttributeDefinitions": [{"AttributeName": "colour", "AttributeType": "S"}],
            "GlobalSecondaryIndexUpdates": [
                {
                    "Create": {
                        "IndexName": "by-colour",
                        "KeySchema": [{"AttributeName": "colour", "KeyType": "HASH"}],
                        "Projection": {"ProjectionType": projection},
                    }
                }
            ],
        },
    )


def _by_colour(colour: str) -> dict:
    return {
        "TableName": "things",
        "IndexName": "by-colour",
        "KeyConditionExpression": "colour = :c",
        "ExpressionAttributeValues": {":c": {"S": colour}},
    }


@pytest.fixture
def pair(tmp_path: Path):
    path = str(tmp_path / "shared.db")
    with Engine(path) as mine, Engine(path) as theirs:
        yield mine, theirs


def test_a_table_recreated_elsewhere_with_another_key_is_used_as_redefined(pair) -> None:
    mine, theirs = pair
    _table(mine)
    mine.handle("PutItem", {"TableName": "things", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}})
    theirs.handle("DeleteTable", {"TableName": "things"})
    _table(theirs, sort="name", sort_type="S")

    # My cached definition says (pk, sk N); the table is now (pk, name S).
    with pytest.raises(ValidationException, match="key element does not match the schema"):
        mine.handle("GetItem", {"TableName": "things", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}})
    mine.handle("PutItem", {"TableName": "things", "Item": {"pk": {"S": "a"}, "name": {"S": "x"}}})
    got = theirs.handle("GetItem", {"TableName": "things", "Key": {"pk": {"S": "a"}, "name": {"S": "x"}}})
    assert got["Item"] == {"pk": {"S": "a"}, "name": {"S": "x"}}


def test_a_write_prepared_on_a_stale_definition_is_prepared_again(pair) -> None:
    mine, theirs = pair
    _table(mine)
    mine.handle("GetItem", {"TableName": "things", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}})
    _add_colour_index(theirs, "ALL")
    # My cache has no index: the write must still maintain the one added elsewhere.
    item = {"pk": {"S": "a"}, "sk": {"N": "1"}, "colour": {"S": "red"}}
    mine.handle("PutItem", {"TableName": "things", "Item": item})
    assert theirs.handle("Query", _by_colour("red"))["Items"] == [item]


def test_a_query_on_an_index_added_elsewhere_finds_it(pair) -> None:
    mine, theirs = pair
    _table(mine)
    item = {"pk": {"S": "a"}, "sk": {"N": "1"}, "colour": {"S": "red"}}
    mine.handle("PutItem", {"TableName": "things", "Item": item})
    _add_colour_index(theirs, "ALL")  # backfills the item; my cached definition has no index
    assert mine.handle("Query", _by_colour("red"))["Items"] == [item]


def test_an_index_deleted_elsewhere_is_unknown_here(pair) -> None:
    mine, theirs = pair
    _table(mine, sort=None)
    _add_colour_index(mine, "KEYS_ONLY")
    query = _by_colour("red")
    assert mine.handle("Query", query)["Items"] == []
    theirs.handle(
        "UpdateTable",
        {"TableName": "things", "GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "by-colour"}}]},
    )
    with pytest.raises(ValidationException, match="does not have the specified index: by-colour"):
        mine.handle("Query", query)


def test_a_table_deleted_elsewhere_is_not_found_here(pair) -> None:
    mine, theirs = pair
    _table(mine)
    key = {"pk": {"S": "a"}, "sk": {"N": "1"}}
    mine.handle("PutItem", {"TableName": "things", "Item": key})
    theirs.handle("DeleteTable", {"TableName": "things"})
    for operation, request in (
        ("GetItem", {"TableName": "things", "Key": key}),
        ("PutItem", {"TableName": "things", "Item": key}),
        ("Scan", {"TableName": "things"}),
    ):
        with pytest.raises(ResourceNotFoundException):
            mine.handle(operation, request)


def test_describe_table_reports_a_change_made_elsewhere(pair) -> None:
    mine, theirs = pair
    _table(mine)
    assert mine.handle("DescribeTable", {"TableName": "things"})["Table"]["BillingModeSummary"][
        "BillingMode"
    ] == ("PAY_PER_REQUEST")
    theirs.handle(
        "UpdateTable",
        {
            "TableName": "things",
            "BillingMode": "PROVISIONED",
            "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
        },
    )
    table = mine.handle("DescribeTable", {"TableName": "things"})["Table"]
    assert table["BillingModeSummary"]["BillingMode"] == "PROVISIONED"
