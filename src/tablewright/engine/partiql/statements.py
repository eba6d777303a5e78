"""The PartiQL statement grammar: SELECT, INSERT, UPDATE, DELETE and EXISTS, dispatched on the first word.

:func:`parse` is cached by statement text: applications send the same statements again and again with
different parameters, and the AST holds no parameter values.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from . import lexer as lx
from .errors import INCOMPLETE_KEY, invalid, malformed
from .nodes import Delete, Exists, Insert, Path, Select, Statement, Update, UpdateAction
from .parser import Parser

_RETURNING = {("ALL", "OLD"): "ALL_OLD", ("ALL", "NEW"): "ALL_NEW"}
_RETURNING |= {("MODIFIED", "OLD"): "UPDATED_OLD", ("MODIFIED", "NEW"): "UPDATED_NEW"}


@lru_cache(maxsize=2048)
def parse(text: str) -> Statement:
    """Parse one statement; raises DynamoDB's ValidationException for anything malformed."""
    parser = Parser(text)
    token = parser.token
    build = _STATEMENTS.get(token.text.upper()) if token.kind == lx.NAME else None
    if build is None:
        raise malformed("Expected data manipulation")
    statement = build(parser)
    parser.accept_op(";")
    if parser.token.kind != lx.EOF:
        raise parser.unexpected("one statement per request")
    return statement


def _source(parser: Parser) -> tuple[str, str | None]:
    table = parser.identifier()
    index = parser.identifier() if parser.accept_op(".") else None
    if parser.at_op("."):
        raise invalid("A path may contain at most 2 components in the FROM clause")
    return table, index


def _table_only(parser: Parser) -> str:
    table, index = _source(parser)
    if index is not None:
        raise invalid("This operation is not supported on an index")
    return table


def _select(parser: Parser) -> Select:
    parser.expect_word("SELECT")
    projection: list[Path] | None = []
    star = False
    while True:
        if parser.accept_op("*"):
            star = True
        else:
            projection.append(parser.path())  # type: ignore[union-attr]
        if not parser.accept_op(","):
            break
    if star and projection:
        raise invalid("Other attributes should not be present in the projection when '*' is used.")
    parser.expect_word("FROM")
    table, index = _source(parser)
    where = parser.condition() if parser.accept_word("WHERE") else None
    order: list[tuple[str, bool]] = []
    if parser.accept_word("ORDER"):
        parser.expect_word("BY")
        while True:
            key = parser.path()
            if key.name is None:
                raise invalid(f"Argument to ORDER BY must be of type VariableReference. Type: {key}")
            descending = parser.accept_word("DESC")
            if not descending:
                parser.accept_word("ASC")
            order.append((key.name, descending))
            if not parser.accept_op(","):
                break
    return Select(None if star else tuple(projection or ()), table, index, where, tuple(order), parser.params)


def _insert(parser: Parser) -> Insert:
    parser.expect_word("INSERT")
    parser.expect_word("INTO")
    table = _table_only(parser)
    if parser.at_word("VALUES"):
        raise invalid(
            "Unsupported operation: Inserting multiple items in a single statement is not supported, "
            'use "INSERT INTO tableName VALUE item" instead'
        )
    parser.expect_word("VALUE")
    item = parser.additive()
    if parser.at_word("RETURNING"):
        raise invalid("RETURNING is not supported in INSERT")
    return Insert(table, item, parser.params)


def _update(parser: Parser) -> Update:
    parser.expect_word("UPDATE")
    table = _table_only(parser)
    actions: list[UpdateAction] = []
    while parser.at_word("SET", "REMOVE"):
        kind = parser.advance().text.upper()
        while True:
            path = parser.path()
            value = None
            if kind == "SET":
                parser.expect_op("=")
                value = parser.additive()
            actions.append(UpdateAction(kind, path, value))
            if not parser.accept_op(","):
                break
    if not actions:
        raise parser.unexpected("expected SET or REMOVE")
    if not parser.accept_word("WHERE"):
        raise invalid(INCOMPLETE_KEY)
    where = parser.condition()
    return Update(table, tuple(actions), where, _returning(parser), parser.params)


def _delete(parser: Parser) -> Delete:
    parser.expect_word("DELETE")
    parser.expect_word("FROM")
    table = _table_only(parser)
    if not parser.accept_word("WHERE"):
        raise invalid(INCOMPLETE_KEY)
    where = parser.condition()
    returning = _returning(parser)
    if returning not in (None, "ALL_OLD"):
        shown = returning.replace("UPDATED", "MODIFIED").replace("_", " ")
        raise invalid(
            f"Invalid returning clause: RETURNING {shown} *. Only RETURNING ALL OLD * is allowed in DELETE statements."
        )
    return Delete(table, where, returning, parser.params)


def _returning(parser: Parser) -> str | None:
    if not parser.accept_word("RETURNING"):
        return None
    scope = parser.advance().text.upper()
    age = parser.advance().text.upper()
    mode = _RETURNING.get((scope, age))
    if mode is None or not parser.accept_op("*"):
        raise invalid("Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING clause")
    return mode


def _exists(parser: Parser) -> Exists:
    parser.expect_word("EXISTS")
    parser.expect_op("(")
    select = _select(parser)
    parser.expect_op(")")
    return Exists(select, parser.params)


_STATEMENTS: dict[str, Callable[[Parser], Statement]] = {
    "SELECT": _select,
    "INSERT": _insert,
    "UPDATE": _update,
    "DELETE": _delete,
    "EXISTS": _exists,
}
