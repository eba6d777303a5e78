"""PartiQL: ExecuteStatement, BatchExecuteStatement and ExecuteTransaction through plain boto3.

Reference: Developer Guide, "PartiQL - a SQL-compatible query language for Amazon DynamoDB"
(ql-reference.select/insert/update/delete, ql-functions, ql-operators, ql-reference.multiplestatements
.batching/.transactions); API Reference ExecuteStatement, BatchExecuteStatement, ExecuteTransaction.
Messages are DynamoDB's (the wording DynamoDB Local's PartiQL front end shares with the service).
"""

from __future__ import annotations

import pytest

from ._support import cases, moto_differs, n, raises_dynamodb, s

MOTO_NO_ERRORS = "moto's PartiQL does not raise DynamoDB's validation errors"


@pytest.fixture
def table(client, make_table) -> str:
    """pk (S) / sk (N) with items p#0..p#4 in partition 'p' and one item in partition 'q'."""
    name = make_table("hash_range_n")
    for i in range(5):
        client.put_item(
            TableName=name, Item={"pk": s("p"), "sk": n(i), "a": s(f"v{i}"), "tags": {"SS": ["x"]}}
        )
    client.put_item(
        TableName=name, Item={"pk": s("q"), "sk": n(0), "a": s("q0"), "m": {"M": {"k": {"L": [n(7)]}}}}
    )
    return name


def run(client, statement: str, *params: dict, **options) -> dict:
    request = {"Statement": statement, **options}
    if params:
        request["Parameters"] = list(params)
    return client.execute_statement(**request)


def sks(items: list[dict]) -> list[int]:
    return [int(item["sk"]["N"]) for item in items]


def _get(client, table: str, pk: str, sk: int) -> dict | None:
    return client.get_item(TableName=table, Key={"pk": s(pk), "sk": n(sk)}, ConsistentRead=True).get("Item")


# ------------------------------------------------------------------------------------------ SELECT


def test_select_full_key_returns_the_item(client, table):
    items = run(client, f'SELECT * FROM "{table}" WHERE pk = ? AND sk = ?', s("p"), n(2))["Items"]
    assert items == [{"pk": s("p"), "sk": n(2), "a": s("v2"), "tags": {"SS": ["x"]}}]


def test_select_missing_item_is_empty(client, table):
    assert run(client, f"SELECT * FROM \"{table}\" WHERE pk = 'p' AND sk = 99")["Items"] == []


SORT_KEY_CONDITIONS = {
    "between": ("sk BETWEEN 1 AND 3", [1, 2, 3]),
    "greater": ("sk > 2", [3, 4]),
    "flipped": ("2 >= sk", [0, 1, 2]),
    "not_key_shaped": ("sk <> 2", [0, 1, 3, 4]),
    "filter": ("a = 'v4'", [4]),
    "in_filter": ("a IN ['v1', 'v3']", [1, 3]),
}


@pytest.mark.parametrize(
    ("condition", "expected"),
    cases(
        SORT_KEY_CONDITIONS,
        moto={k: "moto mishandles number sort-key conditions" for k in SORT_KEY_CONDITIONS if k != "filter"},
    ),
)
def test_select_partition_with_conditions(client, table, condition, expected):
    items = run(client, f"SELECT * FROM \"{table}\" WHERE pk = 'p' AND {condition}")["Items"]
    assert sorted(sks(items)) == expected


@moto_differs("moto ignores begins_with on the sort key")
def test_select_begins_with_on_string_sort_key(client, make_table):
    name = make_table("hash_range_s")
    for sk in ("order#1", "order#2", "profile"):
        client.put_item(TableName=name, Item={"pk": s("u"), "sk": s(sk)})
    items = run(client, f"SELECT sk FROM \"{name}\" WHERE pk = 'u' AND begins_with(sk, 'order#')")["Items"]
    assert items == [{"sk": s("order#1")}, {"sk": s("order#2")}]


@moto_differs("moto ignores ORDER BY")
def test_order_by_sort_key_descending(client, table):
    items = run(client, f"SELECT * FROM \"{table}\" WHERE pk = 'p' ORDER BY sk DESC")["Items"]
    assert sks(items) == [4, 3, 2, 1, 0]


