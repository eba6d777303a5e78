"""``tablewright demo``: a short, runnable tour of the embedded engine through plain boto3."""

from __future__ import annotations

import time
from typing import Any

import click
from boto3.dynamodb.conditions import Key
from botocore.exceptions import ClientError
from rich.console import Console
from rich.table import Table

import tablewright

from .errors import CommandError

TABLE = "demo-events"


_KEYS = [{"AttributeName": "device", "KeyType": "HASH"}, {"AttributeName": "ts", "KeyType": "RANGE"}]


def _demo_table(dynamodb: Any, console: Console) -> Any:
    """The demo's table: created, or the one an earlier demo left in the same --db file."""
    try:
        return dynamodb.create_table(
            TableName=TABLE,
            KeySchema=_KEYS,
            AttributeDefinitions=[
                {"AttributeName": "device", "AttributeType": "S"},
                {"AttributeName": "ts", "AttributeType": "N"},
            ],
            BillingMode="PAY_PER_REQUEST",
        )
    except ClientError as error:
        if error.response["Error"]["Code"] != "ResourceInUseException":
            raise
    table = dynamodb.Table(TABLE)
    if table.key_schema != _KEYS:
        raise CommandError(f"table {TABLE} exists with another key schema: not the demo's; give another --db")
    console.print(f"table {TABLE} exists (an earlier demo in this file): writing into it")
    return table


@click.command()
@click.option("--db", type=click.Path(dir_okay=False), default=None, help="SQLite file (default: in memory).")
@click.option(
    "--items", default=1000, show_default=True, type=click.IntRange(min=0), help="How many items to write."
)
def demo(db: str | None, items: int) -> None:
    """Create a table, write and query items on the embedded engine, and show what it consumed."""
    console = Console()
    table = _demo_table(tablewright.resource(db), console)
    started = time.perf_counter()
    with table.batch_writer() as batch:
        for i in range(items):
            batch.put_item(Item={"device": f"dev-{i % 10}", "ts": i, "reading": i * 3 % 17})
    wrote = time.perf_counter() - started
    page = table.query(
        KeyConditionExpression=Key("device").eq("dev-3") & Key("ts").between(100, 500),
        ScanIndexForward=False,
        Limit=5,
        ReturnConsumedCapacity="TOTAL",
    )
    out = Table(title="newest 5 readings of dev-3 with 100 <= ts <= 500")
    for column in ("device", "ts", "reading"):
        out.add_column(column)
    for item in page["Items"]:
        out.add_row(item["device"], str(item["ts"]), str(item["reading"]))
    console.print(out)
    count = table.meta.client.describe_table(TableName=TABLE)["Table"]["ItemCount"]
    console.print(
        f"wrote {items} items in {wrote * 1000:.0f} ms; table holds {count} items; "
        f"the query consumed {page['ConsumedCapacity']['CapacityUnits']} read units"
    )
