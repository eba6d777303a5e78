"""The expression tokenizer: text -> tokens, shared by every expression language.

One regular expression with a named group per token kind does the scanning (data, not code);
keywords are plain ``NAME`` tokens that the parser recognises case-insensitively, because whether
``set`` is a keyword depends on where it stands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .messages import invalid_expression

NAME = "NAME"  # an unquoted attribute name, keyword or function name
NAME_REF = "NAME_REF"  # "#placeholder"
VALUE_REF = "VALUE_REF"  # ":placeholder"
INDEX = "INDEX"  # the digits of a list index
OP = "OP"  # punctuation and operators; the token text says which
# An unquoted name must start with a letter: DynamoDB reads ``_abc`` as a stray ``_`` followed by a
# name and reports the ``_`` as a syntax error, its neighbours included ("near: \"SET _abc\"").
STRAY = "STRAY"
EOF = "EOF"

_SCANNER = re.compile(
    r"""
    (?P<WS>\s+)
    |(?P<NAME_REF>\#[A-Za-z0-9_]+)
    |(?P<VALUE_REF>:[A-Za-z0-9_]+)
    |(?P<NAME>[A-Za-z][A-Za-z0-9_]*)
    |(?P<STRAY>_)
    |(?P<INDEX>[0-9]+)
    |(?P<OP><>|<=|>=|[=<>()\[\],.+\-])
    """,
    re.VERBOSE,
)


@dataclass(frozen=True, slots=True)
class Token:
    """One token: its kind, its text and where it stands in the expression (for error messages)."""

    kind: str
    text: str
    start: int
    end: int


def tokenize(text: str, kind: str) -> list[Token]:
    """Split ``text`` into tokens, ending with an ``EOF`` token; ``kind`` names the expression in errors."""
    tokens: list[Token] = []
    pos = 0
    while pos < len(text):
        match = _SCANNER.match(text, pos)
        if match is None:
            # DynamoDB reports the offending character with the token before it.
            tokens.append(Token(OP, text[pos], pos, pos + 1))
            raise syntax_error(kind, text, tokens, len(tokens) - 1)
        if match.lastgroup != "WS":
            tokens.append(Token(match.lastgroup or OP, match.group(), pos, match.end()))
        pos = match.end()
    tokens.append(Token(EOF, "<EOF>", len(text), len(text)))
    return tokens


def syntax_error(kind: str, text: str, tokens: list[Token], index: int) -> Exception:
    """DynamoDB's syntax error: the bad token, and the text from the token before it to the one after."""
    bad = tokens[index]
    start = tokens[index - 1].start if index > 0 else bad.start
    end = tokens[index + 1].end if index + 1 < len(tokens) else bad.end
    return invalid_expression(kind, f'Syntax error; token: "{bad.text}", near: "{text[start:end]}"')
