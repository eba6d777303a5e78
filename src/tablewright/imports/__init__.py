"""``tablewright import``: a design file (YAML) from a NoSQL Workbench model, a CloudFormation or
SAM template, a Serverless Framework file, Terraform, CreateTable requests (what ``export --to
create-table`` writes), or a live endpoint's DescribeTable. Tables and
indexes come out complete; entities and access patterns as a commented skeleton; sample items as a
generator beside the design; what the source declares and the design cannot hold is listed. Every
design written is loaded before it is handed back, so an import never ends in a file later commands
reject. See docs/export.md.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path

from ..design import DesignError
from ..design.loader import loads
from .writer import Imported, design_names, generator_text, to_yaml

# Format -> module exposing ``import_file(path) -> Imported`` (the endpoint format is not a file).
FORMATS = {
    "nosql-workbench": "workbench",
    "cloudformation": "cloudformation",
    "sam": "cloudformation",
    "serverless": "serverless",
    "terraform": "terraform",
    "create-table": "create_table",
}


class ImportFailed(ValueError):
    """The design written from a source would not load: stated with the source and the reason."""


@dataclass
class ImportResult:
    """The design text, the sample-data generator to write beside it (or None), warnings naming what
    the import assumed or could not read, and notes naming what the source declares that the design
    cannot hold (also written as a comment in the design)."""

    design: str
    generator: str | None = None
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def checked_yaml(imported: Imported, source: str | Path) -> str:
    """The design text, or :class:`ImportFailed` when it would not load (an invalid name in the
    source...): import never writes a design that does not load."""
    text = to_yaml(imported)
    try:
        loads(text, file="design")
    except DesignError as error:
        errors = [p for p in error.problems if p.severity == "error"]
        where = ", ".join(f"{p.message}" for p in errors[:3])
        raise ImportFailed(f"{source}: the design it makes would not load: {where}") from None
    except ValueError as error:  # the loader stopped early (a key attribute no template can name...)
        raise ImportFailed(f"{source}: the design it makes would not load: {error}") from None
    return text


def read(path: str | Path, fmt: str) -> Imported:
    """The neutral form of a model or template file (its ``notes`` list what is not carried)."""
    module_name = FORMATS.get(fmt)
    if module_name is None:
        raise ValueError(
            f"unknown import format {fmt!r}: expected one of {', '.join([*FORMATS, 'endpoint'])}"
        )
    module = importlib.import_module(f"{__name__}.{module_name}")
    return module.import_file(Path(path))


def result(imported: Imported, name: str | None = None, source: str | Path | None = None) -> ImportResult:
    """Write the design for ``imported`` and load it; :class:`ImportFailed` when it does not load."""
    if name:
        imported.name = name
    text = checked_yaml(imported, source or imported.source or "the source")
    warnings = [*imported.warnings, *design_names(imported).changed]
    return ImportResult(text, generator_text(imported), warnings, list(imported.notes))


def import_file(path: str | Path, fmt: str) -> str:
    """The design YAML for a model or template file (loaded once to prove it loads)."""
    return result(read(path, fmt), source=path).design


__all__ = [
    "FORMATS",
    "ImportFailed",
    "ImportResult",
    "Imported",
    "checked_yaml",
    "import_file",
    "read",
    "result",
    "to_yaml",
]
