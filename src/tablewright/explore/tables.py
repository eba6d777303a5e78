"""Tables and their items: description, paginated scan, and query by key condition with filters.

Every request is built from the page's parameters into DynamoDB's own expressions, and the page
shows the request it sent, so what a person sees is what DynamoDB was asked.
"""

from __future__ import annotations

import base64
import binascii
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

import orjson

from .items import client_wire, json_wire

# Sort-key conditions, as DynamoDB writes them ({k} key name, {v}/{w} values).
SORT_OPERATORS = {
    "=": "{k} = {v}",
    "<": "{k} < {v}",
    "<=": "{k} <= {v}",
    ">": "{k} > {v}",
    ">=": "{k} >= {v}",
    "between": "{k} BETWEEN {v} AND {w}",
    "begins_with": "begins_with({k}, {v})",
}
FILTER_OPERATORS = {
    "=": "{k} = {v}",
    "<>": "{k} <> {v}",
    "<": "{k} < {v}",
    "<=": "{k} <= {v}",
    ">": "{k} > {v}",
    ">=": "{k} >= {v}",
    "begins_with": "begins_with({k}, {v})",
    "contains": "contains({k}, {v})",
    "exists": "attribute_exists({k})",
    "not_exists": "attribute_not_exists({k})",
}
FILTER_TYPES = ("S", "N", "BOOL", "NULL")
MAX_LIMIT = 1000


class QueryError(ValueError):
    """A query the page cannot send, saying which field is wrong."""


def describe(client: Any, name: str) -> dict[str, Any]:
    """Keys, indexes with projections, TTL, stream, billing, item count and size of one table."""
    table = client.describe_table(TableName=name)["Table"]
    types = {d["AttributeName"]: d["AttributeType"] for d in table.get("AttributeDefinitions", [])}

    def keys(schema: list[dict]) -> dict[str, Any]:
        found = {k["KeyType"]: k["AttributeName"] for k in schema}
        pk, sk = found.get("HASH"), found.get("RANGE")
        return {"partition": pk, "partition_type": types.get(pk), "sort": sk, "sort_type": types.get(sk)}

    indexes = []
    for kind, entries in (
        ("global", table.get("GlobalSecondaryIndexes", [])),
        ("local", table.get("LocalSecondaryIndexes", [])),
    ):
        for index in entries:
            projection = index.get("Projection", {})
            indexes.append(
                {
                    "name": index["IndexName"],
                    "kind": kind,
                    **keys(index["KeySchema"]),
                    "projection": projection.get("ProjectionType", "ALL"),
                    "projected": projection.get("NonKeyAttributes", []),
                    "item_count": index.get("ItemCount"),
                }
            )
    try:
        ttl = client.describe_time_to_live(TableName=name)["TimeToLiveDescription"]
    except Exception:  # an endpoint without the TTL API: show nothing rather than fail the page
        ttl = {}
    stream = table.get("StreamSpecification") or {}
    billing = (table.get("BillingModeSummary") or {}).get("BillingMode", "PROVISIONED")
    return {
        "name": name,
        **keys(table["KeySchema"]),
        "indexes": indexes,
        "ttl": ttl.get("AttributeName") if ttl.get("TimeToLiveStatus") in ("ENABLED", "ENABLING") else None,
        "stream": stream.get("StreamViewType") if stream.get("StreamEnabled") else None,
        "stream_arn": table.get("LatestStreamArn") if stream.get("StreamEnabled") else None,
        "billing": billing,
        "item_count": table.get("ItemCount", 0),
        "size_bytes": table.get("TableSizeBytes", 0),
        "status": table.get("TableStatus"),
    }


@dataclass
class Filter:
    """One filter row: attribute, operator, value and the value's DynamoDB type."""

    attribute: str
    op: str
    value: str = ""
    type: str = "S"


