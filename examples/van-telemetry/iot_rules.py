"""AWS IoT rules SQL, the subset the van rules use, evaluated on MQTT messages.

``SELECT <items> FROM '<topic filter>'`` where an item is ``*`` (every payload field) or an
expression with ``AS name``; expressions are numbers, 'strings', payload field names,
``topic(n)``, ``timestamp()``, ``floor(x)``, ``ceil(x)``, ``+ - * /`` and parentheses. Items are
applied left to right, a later name replacing an earlier one. Anything else (WHERE, other
functions, nested fields) is refused by name when the rules are loaded, never at message time, so
a rule the ingester accepts is one it fully understands. Numbers are Decimal (DynamoDB's).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

RULES_FILE = Path(__file__).with_name("iot_rules.yaml")
_TOKEN = re.compile(
    r"\s*(?:(?P<number>\d+(?:\.\d+)?)|'(?P<string>[^']*)'|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>[-+*/(),]))"
)

Expression = Callable[["Message"], Any]


class RuleError(ValueError):
    """A rule that cannot be loaded, or a message a rule cannot be applied to; says which and why."""


@dataclass(frozen=True)
class Message:
    """An MQTT message as IoT Core sees it: topic, raw payload, the broker's receive time (ms)."""

    topic: str
    payload: bytes
    timestamp_ms: int

    def fields(self) -> dict[str, object]:
        try:
            value = json.loads(self.payload, parse_float=Decimal)
        except (ValueError, UnicodeDecodeError) as error:
            raise RuleError(f"payload on {self.topic} is not JSON: {error}") from None
        if not isinstance(value, dict):
            raise RuleError(f"payload on {self.topic} is a JSON {type(value).__name__}, not an object")
        return value


def _topic(message: Message, level: Decimal | None = None) -> str:
    if level is None:
        return message.topic
    parts = message.topic.split("/")
    return parts[int(level) - 1] if 1 <= level <= len(parts) else ""


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "topic": _topic,
    "timestamp": lambda message: Decimal(message.timestamp_ms),
    "floor": lambda message, x: Decimal(math.floor(x)),
    "ceil": lambda message, x: Decimal(math.ceil(x)),
}
OPERATORS: dict[str, Callable[[Decimal, Decimal], Decimal]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
}


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, str]] = []
        position = 0
        while position < len(text.rstrip()):
            found = _TOKEN.match(text, position)
            if not found:
                raise RuleError(f"cannot read {text[position : position + 20]!r} in {text!r}")
            kind = found.lastgroup or ""
            self.tokens.append((kind, found.group(kind)))
            position = found.end()
        self.at = 0

    def peek(self) -> tuple[str, str]:
        return self.tokens[self.at] if self.at < len(self.tokens) else ("end", "")

    def take(self, value: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if value is not None and token[1].upper() != value:
            raise RuleError(f"expected {value} but found {token[1] or 'the end'} in {self.text!r}")
        self.at += 1
        return token

    def expression(self) -> Expression:
        left = self.term()
        while self.peek()[1] in ("+", "-"):
            left = self._binary(left, self.take()[1], self.term())
        return left

    def term(self) -> Expression:
        left = self.factor()
        while self.peek()[1] in ("*", "/"):
            left = self._binary(left, self.take()[1], self.factor())
        return left

    @staticmethod
    def _binary(left: Expression, op: str, right: Expression) -> Expression:
        apply = OPERATORS[op]
        return lambda message: apply(left(message), right(message))

    def factor(self) -> Expression:
        kind, value = self.take()
        if kind == "number":
            number = Decimal(value)
            return lambda message: number
        if kind == "string":
            return lambda message: value
        if value == "(":
            inner = self.expression()
            self.take(")")
            return inner
        if value == "-":
            operand = self.factor()
            return lambda message: -operand(message)
        if kind == "name" and self.peek()[1] == "(":
            return self.call(value)
        if kind == "name":
            return lambda message: message.fields().get(value)
        raise RuleError(f"unexpected {value or 'end'} in {self.text!r}")

    def call(self, name: str) -> Expression:
        if name.lower() not in FUNCTIONS:
            raise RuleError(
                f"function {name}() is not supported by the local ingester (known: {', '.join(FUNCTIONS)})"
            )
        function = FUNCTIONS[name.lower()]
        self.take("(")
        arguments: list[Expression] = []
        while self.peek()[1] != ")":
            arguments.append(self.expression())
            if self.peek()[1] == ",":
                self.take(",")
        self.take(")")
        return lambda message: function(message, *(a(message) for a in arguments))


@dataclass(frozen=True)
class Rule:
    """One topic rule: its name, the topic filter of its FROM, its SELECT, the table it writes."""

    name: str
    topic_filter: str
    select: tuple[tuple[str | None, Expression], ...]  # (None, _) is `*`
    table: str

    def matches(self, topic: str) -> bool:
        """MQTT filter matching: ``+`` one level, ``#`` every remaining level."""
        wanted, levels = self.topic_filter.split("/"), topic.split("/")
        for index, part in enumerate(wanted):
            if part == "#":
                return True
            if index >= len(levels) or part not in ("+", levels[index]):
                return False
        return len(levels) == len(wanted)

    def apply(self, message: Message) -> dict[str, object]:
        """The item the rule's action writes for ``message``."""
        item: dict[str, object] = {}
        for name, expression in self.select:
            if name is None:
                item.update(message.fields())
            else:
                item[name] = expression(message)
        return item


def parse_rule(name: str, sql: str, table: str) -> Rule:
    """A rule from its SQL; ``RuleError`` naming the rule and what it cannot read."""
    try:
        parser = _Parser(sql)
        parser.take("SELECT")
        select: list[tuple[str | None, Expression]] = []
        while True:
            if parser.peek()[1] == "*":
                parser.take()
                select.append((None, lambda message: None))
            else:
                start = parser.peek()
                expression = parser.expression()
                if parser.peek()[1].upper() == "AS":
                    parser.take()
                    alias = parser.take()[1]
                elif start[0] == "name" and parser.tokens[parser.at - 1] == start:
                    alias = start[1]  # a bare field keeps its name
                else:
                    raise RuleError(f"an expression needs AS <name> in {sql!r}")
                select.append((alias, expression))
            if parser.peek()[1] != ",":
                break
            parser.take(",")
        parser.take("FROM")
        kind, topic_filter = parser.take()
        if kind != "string":
            raise RuleError(f"FROM needs a quoted topic filter in {sql!r}")
        if parser.peek()[0] != "end":
            raise RuleError(f"{parser.peek()[1]} ... is not supported by the local ingester in {sql!r}")
    except RuleError as error:
        raise RuleError(f"rule {name}: {error}") from None
    return Rule(name, topic_filter, tuple(select), table)


def load_rules(path: str | Path = RULES_FILE) -> list[Rule]:
    """Every rule of a rules file (``iot_rules.yaml``)."""
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise RuleError(f"{path}: {error}") from None
    rules = []
    for name, spec in (data or {}).get("rules", {}).items():
        try:
            table = spec["action"]["dynamodbv2"]["table"]
            sql = spec["sql"]
        except (KeyError, TypeError):
            raise RuleError(f"{path}: rule {name} needs sql and action.dynamodbv2.table") from None
        rule = parse_rule(name, sql, table)
        if spec.get("topic_filter", rule.topic_filter) != rule.topic_filter:
            raise RuleError(
                f"{path}: rule {name}: topic_filter differs from its SQL's FROM {rule.topic_filter!r}"
            )
        rules.append(rule)
    return rules
