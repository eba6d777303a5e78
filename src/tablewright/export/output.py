"""Where ``tablewright export --out`` writes: the folders on the way are made, and a file standing where
a folder must be is named as such (``mkdir`` alone says only "File exists" about it)."""

from __future__ import annotations

import errno
from pathlib import Path


def make_folder(folder: Path, out: str) -> None:
    """Create ``folder`` and its parents for ``--out out``.

    Raises ``NotADirectoryError`` naming the first path on the way that is a file: an ``OSError`` the
    command reports as bad input (status 2) in the words given here.
    """
    for step in [*reversed(folder.parents), folder]:
        if step.exists() and not step.is_dir():
            raise NotADirectoryError(
                errno.ENOTDIR,
                f"is a file, not a folder, so --out {out} cannot be written inside it",
                str(step),
            )
    folder.mkdir(parents=True, exist_ok=True)


def write_output(out: str, text: str) -> None:
    """Write ``text`` to the file ``out``, making the folders on the way."""
    path = Path(out)
    make_folder(path.parent, out)
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a folder; --out names the file to write", out)
    path.write_text(text, encoding="utf-8")
