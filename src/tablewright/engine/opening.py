"""Checks made before the engine opens a database file, so that a wrong file is refused, never written.

Opening a file SQLite-style would write to it at once (the WAL journal mode, tablewright's metadata
tables), even when it is another application's database, a text file or a truncated copy. Here the file
is inspected first, without writing anything: its path, SQLite's 100-byte header (read by Python), then
its schema and tablewright's format version through a read-only, immutable connection when no WAL file
exists (an immutable connection creates no ``-wal``/``-shm`` files and takes no locks).

Errors are typed for callers that map them to a user's message: :class:`BadDatabaseFile` when the path
or the file is wrong (exit status 2 in the CLI), :class:`DatabaseUnavailable` when a usable file cannot
be opened now (permissions, a read-only file system, another process's lock: exit status 3).
"""

from __future__ import annotations

import enum
import os
import shlex
import sqlite3
from pathlib import Path
from urllib.parse import quote

FORMAT_VERSION = 1  # the layout described in storage.py; a file of another version is refused
_HEADER = b"SQLite format 3\x00"


def how_to_check(path: object) -> str:
    """The command that tells a user what is wrong inside a SQLite file (path quoted for a shell)."""
    return f"check it with: sqlite3 {shlex.quote(str(path))} 'PRAGMA integrity_check'"


class DatabaseFileError(Exception):
    """A database file cannot be opened; ``path`` names it and the message says why."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path = path


class BadDatabaseFile(DatabaseFileError):
    """The path or the file is wrong: a missing directory, not SQLite, corrupt, another format version."""


class DatabaseUnavailable(DatabaseFileError):
    """A file that may be fine cannot be used now: permission denied, read-only file system, locked."""


class Found(enum.Enum):
    """What :func:`inspect` found at a path."""

    NEW = "new"  # nothing there, an empty file, or a SQLite database without tables: create the schema
    PARTIAL = "partial"  # a tablewright database lacking some tables of its format: run the schema script
    READY = "ready"  # a complete tablewright database of this format: open it as it is


def inspect(path: str, *, read_only: bool = False, schema: frozenset[str] = frozenset()) -> Found:
    """Check ``path`` before it is opened (``read_only``: it must already be a tablewright database).

    ``schema`` names the tables and indexes of the current format: a file that has them all is
    :attr:`Found.READY` (opened without running the schema script, which takes the write lock).
    Raises :class:`BadDatabaseFile` or :class:`DatabaseUnavailable`; writes nothing.
    """
    if not path.strip():  # an unset variable (--db "$DB"): SQLite would open a private temporary file
        raise BadDatabaseFile(
            path, f"the database path {path!r} is empty; name a file, or give none for an in-memory engine"
        )
    file = Path(path)
    _check_directory(file, read_only)
    if not file.exists():
        if read_only:
            raise BadDatabaseFile(path, f"{path} does not exist (read-only mode opens an existing database)")
        return Found.NEW
    if file.is_dir():
        raise BadDatabaseFile(path, f"{path} is a directory, not a database file")
    if not os.access(file, os.R_OK):
        raise DatabaseUnavailable(path, f"{path} is not readable (permission denied)")
    size = file.stat().st_size
    if size == 0:
        if read_only:
            raise BadDatabaseFile(path, f"{path} is empty, not a tablewright database")
        return _writable(file, Found.NEW)
    _check_header(file, size)
    found = _check_contents(file, read_only, schema)
    return found if read_only else _writable(file, found)


# Commands that can open a file they may not write offer --read-only; Python callers pass read_only.
_READ_ONLY_HINT = (
    "to only read it, open it read-only: serve --read-only, migrate --dry-run --read-only, read_only=True"
)


def _check_directory(file: Path, read_only: bool) -> None:
    directory = file.parent
    if not directory.exists():
        raise BadDatabaseFile(str(file), f"directory {directory} does not exist (for database {file})")
    if not directory.is_dir():
        raise BadDatabaseFile(str(file), f"{directory} is not a directory (for database {file})")
    if not read_only and not os.access(directory, os.W_OK | os.X_OK):
        raise DatabaseUnavailable(
            str(file),
            f"directory {directory} is not writable: SQLite creates {file.name}-wal and {file.name}-shm "
            f"beside the database ({_READ_ONLY_HINT})",
        )


def _writable(file: Path, found: Found) -> Found:
    if not os.access(file, os.W_OK):
        raise DatabaseUnavailable(
            str(file),
            f"{file} is not writable (permission denied; {_READ_ONLY_HINT})",
        )
    return found


def _check_header(file: Path, size: int) -> None:
    """SQLite's file header (https://www.sqlite.org/fileformat.html, section 1.3), read without SQLite."""
    with file.open("rb") as stream:
        header = stream.read(100)
    if not header.startswith(_HEADER):
        raise BadDatabaseFile(
            str(file),
            f"{file} is not a SQLite database (it does not start with SQLite's header; "
            f"see what it is with: file {shlex.quote(str(file))})",
        )
    corrupt = f"{file} is a truncated or corrupt SQLite database"
    hint = how_to_check(file)
    if len(header) < 100:
        raise BadDatabaseFile(str(file), f"{corrupt} (only {size} bytes); {hint}")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or page_size & (page_size - 1) or header[18] not in (1, 2) or header[19] not in (1, 2):
        raise BadDatabaseFile(str(file), f"{corrupt} (its header is damaged); {hint}")
    pages = int.from_bytes(header[28:32], "big")
    size_is_valid = pages and header[24:28] == header[92:96]
    # A process killed during a checkpoint leaves the file shorter than its header says, with every
    # page still in the WAL beside it: SQLite finishes the checkpoint from there on the next open.
    wal = Path(f"{file}-wal")
    if wal.exists() and wal.stat().st_size > 0:
        return
    if size % page_size or (size_is_valid and size < pages * page_size):
        raise BadDatabaseFile(
            str(file),
            f"{corrupt} ({size} bytes, not the whole pages of {page_size} bytes its header promises); {hint}",
        )