@moto_differs("moto ignores IN over partition keys")
def test_select_in_over_partition_keys(client, table):
    items = run(client, f"SELECT pk, sk FROM \"{table}\" WHERE pk IN ['q', 'p'] AND sk < 1")["Items"]
    assert sorted((i["pk"]["S"], sks([i])[0]) for i in items) == [("p", 0), ("q", 0)]


SCAN_FILTERS = {
    "is_missing": ("m IS MISSING", 5),
    "is_not_missing": ("m IS NOT MISSING", 1),
    "contains": ("contains(tags, 'x')", 5),
    "size": ("size(tags) = 1", 5),
    "attribute_type": ("attribute_type(m, 'M')", 1),
    "or_not": ("a = 'v0' OR NOT (pk = 'p')", 2),
    "nested_path": ("m.k[0] = 7", 1),
}


@pytest.mark.parametrize(
    ("condition", "count"),
    cases(
        SCAN_FILTERS,
        moto={k: "moto lacks this function or operator" for k in SCAN_FILTERS if "missing" not in k},
    ),
)
def test_select_scan_filters(client, table, condition, count):
    assert len(run(client, f'SELECT * FROM "{table}" WHERE {condition}')["Items"]) == count


def test_select_without_where_reads_the_whole_table(client, table):
    assert len(run(client, f'SELECT * FROM "{table}"')["Items"]) == 6


@moto_differs("moto does not project nested paths")
def test_projection_of_nested_paths(client, table):
    items = run(client, f"SELECT a, m.k[0] FROM \"{table}\" WHERE pk = 'q' AND sk = 0")["Items"]
    assert items == [{"a": s("q0"), "m": {"M": {"k": {"L": [n(7)]}}}}]


@moto_differs("moto does not read indexes through PartiQL")
def test_select_through_a_global_index(client, make_table):
    name = make_table("gsi")
    client.put_item(TableName=name, Item={"pk": s("a"), "sk": s("1"), "gpk": s("g"), "gsk": n(2)})
    client.put_item(TableName=name, Item={"pk": s("b"), "sk": s("1"), "gpk": s("g"), "gsk": n(1)})
    items = run(client, f'SELECT pk FROM "{name}"."gsi1" WHERE gpk = \'g\' AND gsk >= 1')["Items"]
    assert items == [{"pk": s("b")}, {"pk": s("a")}]


@moto_differs("moto does not paginate PartiQL")
def test_limit_and_next_token_page_through_everything(client, table):
    seen, token, pages = [], None, 0
    while True:
        options = {"Limit": 2, **({"NextToken": token} if token else {})}
        page = run(client, f"SELECT * FROM \"{table}\" WHERE pk IN ['p', 'q']", **options)
        seen.extend((i["pk"]["S"], int(i["sk"]["N"])) for i in page["Items"])
        pages += 1
        token = page.get("NextToken")
        if token is None:
            break
    assert sorted(seen) == [("p", i) for i in range(5)] + [("q", 0)]
    assert pages >= 3


@moto_differs("moto does not paginate PartiQL")
@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda t: t[:-3] + ("A" if t[-3] != "A" else "B") + t[-2:], "Invalid NextToken"),
        (lambda t: t, "NextToken does not match request"),
    ],
    ids=["tampered", "other_statement"],
)
def test_next_token_is_checked(client, table, mutate, message):
    token = run(client, f"SELECT * FROM \"{table}\" WHERE pk = 'p'", Limit=1)["NextToken"]
    statement = f"SELECT * FROM \"{table}\" WHERE pk = 'p'"
    if message.startswith("NextToken does not"):
        statement += " AND sk >= 0"
    with raises_dynamodb("ValidationException", message):
        run(client, statement, Limit=1, NextToken=mutate(token))


@moto_differs("moto returns no ConsumedCapacity for PartiQL")
def test_consumed_capacity_when_asked(client, table):
    response = run(client, f"SELECT * FROM \"{table}\" WHERE pk = 'p'", ReturnConsumedCapacity="TOTAL")
    assert response["ConsumedCapacity"]["TableName"] == table
    assert response["ConsumedCapacity"]["CapacityUnits"] > 0


