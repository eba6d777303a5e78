"""``tablewright export``: a design to other formats (CloudFormation, Terraform, CreateTable JSON,
NoSQL Workbench, Markdown). Pure: depends on ``tablewright.design`` only (no engine, no boto3).

``export(design, "terraform")`` returns the text; ``FORMATS`` maps a format name to its module's
``export(design, design_path=...)``; ``losses(design, fmt)`` names, per feature, what the format
cannot carry (the CLI prints them as warnings). See docs/export.md.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

from ..design.model import Design
from .losses import losses

# Format name -> module exposing ``export(design, *, design_path) -> str | dict``.
FORMATS = {
    "cloudformation": "cloudformation",
    "terraform": "terraform",
    "create-table": "create_table",
    "nosql-workbench": "workbench",
    "markdown": "markdown",
}


def export(design: Design, fmt: str, *, design_path: str | Path | None = None) -> str:
    """The design in ``fmt`` as text. ``design_path`` locates ``generate.py`` and lint's sidecars."""
    module_name = FORMATS.get(fmt)
    if module_name is None:
        raise ValueError(f"unknown export format {fmt!r}: expected one of {', '.join(FORMATS)}")
    module = importlib.import_module(f"{__name__}.{module_name}")
    result: Any = module.export(design, design_path=Path(design_path) if design_path else None)
    return result if isinstance(result, str) else json.dumps(result, indent=2) + "\n"


__all__ = ["FORMATS", "export", "losses"]
