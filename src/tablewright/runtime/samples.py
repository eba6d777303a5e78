"""Finding example designs and their sample-data generators (the ``tablewright check`` convention).

An example is a folder with ``design.yaml`` and optionally ``generate.py`` exposing
``generate(seed, scale) -> {entity: [values, ...]}`` and ``params([seed, scale]) -> {pattern:
[params, ...]}``. A design file given directly may have a ``generate.py`` beside it, or
``<stem>.generate.py`` (for several designs in one folder, as in tests).
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ..design.files import design_files

if TYPE_CHECKING:
    from .core import Runtime
    from .wire import Record


@dataclass
class Example:
    """A design file and the generator module beside it (None when there is none)."""

    design: Path
    generator: Path | None

    @property
    def name(self) -> str:
        """The example's name: its folder for ``design.yaml``, else the file stem."""
        return self.design.parent.name if self.design.name == "design.yaml" else self.design.stem


def _generator_for(design: Path) -> Path | None:
    for candidate in (design.with_name(f"{design.stem}.generate.py"), design.with_name("generate.py")):
        if candidate.is_file() and (design.name == "design.yaml" or candidate.name != "generate.py"):
            return candidate
    return None


def find_examples(paths: list[Path]) -> list[Example]:
    """Examples under the given paths: design files, example folders, folders of examples, or
    folders of design files (the paths :func:`tablewright.design.files.design_files` takes)."""
    return [Example(design, _generator_for(design)) for design in design_files(paths)]


def load_generator(path: Path) -> ModuleType:
    """Import a generator by file path; its folder is importable while it loads (for helper modules)."""
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:10]
    spec = importlib.util.spec_from_file_location(f"_tablewright_example_{digest}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    for required in ("generate", "params"):
        if not callable(getattr(module, required, None)):
            raise ImportError(f"{path}: a sample generator must define {required}() (see docs/runtime.md)")
    return module


def call_flexibly(function: Any, seed: int, scale: float) -> Any:
    """Call ``params``/``generate`` with (seed, scale), as many as it accepts."""
    accepted = len(inspect.signature(function).parameters)
    return function(*(seed, scale)[:accepted])


def load_sample_data(
    rt: Runtime, data: dict[str, list[dict]], on_progress: Callable[[int], None] | None = None
) -> list[Record]:
    """Load a generator's ``{entity: [values]}`` through the runtime's bulk load (``Runtime.load_many``);
    returns the records written.

    The records are what a pattern's ``means`` is evaluated over (``verify.verify_pattern``).
    ``on_progress(n)`` is told as ``n`` more items are stored.
    """
    records: list[Record] = []
    for entity_name, values in data.items():
        # A bulk load: the embedded engine's (many items per transaction) or BatchWriteItem elsewhere.
        records += rt.load_many(entity_name, values, on_progress=on_progress).records
    return records
