"""PartiQL front end units: tokenizer, parser, writer and planner, on the package directly."""

from __future__ import annotations

import pytest

from tablewright.engine import Engine
from tablewright.engine.errors import ValidationException
from tablewright.engine.partiql import parse, plan_select, plan_write
from tablewright.engine.partiql.lexer import tokenize
from tablewright.engine.partiql.nodes import (
    BagExpr,
    Between,
    Call,
    Compare,
    Exists,
    In,
    Insert,
    Is,
    Literal,
    Logical,
    MapExpr,
    Not,
    Param,
    Path,
    Select,
    Update,
)
from tablewright.engine.partiql.tokens import issue, redeem, request_digest
from tablewright.engine.partiql.writer import Writer


def where(text: str):
    statement = parse(f'SELECT * FROM "t" WHERE {text}')
    assert isinstance(statement, Select)
    return statement.where


def test_tokenizer_unescapes_quotes_and_skips_comments():
    tokens = tokenize("SELECT 'it''s' -- note\n, \"a\"\"b\" /* block */ ?")
    assert [(t.kind, t.text) for t in tokens] == [
        ("NAME", "SELECT"),
        ("STRING", "it's"),
        ("OP", ","),
        ("QNAME", 'a"b'),
        ("PARAM", "?"),
        ("EOF", "<EOF>"),
    ]


def test_select_shape():
    statement = parse('select a, "b".c[2], d[\'k\'] from "t"."i" where pk = ? order by sk desc;')
    assert statement == Select(
        projection=(Path(("a",)), Path(("b", "c", 2)), Path(("d", "k"))),
        table="t",
        index="i",
        where=Compare("=", Path(("pk",)), Param(0)),
        order=(("sk", True),),
        params=1,
    )


CONDITIONS = {
    "precedence": (
        "a = 1 OR b = 2 AND NOT c = 3",
        Logical(
            "OR",
            (
                Compare("=", Path(("a",)), Literal({"N": "1"})),
                Logical(
                    "AND",
                    (
                        Compare("=", Path(("b",)), Literal({"N": "2"})),
                        Not(Compare("=", Path(("c",)), Literal({"N": "3"}))),
                    ),
                ),
            ),
        ),
    ),  # noqa: E501
    "between_negative": (
        "a BETWEEN -1 AND 2",
        Between(Path(("a",)), Literal({"N": "-1"}), Literal({"N": "2"})),
    ),
    "in_parens": ("a IN ('x', ?)", In(Path(("a",)), (Literal({"S": "x"}), Param(0)))),
    "not_in": ("a NOT IN [1]", Not(In(Path(("a",)), (Literal({"N": "1"}),)))),
    "is_not_missing": ("a IS NOT MISSING", Is(Path(("a",)), "MISSING", True)),
    "function": ("BEGINS_WITH(a, 'x')", Call("begins_with", (Path(("a",)), Literal({"S": "x"})))),
    "bang_equals": ("a != TRUE", Compare("<>", Path(("a",)), Literal({"BOOL": True}))),
}


@pytest.mark.parametrize(("text", "expected"), CONDITIONS.values(), ids=CONDITIONS)
def test_condition_grammar(text, expected):
    assert where(text) == expected


def test_insert_literals():
    statement = parse("INSERT INTO t VALUE {'pk': ?, 's': <<'a'>>, 'm': {'n': NULL}}")
    assert isinstance(statement, Insert)
    assert statement.item == MapExpr(
        (
            ("pk", Param(0)),
            ("s", BagExpr((Literal({"S": "a"}),))),
            ("m", MapExpr((("n", Literal({"NULL": True})),))),
        )
    )


def test_update_actions_and_returning():
    statement = parse(
        "UPDATE t SET a = a + 1, b = ? REMOVE c SET d = 'x' WHERE pk = ? RETURNING MODIFIED NEW *"
    )
    assert isinstance(statement, Update)
    assert [(a.kind, str(a.path)) for a in statement.actions] == [
        ("SET", "a"),
        ("SET", "b"),
        ("REMOVE", "c"),
        ("SET", "d"),
    ]
    assert statement.returning == "UPDATED_NEW" and statement.params == 2


def test_exists_wraps_a_select():
    statement = parse("EXISTS (SELECT * FROM t WHERE pk = 1 AND a = 2)")
    assert isinstance(statement, Exists) and statement.select.table == "t"


def test_parses_are_cached_by_text():
    text = "SELECT * FROM t WHERE pk = ?"
    assert parse(text) is parse(text)


MALFORMED = {
    "unknown_verb": "UPSERT INTO t VALUE {'a': 1}",
    "two_statements": "SELECT * FROM t; SELECT * FROM t",
    "dangling_and": "SELECT * FROM t WHERE a = 1 AND",
    "bad_character": "SELECT * FROM t WHERE a = #x",
    "unclosed_map": "INSERT INTO t VALUE {'a': 1",
}


@pytest.mark.parametrize("text", MALFORMED.values(), ids=MALFORMED)
def test_malformed_statements(text):
    with pytest.raises(ValidationException, match="Statement wasn't well formed, can't be processed: "):
        parse(text)


def test_writer_generates_placeholders_for_names_and_values():
    writer = Writer([{"S": "x"}])
    text = writer.condition(where("size(a.b) > ? AND c IS NULL"))
    request = writer.attach({})
    assert text == "(size(#n0.#n1) > :v0) AND (attribute_not_exists(#n2) OR attribute_type(#n2, :v1))"
    assert request == {
        "ExpressionAttributeNames": {"#n0": "a", "#n1": "b", "#n2": "c"},
        "ExpressionAttributeValues": {":v0": {"S": "x"}, ":v1": {"S": "NULL"}},
    }


