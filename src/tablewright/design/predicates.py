"""The "means" expression language: parse a predicate and evaluate it over plain Python values.

Grammar (keywords are case-insensitive)::

    expr    := and (OR and)*
    and     := not (AND not)*
    not     := NOT not | test
    test    := '(' expr ')' | func | operand (cmp operand | BETWEEN operand AND operand
               | IN '(' operand (',' operand)* ')' | EXISTS | NOT EXISTS)
    func    := begins_with(operand, operand) | contains(operand, operand) | exists(path)
               | attribute_exists(path) | attribute_not_exists(path)
    operand := path | :param | 'text' | "text" | number | true | false | null | size(path)

Semantics follow DynamoDB's: a comparison with a missing attribute is false, values of different
types are never equal or ordered, except that a ``datetime`` and an RFC 3339 string compare as
instants (designs store instants as strings; callers pass datetimes).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from .timeutil import parse_rfc3339


class PredicateError(ValueError):
    """A predicate is malformed; ``position`` is the 0-based offset of the fault."""

    def __init__(self, message: str, text: str, position: int) -> None:
        super().__init__(f"{message} at position {position} in {text!r}")
        self.reason = message
        self.position = position


_TOKEN = re.compile(
    r"""\s*(?:(?P<num>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)|(?P<str>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
    |(?P<param>:[A-Za-z_]\w*)|(?P<name>[A-Za-z_][\w\-]*(?:\.[A-Za-z_][\w\-]*|\[\d+\])*)
    |(?P<op><>|!=|<=|>=|=|<|>|\(|\)|,))""",
    re.VERBOSE,
)
_KEYWORDS = {"and", "or", "not", "between", "in", "exists", "true", "false", "null"}


@dataclass(frozen=True)
class Path:
    """An attribute path such as ``capabilities.features.tft_display`` or ``tags[0]``."""

    text: str


@dataclass(frozen=True)
class Param:
    """A ``:name`` parameter."""

    name: str


@dataclass(frozen=True)
class Const:
    value: object


@dataclass(frozen=True)
class Size:
    path: Path


@dataclass(frozen=True)
class Node:
    """An operator node: ``op`` names a row of ``_EVALUATORS``; ``args`` are nodes or operands."""

    op: str
    args: tuple[object, ...]


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            match = _TOKEN.match(text, pos)
            if not match:
                raise PredicateError(f"unexpected {text[pos:].strip()[:1]!r}", text, pos)
            kind = match.lastgroup or ""
            value, start = match.group(kind), match.start(kind)
            if kind == "name" and value.lower() in _KEYWORDS:
                kind, value = "kw", value.lower()
            self.tokens.append((kind, value, start))
            pos = match.end()
        self.i = 0

    def peek(self, offset: int = 0) -> tuple[str, str, int]:
        index = self.i + offset
        return self.tokens[index] if index < len(self.tokens) else ("end", "", len(self.text))

    def take(self, kind: str, value: str | None = None) -> str:
        tok = self.peek()
        if tok[0] != kind or (value is not None and tok[1] != value):
            wanted = value or kind
            found = tok[1] or "end of text"
            raise PredicateError(f"expected {wanted!r} but found {found!r}", self.text, tok[2])
        self.i += 1
        return tok[1]

    def accept(self, kind: str, value: str) -> bool:
        if self.peek()[:2] == (kind, value):
            self.i += 1
            return True
        return False

    def parse(self) -> object:
        node = self.expr()
        if self.peek()[0] != "end":
            tok = self.peek()
            raise PredicateError(f"unexpected {tok[1]!r} (missing AND/OR?)", self.text, tok[2])
        return node

    def expr(self) -> object:
        node = self.conj()
        while self.accept("kw", "or"):
            node = Node("or", (node, self.conj()))
        return node

    def conj(self) -> object:
        node = self.neg()
        while self.accept("kw", "and"):
            node = Node("and", (node, self.neg()))
        return node

    def neg(self) -> object:
        if self.accept("kw", "not"):
            return Node("not", (self.neg(),))
        return self.test()

    def test(self) -> object:
        kind, value, pos = self.peek()
        if (kind, value) == ("op", "("):
            self.i += 1
            node = self.expr()
            self.take("op", ")")
            return node
        if kind in ("name", "kw") and self.peek(1)[:2] == ("op", "(") and value.lower() in _FUNCTIONS:
            return self.function(value.lower())
        left = self.operand()
        kind, value, pos = self.peek()
        if kind == "op" and value in _COMPARATORS:
            self.i += 1
            return Node(_COMPARATORS[value], (left, self.operand()))
        if self.accept("kw", "between"):
            low = self.operand()
            self.take("kw", "and")
            return Node("between", (left, low, self.operand()))
        if self.accept("kw", "in"):
            self.take("op", "(")
            items = [self.operand()]
            while self.accept("op", ","):
                items.append(self.operand())
            self.take("op", ")")
            return Node("in", (left, *items))
        if self.accept("kw", "exists"):
            return Node("exists", (self._path(left, pos),))
        if self.peek()[:2] == ("kw", "not") and self.peek(1)[:2] == ("kw", "exists"):
            self.i += 2
            return Node("not_exists", (self._path(left, pos),))
        raise PredicateError(
            "expected a comparison (=, <>, <, BETWEEN, IN, exists) after the operand", self.text, pos
        )

    def function(self, name: str) -> object:
        self.i += 1
        self.take("op", "(")
        args = [self.operand()]
        while self.accept("op", ","):
            args.append(self.operand())
        self.take("op", ")")
        op, arity = _FUNCTIONS[name]
        if len(args) != arity:
            raise PredicateError(f"{name} takes {arity} argument(s)", self.text, self.peek()[2])
        return Node(op, tuple(args))

    def operand(self) -> object:
        kind, value, pos = self.peek()
        self.i += 1
        if kind == "num":
            return Const(int(value) if re.fullmatch(r"-?\d+", value) else Decimal(value))
        if kind == "str":
            return Const(re.sub(r"\\(.)", r"\1", value[1:-1]))
        if kind == "param":
            return Param(value[1:])
        if kind == "kw" and value in ("true", "false", "null"):
            return Const({"true": True, "false": False, "null": None}[value])
        if kind == "name":
            if value.lower() == "size" and self.peek()[:2] == ("op", "("):
                self.take("op", "(")
                path = self._path(self.operand(), pos)
                self.take("op", ")")
                return Size(path)
            return Path(value)
        self.i -= 1
        raise PredicateError(
            f"expected an attribute, :param or literal but found {value or 'end'!r}", self.text, pos
        )

    def _path(self, operand: object, pos: int) -> Path:
        if not isinstance(operand, Path):
            raise PredicateError("exists needs an attribute name", self.text, pos)
        return operand


_COMPARATORS = {"=": "eq", "<>": "ne", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}
_FUNCTIONS = {
    "begins_with": ("begins_with", 2),
    "contains": ("contains", 2),
    "exists": ("exists", 1),
    "attribute_exists": ("exists", 1),
    "attribute_not_exists": ("not_exists", 1),
}


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | Decimal | float):
        return "number"
    if isinstance(value, datetime):
        return "time"
    return type(value).__name__


def _pair(a: object, b: object) -> tuple[object, object] | None:
    """Make two values comparable, or None when DynamoDB would say their types differ."""
    if a is MISSING or b is MISSING:
        return None
    ka, kb = _kind(a), _kind(b)
    if {ka, kb} == {"time", "str"}:
        try:
            a, b = (parse_rfc3339(x) if isinstance(x, str) else x for x in (a, b))  # type: ignore[assignment]
        except ValueError:
            return None
        return a, b
    if ka == "time" and kb == "time":
        return a, b
    return (a, b) if ka == kb else None


def _compare(test: Callable[[object, object], bool]) -> Callable[[object, object], bool]:
    def run(a: object, b: object) -> bool:
        pair = _pair(a, b)
        if pair is None:
            return False
        try:
            return test(*pair)
        except TypeError:
            return False  # e.g. ordering two maps

    return run


def _begins_with(a: object, b: object) -> bool:
    return isinstance(a, str | bytes) and type(a) is type(b) and a.startswith(b)  # type: ignore[arg-type]


def _contains(a: object, b: object) -> bool:
    if isinstance(a, str):
        return isinstance(b, str) and b in a
    if isinstance(a, set | frozenset | list | tuple):
        return any(_compare(lambda x, y: x == y)(item, b) for item in a)
    return False


_BINARY: dict[str, Callable[[object, object], bool]] = {
    "eq": _compare(lambda a, b: a == b),
    "ne": lambda a, b: a is not MISSING and not _compare(lambda x, y: x == y)(a, b),
    "lt": _compare(lambda a, b: a < b),  # type: ignore[operator]
    "le": _compare(lambda a, b: a <= b),  # type: ignore[operator]
    "gt": _compare(lambda a, b: a > b),  # type: ignore[operator]
    "ge": _compare(lambda a, b: a >= b),  # type: ignore[operator]
    "begins_with": _begins_with,
    "contains": _contains,
}


def _resolve(path: str, values: Mapping[str, object]) -> object:
    current: object = values
    for piece in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        if piece.startswith("["):
            index = int(piece[1:-1])
            if not isinstance(current, list) or index >= len(current):
                return MISSING
            current = current[index]
        elif isinstance(current, Mapping) and piece in current:
            current = current[piece]
        else:
            return MISSING
    return current  # None is DynamoDB NULL: it exists


class Predicate:
    """A parsed predicate. ``Predicate("status <> 'DONE'").evaluate(item)`` -> bool."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tree = _Parser(text).parse()

    def __repr__(self) -> str:
        return f"Predicate({self.text!r})"

    @property
    def attributes(self) -> set[str]:
        """Top-level attribute names the predicate reads."""
        return {p.text.split(".")[0].split("[")[0] for p in self._leaves(Path)}

    @property
    def paths(self) -> set[str]:
        """Every attribute path the predicate reads, as written (``capabilities.model``, ``tags[0]``)."""
        return {p.text for p in self._leaves(Path)}

    @property
    def params(self) -> set[str]:
        """Parameter names (without the colon) the predicate needs."""
        return {p.name for p in self._leaves(Param)}

    def evaluate(self, values: Mapping[str, object], params: Mapping[str, object] | None = None) -> bool:
        """Evaluate over an item's values; raises ``KeyError`` naming a parameter that was not given."""
        return bool(self._eval(self.tree, values, params or {}))

    def _leaves(self, kind: type) -> list:
        found: list = []

        def walk(node: object) -> None:
            if isinstance(node, kind):
                found.append(node)
            if isinstance(node, Node):
                for arg in node.args:
                    walk(arg)
            if isinstance(node, Size):
                walk(node.path)

        walk(self.tree)
        return found

    def _value(self, operand: object, values: Mapping[str, object], params: Mapping[str, object]) -> object:
        if isinstance(operand, Const):
            return operand.value
        if isinstance(operand, Param):
            if operand.name not in params:
                raise KeyError(f"parameter :{operand.name} is not given (predicate {self.text!r})")
            return params[operand.name]
        if isinstance(operand, Path):
            return _resolve(operand.text, values)
        if isinstance(operand, Size):
            target = _resolve(operand.path.text, values)
            return MISSING if target is MISSING or not hasattr(target, "__len__") else len(target)  # type: ignore[arg-type]
        raise TypeError(f"not an operand: {operand!r}")

    def _eval(self, node: object, values: Mapping[str, object], params: Mapping[str, object]) -> bool:
        assert isinstance(node, Node)
        op, args = node.op, node.args
        if op in ("and", "or", "not"):
            results = (self._eval(arg, values, params) for arg in args)
            return {"and": all, "or": any, "not": lambda r: not next(iter(r))}[op](results)
        if op in ("exists", "not_exists"):
            present = _resolve(args[0].text, values) is not MISSING  # type: ignore[attr-defined]
            return present if op == "exists" else not present
        operands = [self._value(arg, values, params) for arg in args]
        if op == "between":
            return _BINARY["ge"](operands[0], operands[1]) and _BINARY["le"](operands[0], operands[2])
        if op == "in":
            return any(_BINARY["eq"](operands[0], item) for item in operands[1:])
        return _BINARY[op](operands[0], operands[1])