READ_ERRORS = {
    "order_without_where": (
        'SELECT * FROM "{t}" ORDER BY sk',
        "Must have WHERE clause in the statement when using ORDER BY clause.",
    ),
    "order_on_scan": (
        "SELECT * FROM \"{t}\" WHERE a = 'x' ORDER BY sk",
        "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause.",
    ),
    "order_non_key": (
        "SELECT * FROM \"{t}\" WHERE pk = 'p' ORDER BY a",
        "Variable reference a in ORDER BY clause must be part of the primary key",
    ),
    "star_and_names": (
        'SELECT *, a FROM "{t}"',
        "Other attributes should not be present in the projection when '*' is used.",
    ),
    "syntax": ('SELEC * FROM "{t}"', "Statement wasn't well formed, can't be processed"),
    "trailing": ('SELECT * FROM "{t}" WHERE', "Statement wasn't well formed, can't be processed"),
    "missing_compare": (
        'SELECT * FROM "{t}" WHERE a = MISSING',
        "MISSING must be compared using IS operator",
    ),
    "exists_outside_transaction": (
        "EXISTS(SELECT * FROM \"{t}\" WHERE pk = 'p' AND sk = 1 AND a = 'v1')",
        "EXISTS can only be used in ExecuteTransaction write requests.",
    ),
}


@moto_differs(MOTO_NO_ERRORS)
@pytest.mark.parametrize(("statement", "message"), READ_ERRORS.values(), ids=READ_ERRORS)
def test_read_errors(client, table, statement, message):
    with raises_dynamodb("ValidationException", message):
        run(client, statement.format(t=table))


@moto_differs(MOTO_NO_ERRORS)
@pytest.mark.parametrize("params", [(), (s("p"), s("extra"))], ids=["too_few", "too_many"])
def test_parameter_count_must_match(client, table, params):
    with raises_dynamodb("ValidationException", "Number of parameters in request and statement don't match."):
        run(client, f'SELECT * FROM "{table}" WHERE pk = ?', *params)


def test_unknown_table(client):
    with raises_dynamodb("ResourceNotFoundException"):
        run(client, 'SELECT * FROM "nowhere" WHERE pk = 1')


# ------------------------------------------------------------------------------------------ INSERT


@moto_differs("moto does not parse every literal type")
def test_insert_literals_of_every_type(client, table):
    run(
        client,
        f"INSERT INTO \"{table}\" VALUE {{'pk': 'it''s', 'sk': -1.50, 'b': TRUE, 'z': NULL, "
        "'ss': <<'a', 'b'>>, 'ns': <<1, 2>>, 'm': {'k': [1, 'x']}, 'p': ?}",
        {"B": b"\x00\x01"},
    )
    item = _get(client, table, "it's", -1.5)
    assert item["b"] == {"BOOL": True} and item["z"] == {"NULL": True}
    assert sorted(item["ss"]["SS"]) == ["a", "b"] and sorted(item["ns"]["NS"]) == ["1", "2"]
    assert item["m"] == {"M": {"k": {"L": [n(1), s("x")]}}}
    assert item["p"] == {"B": b"\x00\x01"}


@moto_differs("moto's INSERT overwrites")
def test_insert_of_an_existing_key_is_a_duplicate(client, table):
    with raises_dynamodb("DuplicateItemException", "Duplicate primary key exists in table"):
        run(client, f"INSERT INTO \"{table}\" VALUE {{'pk': 'p', 'sk': 1, 'a': 'new'}}")
    assert _get(client, table, "p", 1)["a"] == s("v1")


def test_insert_maintains_indexes(client, make_table):
    name = make_table("gsi")
    run(client, f"INSERT INTO \"{name}\" VALUE {{'pk': 'a', 'sk': 's', 'gpk': 'g', 'gsk': 5}}")
    found = client.query(
        TableName=name,
        IndexName="gsi1",
        KeyConditionExpression="gpk = :g",
        ExpressionAttributeValues={":g": s("g")},
    )["Items"]
    assert [i["pk"] for i in found] == [s("a")]


# ------------------------------------------------------------------------------------------ UPDATE


@moto_differs("moto does not evaluate SET arithmetic")
def test_update_set_arithmetic_list_append_and_remove(client, table):
    client.put_item(
        TableName=table, Item={"pk": s("u"), "sk": n(1), "c": n(1), "l": {"L": [n(1)]}, "d": s("x")}
    )
    run(
        client,
        f"UPDATE \"{table}\" SET c = c + 2, l = list_append(l, [?]) REMOVE d WHERE pk = 'u' AND sk = 1",
        s("y"),
    )
    assert _get(client, table, "u", 1) == {"pk": s("u"), "sk": n(1), "c": n(3), "l": {"L": [n(1), s("y")]}}