@dataclass
class ItemQuery:
    """A scan (no partition value) or a query of the table or one index, from the page's parameters."""

    index: str | None = None
    partition: str | None = None
    sort_op: str | None = None
    sort: str | None = None
    sort_to: str | None = None
    filters: list[Filter] = field(default_factory=list)
    limit: int = 50
    after: str | None = None

    @property
    def is_query(self) -> bool:
        """True when a partition value was given."""
        return self.partition is not None

    @classmethod
    def from_params(cls, params: Any, description: Mapping[str, Any]) -> ItemQuery:
        """Read ``index``, ``pk``, ``op``, ``sk``, ``sk2``, ``f_attr``/``f_op``/``f_value``/``f_type`` (repeatable),
        ``limit`` and ``after``; ``QueryError`` for anything that cannot be sent."""
        get = params.get
        index = get("index") or None
        if index is not None and index not in {i["name"] for i in description["indexes"]}:
            raise QueryError(f"index {index!r}: table {description['name']} has no such index")
        query = cls(index=index, partition=_blank(get("pk")), after=_blank(get("after")))
        query.limit = _limit(get("limit"))
        op = _blank(get("op"))
        if op is not None and query.partition is not None and _blank(get("sk")) is not None:
            if op not in SORT_OPERATORS:
                raise QueryError(f"op {op!r}: use one of {', '.join(SORT_OPERATORS)}")
            query.sort_op, query.sort, query.sort_to = op, get("sk"), _blank(get("sk2"))
            if op == "between" and query.sort_to is None:
                raise QueryError("BETWEEN needs a second sort key value (sk2)")
        getlist = getattr(params, "getlist", lambda name: [get(name)] if get(name) is not None else [])
        attributes = getlist("f_attr")

        def column(name: str, blank: str) -> list[str]:
            # One per attribute: a row given no operator is refused below, never silently dropped.
            given = getlist(name)
            if given and len(given) != len(attributes) and len(attributes) > 1:
                # Rows are matched by position: a value left out of one row would move onto the next.
                raise QueryError(
                    f"{name} given for {len(given)} of {len(attributes)} filter rows: with several rows, "
                    f"give each row every field (an empty {name} where it has none)"
                )
            return given + [blank] * (len(attributes) - len(given))

        rows = zip(attributes, column("f_op", ""), column("f_value", ""), column("f_type", "S"))
        for attribute, fop, value, kind in rows:
            if not attribute.strip():
                continue
            if fop not in FILTER_OPERATORS:
                raise QueryError(
                    f"filter on {attribute}: operator {fop!r}; use one of {', '.join(FILTER_OPERATORS)}"
                )
            if kind not in FILTER_TYPES:
                raise QueryError(
                    f"filter on {attribute}: type {kind!r}; use one of {', '.join(FILTER_TYPES)}"
                )
            query.filters.append(Filter(attribute.strip(), fop, value, kind))
        return query

    def request(self, description: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """The operation (``Query`` or ``Scan``) and its request."""
        request: dict[str, Any] = {"TableName": description["name"], "Limit": self.limit}
        names: dict[str, str] = {}
        values: dict[str, Any] = {}
        keys = (
            description
            if self.index is None
            else next(i for i in description["indexes"] if i["name"] == self.index)
        )
        if self.index is not None:
            request["IndexName"] = self.index
        if self.is_query:
            names["#pk"] = keys["partition"]
            values[":pk"] = _typed(self.partition, keys["partition_type"], "pk")
            condition = "#pk = :pk"
            if self.sort_op is not None:
                if keys["sort"] is None:
                    raise QueryError(f"{self.index or 'the table'} has no sort key to compare")
                names["#sk"] = keys["sort"]
                values[":sk"] = _typed(self.sort, keys["sort_type"], "sk")
                if self.sort_to is not None and self.sort_op == "between":
                    values[":sk2"] = _typed(self.sort_to, keys["sort_type"], "sk2")
                condition += " AND " + SORT_OPERATORS[self.sort_op].format(k="#sk", v=":sk", w=":sk2")
            request["KeyConditionExpression"] = condition
        clauses = []
        for n, row in enumerate(self.filters):
            names[f"#f{n}"] = row.attribute
            if row.op not in ("exists", "not_exists"):
                values[f":f{n}"] = _filter_value(row)
            clauses.append(FILTER_OPERATORS[row.op].format(k=f"#f{n}", v=f":f{n}"))
        if clauses:
            request["FilterExpression"] = " AND ".join(clauses)
        if names:
            request["ExpressionAttributeNames"] = names
        if values:
            request["ExpressionAttributeValues"] = values
        if self.after:
            request["ExclusiveStartKey"] = decode_cursor(self.after)
        request["ReturnConsumedCapacity"] = "TOTAL"
        return ("Query" if self.is_query else "Scan"), request


def run(client: Any, description: Mapping[str, Any], query: ItemQuery) -> dict[str, Any]:
    """Send the query; items (wire), the next page's cursor and what it cost."""
    operation, request = query.request(description)
    call = client.query if operation == "Query" else client.scan
    started = time.perf_counter()
    response = call(**request)
    elapsed = (time.perf_counter() - started) * 1000
    last = response.get("LastEvaluatedKey")
    return {
        "operation": operation,
        "request": request,
        "items": [json_wire(item) for item in response.get("Items", [])],
        "count": response.get("Count", 0),
        "scanned": response.get("ScannedCount", 0),
        "consumed_capacity": (response.get("ConsumedCapacity") or {}).get("CapacityUnits"),
        "latency_ms": round(elapsed, 2),
        "next": encode_cursor(last) if last else None,
    }


def encode_cursor(key: Mapping[str, Any]) -> str:
    """A LastEvaluatedKey as a URL-safe token."""
    return base64.urlsafe_b64encode(orjson.dumps(json_wire(key))).decode().rstrip("=")


def decode_cursor(token: str) -> dict[str, Any]:
    """The key a cursor token holds; ``QueryError`` when it is not one of ours."""
    try:
        key = orjson.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    except (binascii.Error, ValueError):
        raise QueryError(f"after={token[:40]!r} is not a page cursor of this explorer") from None
    if not isinstance(key, dict) or not all(isinstance(v, dict) and len(v) == 1 for v in key.values()):
        raise QueryError(f"after={token[:40]!r} is not a page cursor of this explorer")
    try:  # a cursor edited by hand ({"pk": {"M": 5}}): ours, never the converter's AttributeError
        return {name: client_wire(value) for name, value in key.items()}
    except (AttributeError, TypeError, ValueError):
        raise QueryError(f"after={token[:40]!r} is not a page cursor of this explorer") from None


def _blank(value: object) -> str | None:
    return None if value is None or (isinstance(value, str) and not value.strip()) else str(value)


def _limit(raw: object) -> int:
    if raw in (None, ""):
        return 50
    try:
        limit = int(str(raw).strip())
    except ValueError:
        raise QueryError(f"limit {raw!r} is not a whole number") from None
    if not 1 <= limit <= MAX_LIMIT:
        raise QueryError(f"limit {limit}: give 1 to {MAX_LIMIT}")
    return limit


def _number(text: str, where: str) -> str:
    try:
        number = Decimal(text.strip())
    except InvalidOperation:
        raise QueryError(f"{where}: {text!r} is not a number") from None
    if not number.is_finite():
        raise QueryError(f"{where}: {text!r} is not a finite number")
    return text.strip()


def _typed(text: str | None, kind: str | None, where: str) -> dict[str, str]:
    """A key value typed by the key's attribute definition (``S``, ``N`` or ``B``)."""
    text = text or ""
    if kind == "N":
        return {"N": _number(text, where)}
    if kind == "B":
        try:
            base64.b64decode(text, validate=True)
        except binascii.Error:
            raise QueryError(f"{where}: {text!r} is not base64 (the key is binary)") from None
        return {"B": base64.b64decode(text)}
    return {"S": text}


def _filter_value(row: Filter) -> dict[str, Any]:
    where = f"filter on {row.attribute}"
    if row.type == "N":
        return {"N": _number(row.value, where)}
    if row.type == "BOOL":
        word = row.value.strip().lower()
        if word not in ("true", "false"):
            raise QueryError(f"{where}: {row.value!r} is not true or false")
        return {"BOOL": word == "true"}
    if row.type == "NULL":
        return {"NULL": True}
    return {"S": row.value}
