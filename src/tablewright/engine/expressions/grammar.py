"""The expression parser: tokens -> AST, by recursive descent over dispatch tables.

Keywords are matched case-insensitively (``and``, ``Between``, ``set``); function names are
case-sensitive, as in DynamoDB. Precedence, loosest first: ``OR``, ``AND``, ``NOT``, then one
predicate (a comparison, ``BETWEEN``, ``IN``, a boolean function or a parenthesised condition).
Every parse is cached by ``(text, kind)``: the AST is immutable and placeholders stay unresolved, so
one tree serves every request that repeats the expression.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from .keywords import is_reserved
from .lexer import EOF, INDEX, NAME, NAME_REF, OP, VALUE_REF, Token, syntax_error, tokenize
from .messages import (
    LEGACY_VALUE_PREFIX,
    MAX_EXPRESSION_BYTES,
    MAX_IN_OPERANDS,
    MAX_LIST_INDEX,
    MAX_OPERATORS,
    MAX_PAREN_DEPTH,
    MAX_PATH_DEPTH,
    REDUNDANT_PARENTHESES,
    incorrect_operand,
    invalid_expression,
)
from .nodes import (
    Action,
    And,
    Arith,
    Between,
    Call,
    Compare,
    Condition,
    ConditionExpr,
    In,
    Not,
    Operand,
    Or,
    PathExpr,
    ProjectionExpr,
    UpdateExpr,
    ValueRef,
)

COMPARATORS = frozenset({"=", "<>", "<", "<=", ">", ">="})


@dataclass(frozen=True, slots=True)
class FunctionSpec:
    """A function's parameters and what it yields.

    A parameter is ``"path"`` (a document path), ``"value"`` (a ``:value``), ``"path_or_value"``
    (either: DynamoDB evaluates ``size(:s)`` as the size of that value) or ``"operand"`` (anything).
    """

    params: tuple[str, ...]
    returns: str  # "condition" or "operand"


CONDITION_FUNCTIONS: dict[str, FunctionSpec] = {
    "attribute_exists": FunctionSpec(("path",), "condition"),
    "attribute_not_exists": FunctionSpec(("path",), "condition"),
    "attribute_type": FunctionSpec(("path_or_value", "value"), "condition"),
    "begins_with": FunctionSpec(("path_or_value", "operand"), "condition"),
    "contains": FunctionSpec(("path_or_value", "operand"), "condition"),
    "size": FunctionSpec(("path_or_value",), "operand"),
}
UPDATE_FUNCTIONS: dict[str, FunctionSpec] = {
    "if_not_exists": FunctionSpec(("path", "operand"), "operand"),
    "list_append": FunctionSpec(("operand", "operand"), "operand"),
}
_ALL_FUNCTIONS = CONDITION_FUNCTIONS | UPDATE_FUNCTIONS
# Functions whose result may not be an argument of the same function (DynamoDB: "not allowed to be
# used this way"); nested if_not_exists is fine.
_NOT_NESTABLE = frozenset({"list_append"})


def _is_legacy_update(text: str, tokens: list[Token]) -> bool:
    """Whether an update is the translation of legacy AttributeUpdates: only generated placeholders
    and keywords. AttributeUpdates has no expression, so no expression-size limit applies to it."""
    return all(
        tok.kind in (EOF, OP)
        or (tok.kind == NAME and tok.text in ("SET", "REMOVE", "ADD", "DELETE", *UPDATE_FUNCTIONS))
        or tok.text.startswith(("#legacy", LEGACY_VALUE_PREFIX))
        for tok in tokens
    )


class Parser:
    """A cursor over one expression's tokens, recording the placeholders it meets."""

    def __init__(self, text: str, kind: str) -> None:
        if not isinstance(text, str):
            raise invalid_expression(kind, "The expression must be a string")
        size = len(text.encode("utf-8"))
        oversized = size > MAX_EXPRESSION_BYTES
        if oversized and kind != "UpdateExpression":
            raise _too_large(kind, size)
        if not text.strip():
            raise invalid_expression(kind, "The expression can not be empty;")
        self.text, self.kind = text, kind
        self.tokens = tokenize(text, kind)
        if oversized and not _is_legacy_update(text, self.tokens):
            raise _too_large(kind, size)
        self.pos = 0
        self.names: set[str] = set()
        self.values: set[str] = set()
        self.operators = 0
        self.grouped: set[int] = set()  # ids of the conditions written inside their own parentheses

    # ------------------------------------------------------------------------------------ cursor

    @property
    def tok(self) -> Token:
        return self.tokens[self.pos]

    def advance(self) -> Token:
        tok = self.tokens[self.pos]
        if tok.kind != EOF:
            self.pos += 1
        return tok

    def error(self) -> Exception:
        return syntax_error(self.kind, self.text, self.tokens, self.pos)

    def at(self, text: str) -> bool:
        return self.tok.kind == OP and self.tok.text == text

    def at_keyword(self, word: str) -> bool:
        return self.tok.kind == NAME and self.tok.text.upper() == word

    def at_call(self) -> bool:
        following = self.tokens[self.pos + 1] if self.pos + 1 < len(self.tokens) else self.tok
        return self.tok.kind == NAME and following.kind == OP and following.text == "("

    def expect(self, text: str) -> Token:
        if not self.at(text):
            raise self.error()
        return self.advance()

    def expect_end(self) -> None:
        if self.tok.kind != EOF:
            raise self.error()

    def count_operator(self) -> None:
        """Count one operator or function against DynamoDB's limit of 300 per expression.

        DynamoDB reports the count at which the limit was passed (always 301), not the total, so the
        parse stops there rather than reading the rest of a runaway expression.
        """
        self.operators += 1
        if self.operators > MAX_OPERATORS:
            raise invalid_expression(
                self.kind, f"The expression contains too many operators; operator count: {self.operators}"
            )

    # ------------------------------------------------------------------------- paths and operands

    def path(self) -> PathExpr:
        elements: list[str | int] = [self.element()]
        while True:
            if self.at("."):
                self.advance()
                elements.append(self.element())
            elif self.at("["):
                self.advance()
                if self.tok.kind != INDEX:
                    raise self.error()
                index = int(self.advance().text)
                if index > MAX_LIST_INDEX:
                    raise invalid_expression(
                        self.kind, f"List index is not within the allowable range; index: [{index}]"
                    )
                elements.append(index)
                self.expect("]")
            else:
                break
        if len(elements) > MAX_PATH_DEPTH:
            raise invalid_expression(
                self.kind, f"The document path has too many nesting levels; nesting levels: {len(elements)}"
            )
        return PathExpr(tuple(elements))

    def element(self) -> str:
        tok = self.tok
        if tok.kind == NAME_REF:
            self.names.add(tok.text)
        elif tok.kind == NAME:
            if is_reserved(tok.text):
                raise invalid_expression(
                    self.kind, f"Attribute name is a reserved keyword; reserved keyword: {tok.text}"
                )
        else:
            raise self.error()
        return self.advance().text

    def value_ref(self) -> ValueRef:
        if self.tok.kind != VALUE_REF:
            raise self.error()
        self.values.add(self.tok.text)
        return ValueRef(self.advance().text)

    def operand(self, functions: dict[str, FunctionSpec]) -> Operand:
        if self.tok.kind == VALUE_REF:
            return self.value_ref()
        if self.at_call():
            return self.call(functions, "operand")
        return self.path()

    def call(self, functions: dict[str, FunctionSpec], wanted: str) -> Call:
        name = self.advance().text
        self.count_operator()
        spec = functions.get(name)
        if spec is None:
            if name in _ALL_FUNCTIONS:
                where = "an update" if self.kind == "UpdateExpression" else "a condition"
                raise invalid_expression(
                    self.kind, f"The function is not allowed in {where} expression; function: {name}"
                )
            raise invalid_expression(self.kind, f"Invalid function name; function: {name}")
        self.expect("(")
        args = [self.operand(functions)]
        while self.at(","):
            self.advance()
            args.append(self.operand(functions))
        self.expect(")")
        if len(args) != len(spec.params):
            raise invalid_expression(
                self.kind,
                "Incorrect number of operands for operator or function; "
                f"operator or function: {name}, number of operands: {len(args)}",
            )
        for param, arg in zip(spec.params, args):
            if param == "path" and not isinstance(arg, PathExpr):
                raise invalid_expression(
                    self.kind,
                    f"Operator or function requires a document path; operator or function: {name}",
                )
            if param == "path_or_value" and not isinstance(arg, PathExpr | ValueRef):
                raise invalid_expression(
                    self.kind,
                    f"The function is not allowed to be used this way in an expression; function: {arg.name}",  # type: ignore[union-attr]
                )
            if param == "value" and not isinstance(arg, ValueRef):
                raise incorrect_operand(self.kind, name, None)
            if name in _NOT_NESTABLE and isinstance(arg, Call) and arg.name == name:
                raise invalid_expression(
                    self.kind,
                    f"The function is not allowed to be used this way in an expression; function: {name}",
                )
        if spec.returns != wanted:
            raise invalid_expression(
                self.kind,
                f"The function is not allowed to be used this way in an expression; function: {name}",
            )
        return Call(name, tuple(args))

    # --------------------------------------------------------------------------------- conditions

    def condition(self) -> Condition:
        left = self.conjunction()
        while self.at_keyword("OR"):
            self.advance()
            self.count_operator()
            left = Or(left, self.conjunction())
        return left

    def conjunction(self) -> Condition:
        left = self.negation()
        while self.at_keyword("AND"):
            self.advance()
            self.count_operator()
            left = And(left, self.negation())
        return left

    def negation(self) -> Condition:
        if self.at_keyword("NOT"):
            self.advance()
            self.count_operator()
            return Not(self.negation())
        return self.predicate()

    def predicate(self) -> Condition:
        if self.at("("):
            self.advance()
            inner = self.condition()
            self.expect(")")
            if id(inner) in self.grouped:  # "((a < b))": the inner pair already groups all of it
                raise invalid_expression(self.kind, REDUNDANT_PARENTHESES)
            self.grouped.add(id(inner))
            return inner
        spec = CONDITION_FUNCTIONS.get(self.tok.text) if self.at_call() else None
        if spec is not None and spec.returns == "condition":
            return self.call(CONDITION_FUNCTIONS, "condition")
        left = self.operand(CONDITION_FUNCTIONS)
        tok = self.tok
        key = tok.text.upper() if tok.kind == NAME else tok.text if tok.kind == OP else None
        handler = _PREDICATES.get(key) if key else None
        if handler is None:
            raise self.error()
        self.advance()
        self.count_operator()
        return handler(self, left, key)

    def comparison(self, left: Operand, op: str) -> Condition:
        return Compare(op, left, self.operand(CONDITION_FUNCTIONS))

    def between(self, left: Operand, _: str) -> Condition:
        low = self.operand(CONDITION_FUNCTIONS)
        if not self.at_keyword("AND"):
            raise self.error()
        self.advance()
        return Between(left, low, self.operand(CONDITION_FUNCTIONS))

    def in_list(self, left: Operand, _: str) -> Condition:
        self.expect("(")
        options = [self.operand(CONDITION_FUNCTIONS)]
        while self.at(","):
            self.advance()
            options.append(self.operand(CONDITION_FUNCTIONS))
        self.expect(")")
        if len(options) > MAX_IN_OPERANDS:
            raise invalid_expression(
                self.kind,
                f"The IN operator is provided with too many operands; number of operands: {len(options)}",
            )
        return In(left, tuple(options))

    # ------------------------------------------------------------------------------------ updates

    def update_actions(self) -> list[Action]:
        actions: list[Action] = []
        seen: set[str] = set()
        while self.tok.kind != EOF:
            clause = self.tok.text.upper() if self.tok.kind == NAME else ""
            parse_action = _CLAUSES.get(clause)
            if parse_action is None:
                raise self.error()
            if clause in seen:
                raise invalid_expression(
                    self.kind, f'The "{clause}" section can only be used once in an update expression;'
                )
            seen.add(clause)
            self.advance()
            actions.append(parse_action(self))
            while self.at(","):
                self.advance()
                actions.append(parse_action(self))
        return actions

    def set_action(self) -> Action:
        path = self.path()
        self.expect("=")
        value = self.operand(UPDATE_FUNCTIONS)
        if self.at("+") or self.at("-"):
            op = self.advance().text
            self.count_operator()
            value = Arith(op, value, self.operand(UPDATE_FUNCTIONS))
        return Action("SET", path, value)

    def remove_action(self) -> Action:
        return Action("REMOVE", self.path())

    def add_action(self) -> Action:
        return Action("ADD", self.path(), self.value_ref())

    def delete_action(self) -> Action:
        return Action("DELETE", self.path(), self.value_ref())