@moto_differs("moto does not implement set_add/set_delete")
def test_update_set_add_and_set_delete(client, table):
    run(
        client,
        f"UPDATE \"{table}\" SET tags = set_add(tags, <<'y', 'z'>>) WHERE pk = 'p' AND sk = 0",
    )
    run(client, f"UPDATE \"{table}\" SET tags = set_delete(tags, <<'x'>>) WHERE pk = 'p' AND sk = 0")
    assert sorted(_get(client, table, "p", 0)["tags"]["SS"]) == ["y", "z"]


RETURNING = {
    "all_old": ("ALL OLD", {"pk": s("p"), "sk": n(1), "a": s("v1"), "tags": {"SS": ["x"]}}),
    "all_new": ("ALL NEW", {"pk": s("p"), "sk": n(1), "a": s("w"), "tags": {"SS": ["x"]}}),
    "modified_old": ("MODIFIED OLD", {"a": s("v1")}),
    "modified_new": ("MODIFIED NEW", {"a": s("w")}),
}


@moto_differs("moto ignores RETURNING")
@pytest.mark.parametrize(("clause", "expected"), RETURNING.values(), ids=RETURNING)
def test_update_returning(client, table, clause, expected):
    items = run(client, f"UPDATE \"{table}\" SET a = 'w' WHERE pk = 'p' AND sk = 1 RETURNING {clause} *")[
        "Items"
    ]
    assert items == [expected]


@moto_differs("moto's UPDATE creates the item")
def test_update_of_a_missing_item_fails_and_creates_nothing(client, table):
    with raises_dynamodb("ConditionalCheckFailedException"):
        run(client, f"UPDATE \"{table}\" SET a = 'x' WHERE pk = 'nope' AND sk = 1")
    assert _get(client, table, "nope", 1) is None


