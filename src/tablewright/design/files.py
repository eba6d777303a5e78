"""Which files are designs: the paths commands accept (a design file, an example folder holding
``design.yaml``, a folder of examples, a folder of loose design files), with lint sidecars
(``*.lint.yaml``) never taken for designs. ``tablewright check`` finds examples the same way."""

from __future__ import annotations

import errno
import stat
from collections.abc import Iterable
from pathlib import Path

SIDECAR_SUFFIX = ".lint.yaml"
# No design, template, plan or price file comes near this; a larger file is a mistake, and reading it
# whole would take the machine's memory before any parser could say so.
MAX_INPUT_BYTES = 64 * 1024 * 1024


class InputFileError(OSError):
    """A path given as an input file that cannot be one: a device or socket, or a file too large."""


def _readable_kind(path: Path) -> bool:
    # A FIFO is read to its end like a file: `tablewright lint <(generate-design)` gives one. A device
    # (/dev/zero, /dev/null, a terminal) never ends or is always empty; a socket cannot be opened.
    mode = path.stat().st_mode
    return stat.S_ISREG(mode) or stat.S_ISFIFO(mode)


def read_text(path: str | Path, *, encoding: str = "utf-8") -> str:
    """The text of an input file; ``InputFileError`` for a device, a socket or a file over
    ``MAX_INPUT_BYTES``, ``FileNotFoundError`` and ``UnicodeDecodeError`` as reading raises them."""
    path = Path(path)
    if not _readable_kind(path):
        raise InputFileError(errno.EINVAL, "not a file (a device or socket): give a file", str(path))
    try:
        with path.open("rb") as stream:
            data = stream.read(MAX_INPUT_BYTES + 1)
    except OSError as exc:
        if exc.filename is not None:
            raise
        # A read that fails after the open (EIO from a failing disk or /proc/self/mem) names no file.
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    if len(data) > MAX_INPUT_BYTES:
        limit = MAX_INPUT_BYTES // (1024 * 1024)
        raise InputFileError(errno.EFBIG, f"larger than {limit} MiB: not an input file", str(path))
    return data.decode(encoding)


def is_design_file(path: Path) -> bool:
    """A YAML file that is not a lint sidecar."""
    return path.suffix in (".yaml", ".yml") and not path.name.endswith(SIDECAR_SUFFIX)


def design_files(paths: Iterable[str | Path]) -> list[Path]:
    """The design files the given paths name; ``FileNotFoundError`` for a path that is neither a
    file nor a folder holding designs."""
    found: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_file() or path.is_fifo():
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
        elif path.exists():
            raise InputFileError(errno.EINVAL, "not a design file or folder (a device or socket)", str(path))
        else:
            raise FileNotFoundError(f"{path}: no such design file or folder")
    return found
