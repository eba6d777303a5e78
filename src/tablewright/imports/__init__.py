"""``tablewright import``: a design file (YAML) from a NoSQL Workbench model, a CloudFormation
template or a live endpoint's DescribeTable. Tables and indexes come out complete; entities and
access patterns as a commented skeleton; sample items as a generator beside the design. Every design
written is loaded before it is handed back, so an import never ends in a file later commands reject.
See docs/export.md.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path

from ..design import DesignError, loads
from .writer import Imported, generator_text, to_yaml

# Format -> module exposing ``import_file(path) -> Imported`` (the endpoint format is not a file).
FORMATS = {"nosql-workbench": "workbench", "cloudformation": "cloudformation"}


class ImportFailed(ValueError):
    """The design written from a source does not load: a defect of the import, stated with the reason."""


@dataclass
class ImportResult:
    """The design text, the sample-data generator to write beside it (or None), and warnings naming
    what the source said that the design does not carry."""

    design: str
    generator: str | None = None
    warnings: list[str] = field(default_factory=list)


def read(path: str | Path, fmt: str) -> Imported:
    """The neutral form of a model or template file."""
    module_name = FORMATS.get(fmt)
    if module_name is None:
        raise ValueError(
            f"unknown import format {fmt!r}: expected one of {', '.join([*FORMATS, 'endpoint'])}"
        )
    module = importlib.import_module(f"{__name__}.{module_name}")
    return module.import_file(Path(path))


def result(imported: Imported, name: str | None = None) -> ImportResult:
    """Write the design for ``imported`` and load it; ``ImportFailed`` when it does not load."""
    if name:
        imported.name = name
    text = to_yaml(imported)
    try:
        loads(text, f"<design imported from {imported.source or 'a model'}>")
    except DesignError as error:
        raise ImportFailed(f"the design written from {imported.source} does not load: {error}") from None
    return ImportResult(text, generator_text(imported), list(imported.warnings))


def import_file(path: str | Path, fmt: str) -> str:
    """The design YAML for a model or template file (loaded once to prove it loads)."""
    return result(read(path, fmt)).design


__all__ = ["FORMATS", "ImportFailed", "ImportResult", "Imported", "import_file", "read", "result", "to_yaml"]
