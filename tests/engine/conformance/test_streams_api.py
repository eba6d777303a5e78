"""The DynamoDB Streams API's argument checks and shard boundaries, on every backend of the suite.

What DynamoDB does (its API reference and the service's answers): ListStreams and DescribeStream take
a Limit of at most 100 and GetRecords one of at most 1000; a StreamArn or ExclusiveStartStreamArn that is
not shaped like a stream ARN is a ValidationException (a well-formed ARN of a missing stream is
ResourceNotFoundException); an ExclusiveStartShardId that is not a shard of the stream gives no shards;
a ShardFilter needs both Type and ShardId and lists only the children of its shard; the
StartingSequenceNumber of a shard without records is a valid position for AT_ and AFTER_SEQUENCE_NUMBER.
"""

from __future__ import annotations

import uuid
from typing import Any, NamedTuple

import boto3
import pytest

import tablewright

from ._support import moto_differs, raises_dynamodb

pytestmark = moto_differs(
    "moto cannot serve this botocore's DynamoDB Streams API (404 'Not yet implemented')"
)

NOT_AN_ARN = (
    "sdfadfsdfnlfkajakfgjalksfgklasjklasdjfklasdfasdfgasf"  # 52 characters: long enough for the model
)
NOT_A_SHARD = "zzzzzzzzzzzzzzzzzzzzzzzzsfasdgagadfadfgagkjsdfsfsdjfjks"


def streams_client(client: Any) -> Any:
    """The DynamoDB Streams client that goes where ``client`` goes (the same engine, or the same endpoint)."""
    try:
        return tablewright.connect(service="dynamodbstreams", engine=tablewright.engine_of(client))
    except ValueError:
        endpoint = client.meta.endpoint_url
        remote = {} if endpoint.endswith(".amazonaws.com") else {"endpoint_url": endpoint}
        return boto3.client("dynamodbstreams", region_name=client.meta.region_name, **remote)


@pytest.fixture
def streams(client: Any) -> Any:
    return streams_client(client)


class Stream(NamedTuple):
    table: str  # the name the Streams API knows the table by (a namespacing backend shows ``client`` another)
    arn: str
    shard: dict[str, Any]  # its only shard
    client_table: str  # the name ``client`` knows the table by


def find_stream(streams: Any, table: str) -> dict[str, str]:
    """The ListStreams entry of ``table``'s stream, found through the Streams API alone: a backend that
    namespaces table names shows ``client`` another name and ARN than the Streams API knows."""
    request: dict[str, Any] = {}
    while True:
        page = streams.list_streams(**request)
        for entry in page["Streams"]:
            if entry["TableName"] == table or entry["TableName"].endswith("-" + table):
                return entry
        if "LastEvaluatedStreamArn" not in page:
            raise AssertionError(f"no stream of table {table} in ListStreams")
        request["ExclusiveStartStreamArn"] = page["LastEvaluatedStreamArn"]


@pytest.fixture
def stream(make_table: Any, streams: Any) -> Stream:
    """A new table with a KEYS_ONLY stream and no records."""
    name = make_table(
        "hash_s",
        name=f"streams-{uuid.uuid4().hex[:12]}",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"},
    )
    entry = find_stream(streams, name)
    (shard,) = streams.describe_stream(StreamArn=entry["StreamArn"])["StreamDescription"]["Shards"]
    return Stream(entry["TableName"], entry["StreamArn"], shard, name)


def status(info: Any) -> int:
    return info.value.response["ResponseMetadata"]["HTTPStatusCode"]


# ---------------------------------------------------------------------------------------- Limits


@pytest.mark.parametrize(
    ("operation", "most"), [("list_streams", 100), ("describe_stream", 100), ("get_records", 1000)]
)
def test_a_limit_above_the_services_maximum_is_a_validation_error(streams, stream, operation, most):
    _, arn, shard, _ = stream
    iterator = streams.get_shard_iterator(
        StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
    )["ShardIterator"]
    arguments = {
        "list_streams": {},
        "describe_stream": {"StreamArn": arn},
        "get_records": {"ShardIterator": iterator},
    }
    call = getattr(streams, operation)

    call(**arguments[operation], Limit=most)  # the maximum itself is fine
    with raises_dynamodb(
        "ValidationException",
        f"Value '{most + 1}' at 'limit' failed to satisfy constraint",
        f"Member must have value less than or equal to {most}",
    ) as info:
        call(**arguments[operation], Limit=most + 1)
    assert status(info) == 400


# ----------------------------------------------------------------------------------- stream ARNs


def test_list_streams_refuses_a_start_that_is_not_a_stream_arn(streams, stream):
    name, _, _, _ = stream
    with raises_dynamodb("ValidationException", "ExclusiveStartStreamArn") as info:
        streams.list_streams(
            TableName=name, ExclusiveStartStreamArn="kossaapaaasdafsdaasdasdasdasasdasfadfadfasdasdas"
        )
    assert status(info) == 400


