"""A collector of problems addressed by YAML path, turned into located ``Problem`` objects later."""

from __future__ import annotations

from dataclasses import dataclass, field

Path = tuple[object, ...]


@dataclass(frozen=True)
class Issue:
    """A problem at a path in the design document (no line yet)."""

    path: Path
    message: str
    hint: str = ""
    severity: str = "error"
    on_key: bool = False  # point at the mapping key rather than its value


@dataclass
class Issues:
    """Accumulates issues so a design reports every problem at once."""

    items: list[Issue] = field(default_factory=list)

    def add(
        self, path: Path, message: str, hint: str = "", *, severity: str = "error", on_key: bool = False
    ) -> None:
        """Record one issue."""
        self.items.append(Issue(tuple(path), message, hint, severity, on_key))

    @property
    def errors(self) -> list[Issue]:
        """Issues with severity ``error``."""
        return [i for i in self.items if i.severity == "error"]


def suggest(name: object, choices: object) -> str:
    """``did you mean 'x'?`` for the closest choice, or the list of choices."""
    import difflib

    options = sorted(str(c) for c in (choices or ()))  # type: ignore[union-attr]
    close = difflib.get_close_matches(str(name), options, n=1)
    if close:
        return f"did you mean {close[0]!r}?"
    return f"use one of: {', '.join(options)}" if options else ""