@moto_differs("moto ignores extra WHERE conditions on UPDATE")
def test_update_extra_where_conditions_are_the_condition(client, table):
    with raises_dynamodb("ConditionalCheckFailedException") as info:
        run(
            client,
            f"UPDATE \"{table}\" SET a = 'x' WHERE pk = 'p' AND sk = 1 AND a = 'other'",
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
    assert info.value.response["Item"]["a"] == s("v1")
    run(client, f"UPDATE \"{table}\" SET a = 'x' WHERE pk = 'p' AND sk = 1 AND a = 'v1'")
    assert _get(client, table, "p", 1)["a"] == s("x")


WRITE_ERRORS = {
    "update_partial_key": (
        "UPDATE \"{t}\" SET a = 1 WHERE pk = 'p'",
        "Where clause does not contain a mandatory equality on all key attributes",
    ),
    "update_key_under_or": (
        "UPDATE \"{t}\" SET a = 1 WHERE pk = 'p' OR sk = 1",
        "Where clause does not contain a mandatory equality on all key attributes",
    ),
    "delete_no_where": (
        'DELETE FROM "{t}"',
        "Where clause does not contain a mandatory equality on all key attributes",
    ),
    "delete_returning_new": (
        "DELETE FROM \"{t}\" WHERE pk = 'p' AND sk = 1 RETURNING ALL NEW *",
        "Only RETURNING ALL OLD * is allowed in DELETE statements.",
    ),
    "insert_values": (
        "INSERT INTO \"{t}\" VALUES {{'pk': 'a', 'sk': 1}}",
        "Inserting multiple items in a single statement is not supported",
    ),
    "insert_returning": (
        "INSERT INTO \"{t}\" VALUE {{'pk': 'a', 'sk': 1}} RETURNING ALL OLD *",
        "RETURNING is not supported in INSERT",
    ),
    "insert_not_a_tuple": (
        "INSERT INTO \"{t}\" VALUE 'x'",
        "Please use struct format {...} to express item values",
    ),
    "empty_bag": (
        "INSERT INTO \"{t}\" VALUE {{'pk': 'a', 'sk': 1, 's': <<>>}}",
        "Empty bags are not supported",
    ),
    "mixed_bag": (
        "INSERT INTO \"{t}\" VALUE {{'pk': 'a', 'sk': 1, 's': <<1, 'a'>>}}",
        "DynamoDB only supports either numbers or strings in bags",
    ),
}


@moto_differs(MOTO_NO_ERRORS)
@pytest.mark.parametrize(("statement", "message"), WRITE_ERRORS.values(), ids=WRITE_ERRORS)
def test_write_errors(client, table, statement, message):
    with raises_dynamodb("ValidationException", message):
        run(client, statement.format(t=table))


# ------------------------------------------------------------------------------------------ DELETE


@moto_differs("moto ignores RETURNING")
def test_delete_returning_all_old(client, table):
    items = run(client, f"DELETE FROM \"{table}\" WHERE pk = 'p' AND sk = 3 RETURNING ALL OLD *")["Items"]
    assert sks(items) == [3]
    assert _get(client, table, "p", 3) is None


@moto_differs("moto fails DELETE of a missing item")
def test_delete_of_a_missing_item_succeeds(client, table):
    assert run(client, f"DELETE FROM \"{table}\" WHERE pk = 'nope' AND sk = 1")["Items"] == []


@moto_differs("moto ignores extra WHERE conditions on DELETE")
def test_delete_with_a_false_condition_fails(client, table):
    with raises_dynamodb("ConditionalCheckFailedException"):
        run(client, f"DELETE FROM \"{table}\" WHERE pk = 'p' AND sk = 3 AND a = 'other'")
    assert _get(client, table, "p", 3) is not None


# ------------------------------------------------------------------------------- BatchExecuteStatement


@moto_differs("moto's batch responses differ in shape")
def test_batch_reads_answer_per_statement(client, table):
    responses = client.batch_execute_statement(
        Statements=[
            {"Statement": f'SELECT a FROM "{table}" WHERE pk = ? AND sk = ?', "Parameters": [s("p"), n(1)]},
            {"Statement": f"SELECT * FROM \"{table}\" WHERE pk = 'p' AND sk = 42"},
            {"Statement": f"SELECT * FROM \"{table}\" WHERE pk = 'p'"},
        ]
    )["Responses"]
    assert responses[0] == {"TableName": table, "Item": {"a": s("v1")}}
    assert responses[1] == {"TableName": table}
    assert responses[2]["Error"]["Code"] == "ValidationError"
    assert "mandatory equality on all key attributes" in responses[2]["Error"]["Message"]


@moto_differs("moto's batch responses differ in shape")
def test_batch_writes_are_independent(client, table):
    responses = client.batch_execute_statement(
        Statements=[
            {"Statement": f"INSERT INTO \"{table}\" VALUE {{'pk': 'n', 'sk': 1}}"},
            {"Statement": f"INSERT INTO \"{table}\" VALUE {{'pk': 'p', 'sk': 1}}"},
            {"Statement": f"UPDATE \"{table}\" SET a = 'x' WHERE pk = 'none' AND sk = 1"},
            {"Statement": f"DELETE FROM \"{table}\" WHERE pk = 'p' AND sk = 4"},
        ]
    )["Responses"]
    assert [r.get("Error", {}).get("Code") for r in responses] == [
        None,
        "DuplicateItem",
        "ConditionalCheckFailed",
        None,
    ]
    assert _get(client, table, "n", 1) is not None and _get(client, table, "p", 4) is None


@moto_differs(MOTO_NO_ERRORS)
def test_batch_cannot_mix_reads_and_writes(client, table):
    with raises_dynamodb("ValidationException", "does not support both read and write operations"):
        client.batch_execute_statement(
            Statements=[
                {"Statement": f"SELECT * FROM \"{table}\" WHERE pk = 'p' AND sk = 1"},
                {"Statement": f"DELETE FROM \"{table}\" WHERE pk = 'p' AND sk = 1"},
            ]
        )


@moto_differs("moto does not check the batch size")
def test_batch_of_more_than_25_statements_is_refused(client, table):
    statement = {"Statement": f"SELECT * FROM \"{table}\" WHERE pk = 'p' AND sk = 1"}
    with raises_dynamodb("ValidationException", "Member must have length less than or equal to 25"):
        client.batch_execute_statement(Statements=[statement] * 26)


# ---------------------------------------------------------------------------------- ExecuteTransaction


@moto_differs("moto's ExecuteTransaction is not atomic")
def test_transaction_is_all_or_nothing_with_reasons_in_order(client, table):
    with raises_dynamodb("TransactionCanceledException") as info:
        client.execute_transaction(
            TransactStatements=[
                {"Statement": f"INSERT INTO \"{table}\" VALUE {{'pk': 'new', 'sk': 1}}"},
                {"Statement": f"INSERT INTO \"{table}\" VALUE {{'pk': 'p', 'sk': 2}}"},
                {"Statement": f"UPDATE \"{table}\" SET a = 'x' WHERE pk = 'missing' AND sk = 1"},
            ]
        )
    codes = [r["Code"] for r in info.value.response["CancellationReasons"]]
    assert codes == ["None", "DuplicateItem", "ConditionalCheckFailed"]
    assert _get(client, table, "new", 1) is None


@moto_differs("moto does not implement EXISTS")
def test_transaction_exists_is_a_condition_check(client, table):
    exists = f"EXISTS(SELECT * FROM \"{table}\" WHERE pk = 'p' AND sk = 0 AND a = ?)"
    write = {"Statement": f"UPDATE \"{table}\" SET a = 'done' WHERE pk = 'p' AND sk = 1"}
    with raises_dynamodb("TransactionCanceledException"):
        client.execute_transaction(
            TransactStatements=[{"Statement": exists, "Parameters": [s("wrong")]}, write]
        )
    assert _get(client, table, "p", 1)["a"] == s("v1")
    client.execute_transaction(TransactStatements=[{"Statement": exists, "Parameters": [s("v0")]}, write])
    assert _get(client, table, "p", 1)["a"] == s("done")


@moto_differs("moto's ExecuteTransaction returns no reads")
def test_transaction_of_reads(client, table):
    responses = client.execute_transaction(
        TransactStatements=[
            {"Statement": f"SELECT a FROM \"{table}\" WHERE pk = 'p' AND sk = 2"},
            {"Statement": f"SELECT * FROM \"{table}\" WHERE pk = 'p' AND sk = 42"},
        ]
    )["Responses"]
    assert responses == [{"Item": {"a": s("v2")}}, {}]


@moto_differs("moto ignores ClientRequestToken")
def test_transaction_client_request_token_runs_once(client, table):
    client.put_item(TableName=table, Item={"pk": s("c"), "sk": n(0), "count": n(0)})
    statements = [{"Statement": f'UPDATE "{table}" SET "count" = "count" + 1 WHERE pk = \'c\' AND sk = 0'}]
    for _ in range(2):
        client.execute_transaction(TransactStatements=statements, ClientRequestToken="once")
    assert _get(client, table, "c", 0)["count"] == n(1)
    with raises_dynamodb("IdempotentParameterMismatchException"):
        client.execute_transaction(
            TransactStatements=[{"Statement": f"DELETE FROM \"{table}\" WHERE pk = 'c' AND sk = 0"}],
            ClientRequestToken="once",
        )


TRANSACTION_ERRORS = {
    "mixed": (
        ["SELECT * FROM \"{t}\" WHERE pk = 'p' AND sk = 1", "DELETE FROM \"{t}\" WHERE pk = 'p' AND sk = 2"],
        "ExecuteTransaction API does not support both read and write operations in the same request.",
    ),
    "read_without_key": (
        ["SELECT * FROM \"{t}\" WHERE pk = 'p'"],
        "Select statements within ExecuteTransaction must specify the primary key in the where clause.",
    ),
    "returning": (
        ["UPDATE \"{t}\" SET a = 1 WHERE pk = 'p' AND sk = 1 RETURNING ALL NEW *"],
        "RETURNING is not supported",
    ),
    "exists_without_condition": (
        [
            "EXISTS(SELECT * FROM \"{t}\" WHERE pk = 'p' AND sk = 1)",
            "DELETE FROM \"{t}\" WHERE pk = 'p' AND sk = 2",
        ],
        "EXISTS() must contain a single item read with additional condition",
    ),
    "two_writes_one_item": (
        [
            "DELETE FROM \"{t}\" WHERE pk = 'p' AND sk = 1",
            "UPDATE \"{t}\" SET a = 1 WHERE pk = 'p' AND sk = 1",
        ],
        "Transaction request cannot include multiple operations on one item",
    ),
}


@moto_differs(MOTO_NO_ERRORS)
@pytest.mark.parametrize(("statements", "message"), TRANSACTION_ERRORS.values(), ids=TRANSACTION_ERRORS)
def test_transaction_errors(client, table, statements, message):
    with raises_dynamodb("ValidationException", message):
        client.execute_transaction(TransactStatements=[{"Statement": x.format(t=table)} for x in statements])
