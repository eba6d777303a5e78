"""The package arrows of docs/architecture.md, checked on the source: every import between packages is
one of the documented arrows, and no module reaches for another module's ``_private`` names."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[2] / "src" / "tablewright"

# Package -> the packages (or top-level modules) it may import; mirrors docs/architecture.md.
ALLOWED: dict[str, set[str]] = {
    "engine": set(),
    "server": {"engine"},
    "answers": {"engine"},
    "client": {"engine", "answers", "__version__"},
    "design": set(),
    "lint": {"design", "cost"},
    "cost": {"design", "runtime"},  # runtime: `cost --measure` only (checked below)
    "export": {"design"},
    "imports": {"design", "export", "cost"},
    "runtime": {"design", "export", "engine", "engine_of", "connect"},
    "streams": set(),
    "migrate": {"design", "export", "engine", "engine_of"},
    "explore": {"design", "runtime", "lint", "cost", "engine_of", "connect"},
    "cli": {
        *("design", "lint", "cost", "export", "imports", "runtime", "streams", "migrate"),
        *("engine", "server", "explore", "__init__"),
    },
}
# Narrow crossings documented one by one: (importing module prefix, imported package).
NARROW = {
    ("tablewright.cost.measure", "runtime"),
    ("tablewright.runtime.direct", "engine"),
    ("tablewright.runtime.loading", "engine"),
    ("tablewright.runtime.tables", "export"),
    ("tablewright.runtime.wire", "export"),
    ("tablewright.migrate.io", "engine"),
    ("tablewright.migrate.steps", "export"),
    ("tablewright.migrate.io", "export"),
}


@functools.cache  # parsed once per process: collection needs them, and so do three tests
def _modules() -> list[tuple[str, bool, ast.Module]]:
    found = []
    for path in sorted(SOURCE.rglob("*.py")):
        parts = path.relative_to(SOURCE.parent).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_package else parts)
        found.append((name, is_package, ast.parse(path.read_text(), str(path))))
    return found


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _imported(module: str, is_package: bool, node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        here = module.split(".") if is_package else module.split(".")[:-1]
        here = here[: len(here) - (node.level - 1)]
        base = ".".join([*here, *([node.module] if node.module else [])])
    if node.module:
        return [base]
    return [f"{base}.{alias.name}" for alias in node.names]


@functools.cache
def _arrows() -> list[tuple[str, str, int, str]]:
    arrows = []
    for module, is_package, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                for target in _imported(module, is_package, node):
                    if target.startswith("tablewright.") and _package(target) != _package(module):
                        arrows.append((module, _package(target), node.lineno, target))
    return arrows


def test_every_import_between_packages_is_a_documented_arrow() -> None:
    unknown = [
        f"{module}:{line} imports {target}"
        for module, package, line, target in _arrows()
        if package not in ALLOWED.get(_package(module), set())
    ]
    assert unknown == [], (
        "arrows not in docs/architecture.md (write them there and in ALLOWED, or fix the design)"
    )


def test_narrow_crossings_stay_in_their_modules() -> None:
    wide = {("cost", "runtime"), ("runtime", "engine"), ("runtime", "export"), ("migrate", "engine")}
    wide |= {("migrate", "export")}
    outside = [
        f"{module}:{line} imports {target}"
        for module, package, line, target in _arrows()
        if (_package(module), package) in wide
        and not any(module.startswith(prefix) and package == p for prefix, p in NARROW)
    ]
    assert outside == []


def _private_uses(tree: ast.Module) -> list[str]:
    """``from x import _name`` and ``obj._name`` where ``_name`` is not defined in this module."""
    defined: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            defined.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            defined.add(node.id)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            found += [
                f"{node.lineno}: from {node.module} import {a.name}" for a in node.names if _private(a.name)
            ]
        elif isinstance(node, ast.Attribute) and _private(node.attr) and node.attr not in defined:
            own = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            found += [] if own else [f"{node.lineno}: {ast.unparse(node)}"]
    return found


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


@pytest.mark.parametrize(
    "module, tree", [(m, t) for m, _, t in _modules()], ids=lambda v: v if isinstance(v, str) else ""
)
def test_no_module_uses_another_modules_private_names(module: str, tree: ast.Module) -> None:
    assert _private_uses(tree) == []


def test_the_private_name_check_sees_a_cross_module_call() -> None:
    tree = ast.parse("from .writes import _plan\ndef f(writer):\n    return writer._idempotency_action()\n")
    assert _private_uses(tree) == ["1: from writes import _plan", "3: writer._idempotency_action"]
