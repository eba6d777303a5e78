"""The PartiQL AST: small frozen dataclasses, hashable so parses can be cached by statement text.

Values stay unbound: a ``?`` is a :class:`Param` holding its position, bound per request by
:mod:`.values`. Statements know how many parameters they take (``params``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Path:
    """An attribute name followed by map keys (str) and list indexes (int): ``a.b[0]``."""

    elements: tuple[str | int, ...]

    @property
    def name(self) -> str | None:
        """The attribute name when the path is a bare top-level name, else None."""
        return self.elements[0] if len(self.elements) == 1 else None  # type: ignore[return-value]

    def __str__(self) -> str:
        text = str(self.elements[0])
        for element in self.elements[1:]:
            text += f"[{element}]" if isinstance(element, int) else f".{element}"
        return text


@dataclass(frozen=True)
class Literal:
    """A value written in the statement, already in wire form (``{"S": "x"}``); ``MISSING`` is None."""

    value: Any

    def __hash__(self) -> int:
        return hash(repr(self.value))


@dataclass(frozen=True)
class Param:
    """The ``index``-th ``?`` of the statement (0-based)."""

    index: int


@dataclass(frozen=True)
class ListExpr:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class MapExpr:
    pairs: tuple[tuple[str, Node], ...]


@dataclass(frozen=True)
class BagExpr:
    """``<<a, b>>``: a string, number or binary set."""

    items: tuple[Node, ...]


@dataclass(frozen=True)
class Call:
    name: str  # lower case
    args: tuple[Node, ...]


@dataclass(frozen=True)
class Compare:
    op: str  # = <> < <= > >=
    left: Node
    right: Node


@dataclass(frozen=True)
class Between:
    subject: Node
    low: Node
    high: Node


@dataclass(frozen=True)
class In:
    subject: Node
    options: tuple[Node, ...]


@dataclass(frozen=True)
class Is:
    """``x IS [NOT] MISSING|NULL|STRING|...``; ``kind`` is the upper-case type word."""

    subject: Node
    kind: str
    negated: bool


@dataclass(frozen=True)
class Logical:
    op: str  # AND / OR
    operands: tuple[Node, ...]


@dataclass(frozen=True)
class Not:
    operand: Node


@dataclass(frozen=True)
class Arith:
    op: str  # + -
    left: Node
    right: Node


Node = (
    Path
    | Literal
    | Param
    | ListExpr
    | MapExpr
    | BagExpr
    | Call
    | Compare
    | Between
    | In
    | Is
    | Logical
    | Not
    | Arith
)
VALUE_NODES = (Literal, Param, ListExpr, MapExpr, BagExpr)


@dataclass(frozen=True)
class Select:
    projection: tuple[Path, ...] | None  # None: *
    table: str
    index: str | None
    where: Node | None
    order: tuple[tuple[str, bool], ...] = ()  # (attribute, descending)
    params: int = 0


@dataclass(frozen=True)
class Insert:
    table: str
    item: Node
    params: int = 0


@dataclass(frozen=True)
class UpdateAction:
    kind: str  # SET / REMOVE
    path: Path
    value: Node | None = None


@dataclass(frozen=True)
class Update:
    table: str
    actions: tuple[UpdateAction, ...]
    where: Node | None
    returning: str | None = None  # ALL_OLD, ALL_NEW, UPDATED_OLD, UPDATED_NEW
    params: int = 0


@dataclass(frozen=True)
class Delete:
    table: str
    where: Node | None
    returning: str | None = None
    params: int = 0


@dataclass(frozen=True)
class Exists:
    """``EXISTS(SELECT ...)``: a condition check, allowed only in a write transaction."""

    select: Select
    params: int = 0


Statement = Select | Insert | Update | Delete | Exists