NULL_TESTS = {
    "and": ("x IS NOT MISSING AND y IS NULL", {"no-y", "null-y"}),
    "or": ("y IS NULL OR x = 2", {"no-y", "null-y", "y"}),
    "not": ("NOT (y IS NULL)", {"y"}),
    "not_not_null": ("NOT (y IS NOT NULL) AND x >= 0", {"no-y", "null-y"}),
    "nested": ("(y IS NULL AND x = 0) OR (y IS NOT NULL AND x = 2)", {"no-y", "y"}),
    "double": ("((y IS NULL))", {"no-y", "null-y"}),
}


@pytest.mark.parametrize(("condition", "expected"), NULL_TESTS.values(), ids=NULL_TESTS)
def test_is_null_inside_and_or_not_runs_in_every_statement(condition, expected):
    """IS NULL writes its own parentheses; AND, OR and NOT around it add no second, redundant pair
    (which DynamoDB's expression parser refuses)."""
    with Engine() as engine:
        engine.create_table(
            TableName="nulls",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        items = {
            "no-y": {"x": {"N": "0"}},
            "null-y": {"x": {"N": "1"}, "y": {"NULL": True}},
            "y": {"x": {"N": "2"}, "y": {"S": "set"}},
        }
        for key, item in items.items():
            engine.handle("PutItem", {"TableName": "nulls", "Item": {"pk": {"S": key}, **item}})
        found = engine.handle("ExecuteStatement", {"Statement": f'SELECT pk FROM "nulls" WHERE {condition}'})
        assert {item["pk"]["S"] for item in found["Items"]} == expected
        for key in items:  # an UPDATE and a DELETE keep the condition as their ConditionExpression
            update = f"UPDATE \"nulls\" SET z = 1 WHERE pk = '{key}' AND ({condition})"
            try:
                engine.handle("ExecuteStatement", {"Statement": update})
            except Exception as error:  # noqa: BLE001 - the condition failing is the expected refusal
                assert getattr(error, "code", None) == "ConditionalCheckFailedException", error
                assert key not in expected
            else:
                assert key in expected
        updated = engine.handle("Scan", {"TableName": "nulls", "FilterExpression": "attribute_exists(z)"})
        assert {item["pk"]["S"] for item in updated["Items"]} == expected
        for key in items:
            delete = f"DELETE FROM \"nulls\" WHERE pk = '{key}' AND ({condition})"
            try:
                engine.handle("ExecuteStatement", {"Statement": delete})
            except Exception as error:  # noqa: BLE001
                assert getattr(error, "code", None) == "ConditionalCheckFailedException", error
        left = engine.handle("Scan", {"TableName": "nulls"})
        assert {item["pk"]["S"] for item in left["Items"]} == set(items) - expected


@pytest.fixture
def table():
    engine = Engine()
    engine.create_table(
        TableName="tbl",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "N"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    yield engine.store.table("tbl")
    engine.close()


PLANS = {
    "full_key": ("pk = 'a' AND sk = 1", "GetItem", 1),
    "partition": ("pk = 'a' AND sk > 1", "Query", 1),
    "partition_in": ("pk IN ['a', 'b', 'a']", "Query", 2),
    "key_filter_falls_back": ("pk = 'a' AND sk > 1 AND sk < 5", "Scan", 1),
    "no_key": ("x = 1", "Scan", 1),
    "key_under_or": ("pk = 'a' OR pk = 'b'", "Scan", 1),
}


@pytest.mark.parametrize(("condition", "operation", "steps"), PLANS.values(), ids=PLANS)
def test_select_plans(table, condition, operation, steps):
    plan = plan_select(parse(f"SELECT * FROM tbl WHERE {condition}"), table, [])
    assert (plan.operation, len(plan.steps)) == (operation, steps)


def test_query_plan_request(table):
    plan = plan_select(
        parse("SELECT a FROM tbl WHERE pk = ? AND begins_with(a, 'x') ORDER BY sk DESC"), table, [{"S": "p"}]
    )
    assert plan.steps == [
        {
            "TableName": "tbl",
            "ProjectionExpression": "#n0",
            "KeyConditionExpression": "#n1 = :v0",
            "FilterExpression": "begins_with(#n0, :v1)",
            "ScanIndexForward": False,
            "ExpressionAttributeNames": {"#n0": "a", "#n1": "pk"},
            "ExpressionAttributeValues": {":v0": {"S": "p"}, ":v1": {"S": "x"}},
        }
    ]


def test_update_plan_request(table):
    statement = parse("UPDATE tbl SET s = set_add(s, <<1>>) REMOVE r WHERE sk = 2 AND pk = 'a' AND v < 3")
    plan = plan_write(statement, table, [])
    assert plan.request["Key"] == {"pk": {"S": "a"}, "sk": {"N": "2"}}
    assert plan.request["UpdateExpression"] == "REMOVE #n1 ADD #n0 :v0"
    assert plan.request["ConditionExpression"] == "attribute_exists(#n2) AND (#n3 < :v1)"


def test_next_token_round_trip_and_binding():
    digest = request_digest("SELECT 1", [{"S": "a"}])
    token = issue(digest, 2, {"pk": {"S": "k"}})
    assert redeem(token, digest) == (2, {"pk": {"S": "k"}})
    with pytest.raises(ValidationException, match="NextToken does not match request"):
        redeem(token, request_digest("SELECT 1", [{"S": "b"}]))
    with pytest.raises(ValidationException, match="Invalid NextToken"):
        redeem("x" + token[1:], digest)