_PREDICATES: dict[str, Callable[[Parser, Operand, str], Condition]] = {
    **{op: Parser.comparison for op in COMPARATORS},
    "BETWEEN": Parser.between,
    "IN": Parser.in_list,
}
_CLAUSES: dict[str, Callable[[Parser], Action]] = {
    "SET": Parser.set_action,
    "REMOVE": Parser.remove_action,
    "ADD": Parser.add_action,
    "DELETE": Parser.delete_action,
}


def _too_large(kind: str, size: int) -> Exception:
    return invalid_expression(
        kind, f"Expression size has exceeded the maximum allowed size; expression size: {size}"
    )


def check_deep_parentheses(parser: Parser) -> None:
    """Judge parentheses nested deeper than the recursive parser goes, without recursion.

    Only redundant pairs (``((...))``) or unbalanced ones reach such a depth inside DynamoDB's
    300-operator limit, so a deep expression gets DynamoDB's error for one of those.
    """
    deepest = 0
    opened: list[int] = []
    pairs: dict[int, int] = {}
    unmatched: int | None = None
    for index, tok in enumerate(parser.tokens):
        if tok.kind != OP or tok.text not in ("(", ")"):
            continue
        if tok.text == "(":
            opened.append(index)
            deepest = max(deepest, len(opened))
        elif opened:
            pairs[opened.pop()] = index
        elif unmatched is None:
            unmatched = index
    if deepest <= MAX_PAREN_DEPTH:
        return
    if unmatched is not None or opened:
        at = unmatched if unmatched is not None else len(parser.tokens) - 1
        raise syntax_error(parser.kind, parser.text, parser.tokens, at)
    if any(pairs.get(start + 1) == end - 1 for start, end in pairs.items()):
        raise invalid_expression(parser.kind, REDUNDANT_PARENTHESES)
    raise invalid_expression(
        parser.kind, f"The expression has too many nesting levels; nesting levels: {deepest}"
    )


