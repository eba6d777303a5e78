"""Generating DynamoDB expressions from PartiQL AST nodes: condition, update and projection text.

A :class:`Writer` belongs to one engine request: every attribute name becomes an ``#nN`` placeholder
(so reserved words and odd characters need no care) and every value a ``:vN`` placeholder, and
:meth:`Writer.attach` puts exactly the placeholders used into the request, so the engine's rules
about unused or undefined placeholders hold by construction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .errors import invalid
from .nodes import Arith, Between, Call, Compare, In, Is, Logical, Node, Not, Path
from .values import bind, is_value

# IS <type word> -> the DynamoDB attribute_type name.
_IS_TYPES = {"BOOLEAN": "BOOL", "BLOB": "B", "STRING": "S", "NUMERIC": "N", "STRUCT": "M", "TUPLE": "M"}
_IS_TYPES |= {"LIST": "L", "NULL": "NULL"}
# Condition functions: name -> number of arguments (each a path or value, first one a path).
_CONDITION_FUNCTIONS = {
    "begins_with": 2,
    "contains": 2,
    "attribute_type": 2,
    "attribute_exists": 1,
    "attribute_not_exists": 1,
}
# Functions usable as the value of a SET (besides arithmetic).
_SET_FUNCTIONS = {"list_append": 2, "if_not_exists": 2}
# SET a = set_add(a, <<...>>) is DynamoDB's ADD; set_delete is DELETE.
SET_OPERATIONS = {"set_add": "ADD", "set_delete": "DELETE"}


class Writer:
    """Placeholder allocation and expression generation for one engine request."""

    def __init__(self, params: list[dict]) -> None:
        self.params = params
        self.names: dict[str, str] = {}  # attribute name -> placeholder
        self.values: dict[str, Any] = {}  # placeholder -> wire value

    def attach(self, request: dict[str, Any]) -> dict[str, Any]:
        """Add the placeholders used so far to ``request`` (and return it)."""
        if self.names:
            request["ExpressionAttributeNames"] = {v: k for k, v in self.names.items()}
        if self.values:
            request["ExpressionAttributeValues"] = dict(self.values)
        return request

    # ------------------------------------------------------------------------------ placeholders

    def name(self, attribute: str) -> str:
        if attribute == "":
            raise invalid("Path component cannot be an empty string")
        if attribute not in self.names:
            self.names[attribute] = f"#n{len(self.names)}"
        return self.names[attribute]

    def value(self, wire: dict[str, Any]) -> str:
        placeholder = f":v{len(self.values)}"
        self.values[placeholder] = wire
        return placeholder

    def path(self, path: Path) -> str:
        text = self.name(str(path.elements[0]))
        for element in path.elements[1:]:
            text += f"[{element}]" if isinstance(element, int) else "." + self.name(element)
        return text

    def projection(self, paths: tuple[Path, ...]) -> str:
        return ", ".join(self.path(path) for path in paths)

    # -------------------------------------------------------------------------------- conditions

    def operand(self, node: Node) -> str:
        """A comparison operand: a path, a value, or ``size(path)``."""
        if isinstance(node, Path):
            return self.path(node)
        if is_value(node):
            return self.value(bind(node, self.params))
        if isinstance(node, Call) and node.name == "size" and len(node.args) == 1:
            return f"size({self.operand(node.args[0])})"
        if isinstance(node, Arith):
            raise invalid(f"Unsupported operator in Condition Expression. Operator: {node.op}")
        raise invalid("WHERE clause must contain an expression that resolves to a boolean")

    def condition(self, node: Node) -> str:
        """DynamoDB condition-expression text for a PartiQL condition."""
        write = _CONDITIONS.get(type(node))
        if write is None:
            raise invalid("WHERE clause must contain an expression that resolves to a boolean")
        return write(self, node)

    def _logical(self, node: Logical) -> str:
        return f" {node.op} ".join(grouped(self.condition(operand)) for operand in node.operands)

    def _not(self, node: Not) -> str:
        return f"NOT {grouped(self.condition(node.operand))}"

    def _compare(self, node: Compare) -> str:
        return f"{self.operand(node.left)} {node.op} {self.operand(node.right)}"

    def _between(self, node: Between) -> str:
        return f"{self.operand(node.subject)} BETWEEN {self.operand(node.low)} AND {self.operand(node.high)}"

    def _in(self, node: In) -> str:
        if not node.options:
            raise invalid(
                "IN operator must have a left hand argument of type Variable Reference and right hand "
                "argument of type Seq with at least one member"
            )
        options = ", ".join(self.operand(option) for option in node.options)
        return f"{self.operand(node.subject)} IN ({options})"

    def _is(self, node: Is) -> str:
        if not isinstance(node.subject, Path):
            raise invalid("The left hand side argument to IS must be a Variable Reference, Literal, or Path")
        path = self.path(node.subject)
        if node.kind == "MISSING":
            return f"attribute_exists({path})" if node.negated else f"attribute_not_exists({path})"
        kind = _IS_TYPES.get(node.kind)
        if kind is None:
            raise invalid(
                f"Unsupported data type for IS operator: {node.kind}. Supported data types are "
                "[MISSING, NULL, BOOLEAN, BLOB, STRING, NUMERIC, STRUCT, TUPLE, LIST]"
            )
        test = f"attribute_type({path}, {self.value({'S': kind})})"
        if kind == "NULL":  # in PartiQL a missing attribute IS NULL too
            test = f"(attribute_not_exists({path}) OR {test})"
        return f"NOT {test}" if node.negated else test

    def _call(self, node: Call) -> str:
        arity = _CONDITION_FUNCTIONS.get(node.name)
        if arity is None:
            raise invalid(f"Unrecognized function: {node.name}")
        if len(node.args) != arity:
            raise invalid(f"Incorrect number of arguments for function {node.name}: expected {arity}")
        return f"{node.name}({', '.join(self.operand(arg) for arg in node.args)})"

    # ----------------------------------------------------------------------------------- updates

    def set_value(self, node: Node) -> str:
        """The right-hand side of a SET action: a value, a path, arithmetic or list_append/if_not_exists."""
        if isinstance(node, Arith):
            return f"{self.set_value(node.left)} {node.op} {self.set_value(node.right)}"
        if isinstance(node, Call) and node.name in _SET_FUNCTIONS:
            if len(node.args) != _SET_FUNCTIONS[node.name]:
                raise invalid(f"Incorrect number of arguments for function {node.name}")
            return f"{node.name}({', '.join(self.set_value(arg) for arg in node.args)})"
        if isinstance(node, Call):
            raise invalid(f"Unrecognized function: {node.name}")
        if isinstance(node, Path):
            return self.path(node)
        if is_value(node):
            return self.value(bind(node, self.params))
        raise invalid("IS operator is not supported in update expressions")


_CONDITIONS: dict[type, Callable[[Writer, Any], str]] = {
    Logical: Writer._logical,
    Not: Writer._not,
    Compare: Writer._compare,
    Between: Writer._between,
    In: Writer._in,
    Is: Writer._is,
    Call: Writer._call,
}


def grouped(condition: str) -> str:
    """``condition`` in one pair of parentheses: its own when it has them (``IS NULL``'s), since
    DynamoDB refuses a second pair as redundant. Names and values are placeholders here, so every
    parenthesis in the text is one of the expression's."""
    if condition.startswith("("):
        depth = 0
        for position, character in enumerate(condition):
            depth += {"(": 1, ")": -1}.get(character, 0)
            if not depth:
                if position == len(condition) - 1:
                    return condition
                break
    return f"({condition})"
