"""Which files are designs: the paths commands accept (a design file, an example folder holding
``design.yaml``, a folder of examples, a folder of loose design files), with lint sidecars
(``*.lint.yaml``) never taken for designs. ``tablewright check`` finds examples the same way."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

SIDECAR_SUFFIX = ".lint.yaml"


def is_design_file(path: Path) -> bool:
    """A YAML file that is not a lint sidecar."""
    return path.suffix in (".yaml", ".yml") and not path.name.endswith(SIDECAR_SUFFIX)


def design_files(paths: Iterable[str | Path]) -> list[Path]:
    """The design files the given paths name; ``FileNotFoundError`` for a path that is neither a
    file nor a folder holding designs."""
    found: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_file():
            found.append(path)
        elif (path / "design.yaml").is_file():
            found.append(path / "design.yaml")
        elif path.is_dir():
            designs = sorted(path.glob("*/design.yaml")) or sorted(
                p for p in path.iterdir() if p.is_file() and is_design_file(p)
            )
            if not designs:
                raise FileNotFoundError(f"{path}: no design.yaml and no design files in this folder")
            found += designs
        else:
            raise FileNotFoundError(f"{path}: no such design file or folder")
    return found
