"""Problems found in a design and the error that carries all of them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One problem: where (file, 1-based line and column), what, and how to fix it."""

    file: str
    line: int
    column: int
    message: str
    hint: str = ""
    severity: str = "error"

    def __str__(self) -> str:
        text = f"{self.file}:{self.line}:{self.column}: {self.severity}: {self.message}"
        return f"{text}\n    hint: {self.hint}" if self.hint else text


class DesignError(ValueError):
    """An invalid design; ``problems`` lists every problem found, in file order."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = sorted(problems, key=lambda p: (p.file, p.line, p.column))
        super().__init__(str(self))

    def __str__(self) -> str:
        count = len(self.problems)
        head = f"design has {count} problem{'s' if count != 1 else ''}:"
        return "\n".join([head, *(str(p) for p in self.problems)])
