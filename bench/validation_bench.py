"""Micro-benchmark of request-shape validation: prints microseconds per validate_request call.

Not a test (timings vary by machine); run ``python bench/validation_bench.py`` to see the cost the
engine pays per request for PutItem, Query and a 25-action TransactWriteItems.
"""

from __future__ import annotations

import timeit

from tablewright.engine.validation import validate_request

ITEM = {"pk": {"S": "user#1"}, "sk": {"S": "profile"}, "name": {"S": "Ada"}, "age": {"N": "36"}}

REQUESTS = {
    "PutItem": {
        "TableName": "users",
        "Item": ITEM,
        "ConditionExpression": "attribute_not_exists(pk)",
        "ReturnValues": "NONE",
    },
    "Query": {
        "TableName": "users",
        "IndexName": "by-name",
        "KeyConditionExpression": "#n = :n AND begins_with(sk, :p)",
        "ExpressionAttributeNames": {"#n": "name"},
        "ExpressionAttributeValues": {":n": {"S": "Ada"}, ":p": {"S": "profile"}},
        "Limit": 25,
        "ScanIndexForward": False,
        "ReturnConsumedCapacity": "TOTAL",
    },
    "TransactWriteItems": {
        "TransactItems": [
            {"Put": {"TableName": "users", "Item": ITEM, "ConditionExpression": "attribute_not_exists(pk)"}}
        ]
        * 25,
        "ClientRequestToken": "token-1",
    },
}


def main() -> None:
    """Time each request: the first call compiles the plan, so it is made before timing starts."""
    for operation, request in REQUESTS.items():
        validate_request(operation, request)
        runs, total = timeit.Timer(lambda op=operation, r=request: validate_request(op, r)).autorange()
        best = min(
            timeit.repeat(lambda op=operation, r=request: validate_request(op, r), number=runs, repeat=5)
        )
        print(f"{operation:20s} {best / runs * 1e6:8.2f} µs per validate")


if __name__ == "__main__":
    main()