def read_only_uri(file: Path, *, immutable: bool = False) -> str:
    """A ``file:`` URI opening ``file`` read-only (``immutable``: no locks, no ``-wal``/``-shm`` files)."""
    return f"file:{quote(str(file.resolve()))}?mode=ro" + ("&immutable=1" if immutable else "")


def _check_contents(file: Path, read_only: bool, schema: frozenset[str]) -> Found:
    # Without a -wal file the main file holds every committed page, so an immutable connection reads it
    # exactly and writes nothing; with one, another process may be using the database right now.
    immutable = not Path(f"{file}-wal").exists()
    try:
        conn = sqlite3.connect(read_only_uri(file, immutable=immutable), uri=True, isolation_level=None)
    except sqlite3.OperationalError as error:
        raise DatabaseUnavailable(str(file), f"{file} cannot be opened: {error}") from None
    try:
        rows = conn.execute(
            "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'index')"
        ).fetchall()
        names = {name for kind, name in rows if kind == "table"}
        if "tw_meta" not in names:
            if names:
                shown = ", ".join(sorted(names)[:5]) + (", ..." if len(names) > 5 else "")
                raise BadDatabaseFile(
                    str(file),
                    f"{file} is a SQLite database of another application (tables {shown}), "
                    "not a tablewright database; tablewright will not write into it",
                )
            if read_only:
                raise BadDatabaseFile(str(file), f"{file} holds no tables: not a tablewright database")
            return Found.NEW
        row = conn.execute("SELECT value FROM tw_meta WHERE key = 'format'").fetchone()
    except sqlite3.OperationalError as error:
        if "locked" in str(error):
            raise DatabaseUnavailable(str(file), f"{file} is locked by another process: {error}") from None
        raise BadDatabaseFile(str(file), f"{file} cannot be read ({error}); {how_to_check(file)}") from None
    except sqlite3.DatabaseError as error:
        raise BadDatabaseFile(
            str(file), f"{file} is a corrupt SQLite database ({error}); {how_to_check(file)}"
        ) from None
    finally:
        conn.close()
    check_format(str(file), row[0] if row else None)
    return Found.READY if {name for _, name in rows} >= schema else Found.PARTIAL


def check_format(path: str, version: object) -> None:
    """Refuse a file whose tablewright format version is not this one's."""
    if version == FORMAT_VERSION:
        return
    if isinstance(version, int) and version > FORMAT_VERSION:
        raise BadDatabaseFile(
            path,
            f"{path} was written by a newer tablewright (database format {version}; this version reads "
            f"format {FORMAT_VERSION}): upgrade tablewright to open it",
        )
    raise BadDatabaseFile(
        path,
        f"{path} has database format {version!r}, older than this tablewright's format {FORMAT_VERSION}, "
        "and no upgrade from it is known: open it with the tablewright that wrote it and export its tables",
    )
