"""``tablewright import``: a design file (YAML) from a NoSQL Workbench model, a CloudFormation or
SAM template, a Serverless Framework file, Terraform, or a live endpoint's DescribeTable. Tables and indexes come out complete; entities and
access patterns as a commented skeleton. See docs/export.md.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from ..design import DesignError
from ..design.loader import loads
from .writer import Imported, to_yaml

# Format -> module exposing ``import_file(path) -> Imported`` (the endpoint format is not a file).
FORMATS = {
    "nosql-workbench": "workbench",
    "cloudformation": "cloudformation",
    "sam": "cloudformation",
    "serverless": "serverless",
    "terraform": "terraform",
}


def import_file(path: str | Path, fmt: str) -> str:
    """The design YAML for a model or template file."""
    return checked_yaml(read(path, fmt), path)


def checked_yaml(imported: Imported, source: str | Path) -> str:
    """The design text, or ``ValueError`` when it would not load (an invalid name in the source...):
    import never writes a design that does not load."""
    text = to_yaml(imported)
    try:
        loads(text, file="design")
    except DesignError as error:
        errors = [p for p in error.problems if p.severity == "error"]
        where = ", ".join(f"{p.message}" for p in errors[:3])
        raise ValueError(f"{source}: the design it makes would not load: {where}") from None
    except ValueError as error:  # the loader stopped early (a key attribute no template can name...)
        raise ValueError(f"{source}: the design it makes would not load: {error}") from None
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


__all__ = ["FORMATS", "Imported", "checked_yaml", "import_file", "read", "to_yaml"]
