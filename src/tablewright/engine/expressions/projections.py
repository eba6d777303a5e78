"""ProjectionExpression application: keep only the named document paths of an item, nesting intact.

A projected ``a.b[1]`` yields ``{"a": {"M": {"b": {"L": [<element 1>]}}}}``: maps keep their keys, lists
keep the chosen elements in index order (so ``a[3], a[1]`` gives elements 1 then 3). Paths that do not
exist in the item are skipped silently, as DynamoDB does.
"""

from __future__ import annotations

from ..types import AttributeValue, Item
from .nodes import Path, ProjectionExpr
from .resolve import Scope, check_overlaps, clone, get_path


def check_projection(expr: ProjectionExpr, names: dict[str, str] | None = None) -> list[Path]:
    """The projection's resolved paths, refused when two overlap or conflict.

    DynamoDB checks this with the request, before reading anything: a projection of a missing item,
    or of a query that matches nothing, is refused all the same.
    """
    scope = Scope(expr.kind, names, None)
    paths = [scope.path(p) for p in expr.paths]
    check_overlaps(paths, expr.kind)
    return paths


def project(expr: ProjectionExpr, item: Item, names: dict[str, str] | None = None) -> Item:
    """The part of ``item`` named by the projection; ``item`` itself is not modified."""
    return project_paths(check_projection(expr, names), item)


def project_paths(paths: list[Path], item: Item) -> Item:
    """Project already-resolved, non-overlapping paths (also used for ReturnValues of nested updates)."""
    # Build a tree first: a branch is ("M"|"L", {key or index: subtree}), a leaf a copied value.
    roots: dict = {}
    for path in paths:
        value = get_path(item, path)
        if value is None:
            continue
        children = roots
        for element, following in zip(path, path[1:]):
            kind = "L" if isinstance(following, int) else "M"
            children = children.setdefault(element, (kind, {}))[1]
        children[path[-1]] = clone(value)
    return {name: _finish(node) for name, node in roots.items()}


def _finish(node: tuple | AttributeValue) -> AttributeValue:
    if isinstance(node, dict):
        return node
    kind, children = node
    if kind == "L":
        return {"L": [_finish(children[index]) for index in sorted(children)]}
    return {"M": {key: _finish(child) for key, child in children.items()}}
