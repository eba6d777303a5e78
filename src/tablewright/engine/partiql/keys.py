"""WHERE-clause analysis: which top-level conjuncts pin key attributes, and what is left over.

PartiQL has no separate key condition: DynamoDB finds it in the WHERE clause. Only the top-level
AND chain is looked at (a key equality under OR or NOT does not select a partition), as DynamoDB does.
"""

from __future__ import annotations

from ..catalog import KeySchema
from .errors import INCOMPLETE_KEY, invalid
from .nodes import Between, Call, Compare, In, Logical, Node, Path
from .values import bind, is_value

# Comparisons DynamoDB accepts on a sort key in a key condition.
RANGE_COMPARATORS = frozenset({"=", "<", "<=", ">", ">="})
_FLIPPED = {"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<=", "<>": "<>"}


def conjuncts(where: Node | None) -> list[Node]:
    """The top-level AND operands of a WHERE clause ([] for none)."""
    if where is None:
        return []
    if isinstance(where, Logical) and where.op == "AND":
        return [part for operand in where.operands for part in conjuncts(operand)]
    return [where]


def join(nodes: list[Node]) -> Node | None:
    """The AND of ``nodes`` (None when empty)."""
    if not nodes:
        return None
    return nodes[0] if len(nodes) == 1 else Logical("AND", tuple(nodes))


def oriented(node: Node) -> Compare | None:
    """A comparison of a top-level attribute with a value, written attribute-first (``1 < a`` -> ``a > 1``)."""
    if not isinstance(node, Compare):
        return None
    if isinstance(node.left, Path) and node.left.name is not None and is_value(node.right):
        return node
    if isinstance(node.right, Path) and node.right.name is not None and is_value(node.left):
        return Compare(_FLIPPED[node.op], node.right, node.left)
    return None


def equality_on(node: Node, name: str) -> Node | None:
    """The value node when ``node`` is ``name = value``, else None."""
    compare = oriented(node)
    if compare is not None and compare.op == "=" and compare.left.name == name:  # type: ignore[union-attr]
        return compare.right
    return None


def in_on(node: Node, name: str) -> tuple[Node, ...] | None:
    """The option nodes when ``node`` is ``name IN [values...]``, else None."""
    if (
        isinstance(node, In)
        and isinstance(node.subject, Path)
        and node.subject.name == name
        and node.options
        and all(is_value(option) for option in node.options)
    ):
        return node.options
    return None


def is_range_condition(node: Node, name: str) -> bool:
    """True when ``node`` can be the sort-key part of a Query's key condition."""
    compare = oriented(node)
    if compare is not None:
        return compare.left.name == name and compare.op in RANGE_COMPARATORS  # type: ignore[union-attr]
    if isinstance(node, Between):
        return (
            isinstance(node.subject, Path)
            and node.subject.name == name
            and is_value(node.low)
            and is_value(node.high)
        )
    if isinstance(node, Call) and node.name == "begins_with" and len(node.args) == 2:
        subject, prefix = node.args
        return isinstance(subject, Path) and subject.name == name and is_value(prefix)
    return False


def attributes_in(node: Node | None) -> set[str]:
    """Every top-level attribute name a condition reads."""
    found: set[str] = set()
    stack: list[object] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Path):
            found.add(str(item.elements[0]))
        elif isinstance(item, tuple):
            stack.extend(item)
        elif hasattr(item, "__dataclass_fields__"):
            stack.extend(getattr(item, field) for field in item.__dataclass_fields__)  # type: ignore[union-attr]
    return found


def split_key(where: Node | None, key: KeySchema, params: list[dict]) -> tuple[dict, Node | None]:
    """The full primary key a write (or single-item read) names, and the rest of its WHERE clause."""
    values: dict[str, dict] = {}
    rest: list[Node] = []
    for node in conjuncts(where):
        for name in key.names:
            value = equality_on(node, name)
            if value is not None and name not in values:
                values[name] = bind(value, params)
                break
        else:
            rest.append(node)
    if len(values) != len(key.names):
        raise invalid(INCOMPLETE_KEY)
    return values, join(rest)
