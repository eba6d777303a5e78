"""explore sits on the runtime like an application: public names of design, runtime, lint, cost and
the client only; never the engine, the server or another module's ``_private`` names."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "tablewright" / "explore"
ALLOWED = {"", "design", "runtime", "lint", "cost"}  # "" is tablewright itself: connect, engine_of


def _imports():
    for module in sorted(PACKAGE.glob("*.py")):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 2:
                yield (
                    module.name,
                    (node.module or "").split(".")[0],
                    [a.name for a in node.names],
                    node.module,
                )
            elif isinstance(node, ast.Import) or isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                for name in names:
                    if name.startswith("tablewright"):
                        yield module.name, "absolute", [name], name


def test_explore_imports_only_public_names_of_the_packages_it_sits_on():
    found = list(_imports())
    assert found, "the probe found no imports: it is not looking at the package"
    for module, package, names, path in found:
        assert package in ALLOWED, f"{module} imports from tablewright.{path}"
        assert not any(n.startswith("_") for n in names), f"{module} imports private {names} from {path}"
        assert not any(part.startswith("_") for part in (path or "").split(".")), f"{module} imports {path}"
