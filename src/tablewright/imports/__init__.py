"""``tablewright import``: a design file (YAML) from a NoSQL Workbench model, a CloudFormation or
SAM template, a Serverless Framework file, Terraform, or a live endpoint's DescribeTable. Tables and indexes come out complete; entities and
access patterns as a commented skeleton. See docs/export.md.
"""

from __future__ import annotations

import importlib
from pathlib import Path

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
    return to_yaml(read(path, fmt))


def read(path: str | Path, fmt: str) -> Imported:
    """The neutral form of a model or template file (its ``notes`` list what is not carried)."""
    module_name = FORMATS.get(fmt)
    if module_name is None:
        raise ValueError(
            f"unknown import format {fmt!r}: expected one of {', '.join([*FORMATS, 'endpoint'])}"
        )
    module = importlib.import_module(f"{__name__}.{module_name}")
    return module.import_file(Path(path))


__all__ = ["FORMATS", "Imported", "import_file", "read", "to_yaml"]