@functools.lru_cache(maxsize=4096)
def parse_condition(text: str, kind: str = "ConditionExpression") -> ConditionExpr:
    """Parse a ConditionExpression (or, with ``kind="FilterExpression"``, a FilterExpression)."""
    parser = Parser(text, kind)
    check_deep_parentheses(parser)
    root = parser.condition()
    parser.expect_end()
    return ConditionExpr(kind, frozenset(parser.names), frozenset(parser.values), root)


@functools.lru_cache(maxsize=4096)
def parse_update(text: str, kind: str = "UpdateExpression") -> UpdateExpr:
    """Parse an UpdateExpression: SET, REMOVE, ADD and DELETE clauses, each at most once."""
    parser = Parser(text, kind)
    actions = parser.update_actions()
    return UpdateExpr(kind, frozenset(parser.names), frozenset(parser.values), tuple(actions))


@functools.lru_cache(maxsize=4096)
def parse_projection(text: str, kind: str = "ProjectionExpression") -> ProjectionExpr:
    """Parse a ProjectionExpression: document paths separated by commas."""
    parser = Parser(text, kind)
    paths = [parser.path()]
    while parser.at(","):
        parser.advance()
        paths.append(parser.path())
    parser.expect_end()
    return ProjectionExpr(kind, frozenset(parser.names), frozenset(), tuple(paths))
