"""The expression AST: small frozen dataclasses, shared (and cached) across requests.

Placeholders stay unresolved in the tree: a path element is a literal attribute name, an
``"#placeholder"`` (resolved against the request's ExpressionAttributeNames at evaluation time) or an
``int`` list index. A literal name can never start with ``#``, so the two kinds of string cannot clash.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Path = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class PathExpr:
    """A document path as written: ``a.#b[2]`` is ``("a", "#b", 2)``."""

    elements: Path


@dataclass(frozen=True, slots=True)
class ValueRef:
    """An ``:placeholder`` operand."""

    name: str


@dataclass(frozen=True, slots=True)
class Call:
    """A function call: ``size(a)``, ``begins_with(a, :v)``, ``if_not_exists(a, :v)``..."""

    name: str
    args: tuple[Operand, ...]


@dataclass(frozen=True, slots=True)
class Arith:
    """``left + right`` or ``left - right`` on the right-hand side of SET."""

    op: str
    left: Operand
    right: Operand


Operand = PathExpr | ValueRef | Call | Arith


@dataclass(frozen=True, slots=True)
class Compare:
    op: str
    left: Operand
    right: Operand


@dataclass(frozen=True, slots=True)
class Between:
    operand: Operand
    low: Operand
    high: Operand


@dataclass(frozen=True, slots=True)
class In:
    operand: Operand
    options: tuple[Operand, ...]


@dataclass(frozen=True, slots=True)
class And:
    left: Condition
    right: Condition


@dataclass(frozen=True, slots=True)
class Or:
    left: Condition
    right: Condition


@dataclass(frozen=True, slots=True)
class Not:
    operand: Condition


Condition = Compare | Between | In | And | Or | Not | Call


@dataclass(frozen=True, slots=True)
class Expression:
    """What every parsed expression has: its kind (for messages) and the placeholders it uses."""

    kind: str
    names_used: frozenset[str] = field(default=frozenset())
    values_used: frozenset[str] = field(default=frozenset())


@dataclass(frozen=True, slots=True)
class ConditionExpr(Expression):
    """A ConditionExpression or FilterExpression."""

    root: Condition | None = None


@dataclass(frozen=True, slots=True)
class Action:
    """One update action: ``clause`` is SET, REMOVE, ADD or DELETE; ``value`` is None for REMOVE."""

    clause: str
    path: PathExpr
    value: Operand | None = None


@dataclass(frozen=True, slots=True)
class UpdateExpr(Expression):
    actions: tuple[Action, ...] = ()


@dataclass(frozen=True, slots=True)
class ProjectionExpr(Expression):
    paths: tuple[PathExpr, ...] = ()


@dataclass(frozen=True, slots=True)
class KeyPart:
    """One key condition: ``name`` (literal or ``#placeholder``) ``op`` values."""

    name: str
    op: str
    values: tuple[ValueRef, ...]


@dataclass(frozen=True, slots=True)
class KeyConditionExpr(Expression):
    parts: tuple[KeyPart, ...] = ()
