"""The tokenizer shared by every expression kind, and the error helpers that quote the source text.

Tokens keep their character offsets so that a syntax error can quote DynamoDB's ``near:`` context
(the previous token, the offending one and the next, exactly as written).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import ValidationException

MAX_EXPRESSION_BYTES = 4096
EOF = "<EOF>"

# Token kinds, matched in this order; the names become ``Token.kind``.
_TOKEN_SPEC: tuple[tuple[str, str], ...] = (
    ("SPACE", r"\s+"),
    ("NAME_REF", r"#[A-Za-z0-9_]+"),
    ("VALUE_REF", r":[A-Za-z0-9_]+"),
    ("NAME", r"[A-Za-z_][A-Za-z0-9_]*"),
    ("NUMBER", r"[0-9]+"),
    ("OP", r"<>|<=|>=|[=<>(),.\[\]+\-]"),
    ("UNKNOWN", r"."),
)
_TOKEN_RE = re.compile("|".join(f"(?P<{kind}>{pattern})" for kind, pattern in _TOKEN_SPEC), re.DOTALL)


@dataclass(frozen=True, slots=True)
class Token:
    """One lexeme: ``kind`` from the table above (or ``EOF``), its text and where it sits in the source."""

    kind: str
    text: str
    start: int
    end: int

    @property
    def upper(self) -> str:
        return self.text.upper()


def fail(kind: str, message: str) -> ValidationException:
    """DynamoDB's wrapper for everything wrong with one expression: ``Invalid <Kind>: <message>``."""
    return ValidationException(f"Invalid {kind}: {message}")


def tokenize(text: str, kind: str) -> tuple[Token, ...]:
    """Split ``text`` into tokens ending with an ``EOF`` token; reject empty and oversized expressions."""
    if not text.strip():
        raise fail(kind, "The expression can not be empty;")
    size = len(text.encode("utf-8"))
    if size > MAX_EXPRESSION_BYTES:
        raise fail(kind, f"Expression size has exceeded the maximum allowed size; expression size: {size}")
    tokens = [
        Token(match.lastgroup or "UNKNOWN", match.group(), match.start(), match.end())
        for match in _TOKEN_RE.finditer(text)
        if match.lastgroup != "SPACE"
    ]
    tokens.append(Token(EOF, EOF, len(text), len(text)))
    for index, token in enumerate(tokens):
        if token.kind == "UNKNOWN":
            raise syntax_error(kind, text, tokens, index)
    return tuple(tokens)


def syntax_error(kind: str, text: str, tokens: list[Token] | tuple[Token, ...], index: int) -> ValidationException:
    """DynamoDB's syntax error: the offending token and the source from the token before to the token after."""
    token = tokens[index]
    first = tokens[max(index - 1, 0)]
    last = tokens[min(index + 1, len(tokens) - 1)]
    near = text[first.start : last.end]
    return fail(kind, f'Syntax error; token: "{token.text}", near: "{near}"')