def test_list_streams_pages_after_a_well_formed_stream_arn(streams, stream):
    name, arn, _, _ = stream
    assert streams.list_streams(TableName=name)["Streams"][0]["StreamArn"] == arn
    assert streams.list_streams(TableName=name, ExclusiveStartStreamArn=arn)["Streams"] == []


@pytest.mark.parametrize("operation", ["describe_stream", "get_shard_iterator"])
def test_a_stream_arn_that_is_not_an_arn_is_a_validation_error(streams, stream, operation):
    _, _, shard, _ = stream
    arguments = {"StreamArn": NOT_AN_ARN}
    if operation == "get_shard_iterator":
        arguments.update(ShardId=shard["ShardId"], ShardIteratorType="LATEST")
    with raises_dynamodb("ValidationException", "Invalid StreamArn") as info:
        getattr(streams, operation)(**arguments)
    assert status(info) == 400


def test_a_well_formed_arn_of_a_missing_stream_is_not_found(streams, stream):
    name, arn, _, _ = stream
    missing = arn.replace(f":table/{name}/", ":table/no-such-table/")
    assert missing != arn
    with raises_dynamodb("ResourceNotFoundException"):
        streams.describe_stream(StreamArn=missing)


# ----------------------------------------------------------------------------- shards and filters


@pytest.mark.parametrize("start", ["not a shard of the stream", "the stream's last shard"])
def test_describe_stream_after_a_shard_that_is_not_followed_by_one_lists_none(streams, stream, start):
    _, arn, shard, _ = stream
    shard_id = NOT_A_SHARD if start == "not a shard of the stream" else shard["ShardId"]
    description = streams.describe_stream(StreamArn=arn, ExclusiveStartShardId=shard_id)["StreamDescription"]
    assert description["Shards"] == []
    assert "LastEvaluatedShardId" not in description


def test_shard_filter_lists_only_the_children_of_its_shard(streams, stream):
    _, arn, shard, _ = stream
    children = streams.describe_stream(
        StreamArn=arn, ShardFilter={"Type": "CHILD_SHARDS", "ShardId": shard["ShardId"]}
    )["StreamDescription"]["Shards"]
    assert children == []  # a stream that never split: its shard has no children


@pytest.mark.parametrize(("given", "missing"), [("ShardId", "type"), ("Type", "shardId")])
def test_shard_filter_needs_both_type_and_shard_id(streams, stream, given, missing):
    _, arn, shard, _ = stream
    shard_filter = {"ShardId": shard["ShardId"], "Type": "CHILD_SHARDS"}
    with raises_dynamodb(
        "ValidationException", f"at 'shardFilter.{missing}'", "Member must not be null"
    ) as info:
        streams.describe_stream(StreamArn=arn, ShardFilter={given: shard_filter[given]})
    assert status(info) == 400


# --------------------------------------------------------------------------- iterators at boundaries


@pytest.mark.parametrize("kind", ["AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"])
def test_an_empty_shards_starting_sequence_number_gives_an_iterator_that_reads_its_first_record(
    client, streams, stream, kind
):
    _, arn, shard, name = stream
    iterator = streams.get_shard_iterator(
        StreamArn=arn,
        ShardId=shard["ShardId"],
        ShardIteratorType=kind,
        SequenceNumber=shard["SequenceNumberRange"]["StartingSequenceNumber"],
    )["ShardIterator"]
    client.put_item(TableName=name, Item={"pk": {"S": "first"}})

    records = streams.get_records(ShardIterator=iterator)["Records"]

    assert [r["dynamodb"]["Keys"] for r in records] == [{"pk": {"S": "first"}}]


@pytest.mark.parametrize("kind", ["TRIM_HORIZON", "LATEST"])
def test_a_sequence_number_with_an_iterator_type_that_takes_none_is_a_validation_error(streams, stream, kind):
    _, arn, shard, _ = stream
    with raises_dynamodb("ValidationException", "SequenceNumber"):
        streams.get_shard_iterator(
            StreamArn=arn,
            ShardId=shard["ShardId"],
            ShardIteratorType=kind,
            SequenceNumber=shard["SequenceNumberRange"]["StartingSequenceNumber"],
        )


@pytest.mark.parametrize("kind", ["AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"])
def test_an_iterator_type_that_needs_a_sequence_number_without_one_is_a_validation_error(
    streams, stream, kind
):
    _, arn, shard, _ = stream
    with raises_dynamodb("ValidationException", "SequenceNumber"):
        streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType=kind)


def test_an_iterator_for_a_shard_the_stream_does_not_have_is_not_found(streams, stream):
    _, arn, _, _ = stream
    with raises_dynamodb("ResourceNotFoundException"):
        streams.get_shard_iterator(StreamArn=arn, ShardId=NOT_A_SHARD, ShardIteratorType="LATEST")


def test_an_iterator_nobody_issued_is_a_validation_error(streams):
    with raises_dynamodb("ValidationException"):
        streams.get_records(
            ShardIterator="sdfsdfsgagaddafgagasgasgasdfasdfasdfasdfasdgasdasdgasdg", Limit=1000
        )
