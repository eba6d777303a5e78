"""The harness itself: the table namespace of the remote backends, and the endpoint's safety check.

The namespace is checked on in-process engines (one namespaced client, one raw client of the same
engine), so that what it sends and what it hides is seen from both sides.
"""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

import tablewright

from ._backends import (
    ENDPOINT_VARIABLE,
    OPT_IN_VALUE,
    OPT_IN_VARIABLE,
    Namespace,
    endpoint_from_environment,
    is_loopback,
    namespaced,
)
from ._support import create_table, raises_dynamodb, s


@pytest.fixture
def engine_pair():
    """A namespaced client and a raw client of one in-memory engine."""
    raw = tablewright.connect()
    return tablewright.connect(engine=tablewright.engine_of(raw)), raw


def test_tables_are_prefixed_on_the_wire_and_named_plainly_in_replies(engine_pair):
    client, raw = engine_pair
    with namespaced(client, raw) as namespace:
        create_table(client, "hash_s", "orders")
        assert raw.list_tables()["TableNames"] == [namespace.prefix + "orders"]
        description = client.describe_table(TableName="orders")["Table"]
        assert description["TableName"] == "orders"
        assert description["TableArn"].endswith(":table/orders")
        assert client.list_tables()["TableNames"] == ["orders"]


def test_every_table_is_deleted_when_the_test_ends(engine_pair):
    client, raw = engine_pair
    with namespaced(client, raw):
        create_table(client, "hash_s", "first")
        create_table(client, "hash_s", "second", DeletionProtectionEnabled=True)
        create_table(client, "hash_s", "x" * 255)  # too long to prefix: sent as written, deleted too
    assert raw.list_tables()["TableNames"] == []


def test_other_tables_on_the_endpoint_are_neither_seen_nor_touched(engine_pair):
    client, raw = engine_pair
    create_table(raw, "hash_s", "production")
    with namespaced(client, raw):
        assert client.list_tables()["TableNames"] == []
        with raises_dynamodb("ResourceNotFoundException"):
            client.describe_table(TableName="production")
    assert raw.list_tables()["TableNames"] == ["production"]


def test_batches_transactions_and_partiql_reach_the_namespaced_tables(engine_pair):
    client, raw = engine_pair
    with namespaced(client, raw) as namespace:
        create_table(client, "hash_s", "items")
        client.batch_write_item(RequestItems={"items": [{"PutRequest": {"Item": {"pk": s("a")}}}]})
        client.transact_write_items(
            TransactItems=[{"Put": {"TableName": "items", "Item": {"pk": s("b")}}}], ClientRequestToken="t-1"
        )
        client.execute_statement(Statement="INSERT INTO \"items\" VALUE {'pk': 'c'}")
        got = client.batch_get_item(RequestItems={"items": {"Keys": [{"pk": s("a")}, {"pk": s("b")}]}})
        assert sorted(item["pk"]["S"] for item in got["Responses"]["items"]) == ["a", "b"]
        selected = client.execute_statement(Statement="SELECT pk FROM \"items\" WHERE pk = 'c'")
        assert selected["Items"] == [{"pk": s("c")}]
        assert raw.scan(TableName=namespace.prefix + "items")["Count"] == 3


def test_error_messages_name_the_table_as_the_test_wrote_it(engine_pair):
    client, raw = engine_pair
    with namespaced(client, raw) as namespace, pytest.raises(ClientError) as info:
        client.get_item(TableName="missing", Key={"pk": s("a")})
    assert namespace.prefix not in str(info.value.response)


def test_invalid_names_and_user_data_are_sent_as_written():
    namespace = Namespace()
    request = {
        "TableName": "ab",  # too short: a test of the naming rule must get DynamoDB's answer for "ab"
        "Item": {"TableName": s("orders")},  # an attribute, not a table
        "ExpressionAttributeValues": {":t": s("orders")},
    }
    assert namespace.rewrite_request(request) == request
    assert namespace.rewrite_request({"TableName": "a b c"}) == {"TableName": "a b c"}
    assert namespace.rewrite_request({"TableName": "orders"}) == {"TableName": namespace.prefix + "orders"}


def test_two_namespaces_never_share_a_table_or_a_token():
    first, second = Namespace(), Namespace()
    assert first.prefix != second.prefix
    token = {"ClientRequestToken": "token-1"}
    assert first.rewrite_request(token) != second.rewrite_request(token)
    assert len(first.rewrite_request(token)["ClientRequestToken"]) <= 36


@pytest.mark.parametrize(
    ("url", "loopback"),
    [
        ("http://127.0.0.1:8000", True),
        ("http://localhost:8000", True),
        ("http://[::1]:8000", True),
        ("http://127.5.0.1", True),
        ("https://dynamodb.us-east-1.amazonaws.com", False),
        ("http://10.0.0.5:8000", False),
        ("http://localhost.example.com", False),
    ],
)
def test_loopback_is_recognised(url, loopback):
    assert is_loopback(url) is loopback


def test_a_remote_endpoint_needs_the_explicit_opt_in(monkeypatch):
    monkeypatch.setenv(ENDPOINT_VARIABLE, "https://dynamodb.eu-west-1.amazonaws.com")
    monkeypatch.delenv(OPT_IN_VARIABLE, raising=False)
    with pytest.raises(RuntimeError, match=OPT_IN_VARIABLE):
        endpoint_from_environment()
    monkeypatch.setenv(OPT_IN_VARIABLE, "yes")  # not the stated value: still refused
    with pytest.raises(RuntimeError, match=OPT_IN_VARIABLE):
        endpoint_from_environment()
    monkeypatch.setenv(OPT_IN_VARIABLE, OPT_IN_VALUE)
    assert endpoint_from_environment() == "https://dynamodb.eu-west-1.amazonaws.com"


def test_a_loopback_endpoint_needs_no_opt_in(monkeypatch):
    monkeypatch.setenv(ENDPOINT_VARIABLE, "http://127.0.0.1:8000")
    monkeypatch.delenv(OPT_IN_VARIABLE, raising=False)
    assert endpoint_from_environment() == "http://127.0.0.1:8000"
    monkeypatch.delenv(ENDPOINT_VARIABLE)
    with pytest.raises(RuntimeError, match=ENDPOINT_VARIABLE):
        endpoint_from_environment()
