"""A database file damaged deep inside (past the checks made when it is opened): a request that reads
the damage gets an InternalServerError naming the file and how to check it, over HTTP as in process,
and the server's log says the same without a traceback."""

from __future__ import annotations

import functools
import logging
from pathlib import Path

import boto3
import pytest
from botocore.exceptions import ClientError

from tablewright.engine import Engine
from tablewright.server import ServerThread

from ._support import DUMMY, NO_RETRY

PAGE = 4096


def damaged_database(path: Path) -> Path:
    """A file with a table of 2,000 items, then bytes 100-600 of every page but the first overwritten."""
    with Engine(str(path)) as engine:
        engine.handle(
            "CreateTable",
            {
                "TableName": "items",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                "BillingMode": "PAY_PER_REQUEST",
            },
        )
        for number in range(0, 2000, 25):
            puts = [
                {"PutRequest": {"Item": {"pk": {"S": f"k{n}"}, "v": {"S": "x" * 200}}}}
                for n in range(number, number + 25)
            ]
            engine.handle("BatchWriteItem", {"RequestItems": {"items": puts}})
    data = bytearray(path.read_bytes())
    for start in range(PAGE, len(data), PAGE):
        data[start + 100 : start + 600] = b"\xa5" * 500
    path.write_bytes(bytes(data))
    return path


def test_a_read_of_a_damaged_page_names_the_file_and_the_check(tmp_path, caplog) -> None:
    path = damaged_database(tmp_path / "damaged.db")
    engine = Engine(str(path))
    try:
        with ServerThread(functools.partial(engine.handle, encoded=True), request_timeout=5.0) as server:
            client = boto3.client("dynamodb", endpoint_url=server.url, config=NO_RETRY, **DUMMY)
            with caplog.at_level(logging.ERROR), pytest.raises(ClientError) as failed:
                client.scan(TableName="items")
    finally:
        engine.close()
    error = failed.value.response["Error"]
    assert error["Code"] == "InternalServerError"
    assert "corrupt" in error["Message"] and "damaged.db" in error["Message"]
    assert "PRAGMA integrity_check" in error["Message"] and "request id" in error["Message"]
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "damaged.db" in logged and "integrity_check" in logged
    assert not any(record.exc_info for record in caplog.records), "a traceback for a damaged file"
