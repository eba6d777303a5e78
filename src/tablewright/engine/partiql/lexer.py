"""The PartiQL tokenizer: statement text -> tokens.

One regular expression with a named group per token kind does the scanning (data, not code), as in
``tablewright.engine.expressions.lexer``. Keywords are plain ``NAME`` tokens that the parser matches
case-insensitively; a double-quoted identifier is a ``QNAME`` and is never a keyword.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import malformed

NAME = "NAME"  # bare identifier, keyword or function name
QNAME = "QNAME"  # "double-quoted identifier" (text holds the unquoted name)
STRING = "STRING"  # 'single-quoted string' (text holds the unescaped value)
NUMBER = "NUMBER"
PARAM = "PARAM"  # ?
OP = "OP"
EOF = "EOF"

_SCANNER = re.compile(
    r"""
    (?P<WS>\s+|--[^\n]*|/\*.*?\*/)
    |(?P<STRING>'(?:[^']|'')*')
    |(?P<QNAME>"(?:[^"]|"")*")
    |(?P<NUMBER>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
    |(?P<NAME>[A-Za-z_$][A-Za-z0-9_$]*)
    |(?P<PARAM>\?)
    |(?P<OP><<|>>|<>|!=|<=|>=|[=<>()\[\]{},.:*+\-;])
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True, slots=True)
class Token:
    """One token: its kind, its (unquoted) text and its offset in the statement, for error messages."""

    kind: str
    text: str
    start: int

    def is_word(self, word: str) -> bool:
        """True when the token is the bare keyword ``word`` (any case)."""
        return self.kind == NAME and self.text.upper() == word


def tokenize(text: str) -> list[Token]:
    """Split a statement into tokens, ending with ``EOF``; an unknown character is a syntax error."""
    tokens: list[Token] = []
    pos = 0
    while pos < len(text):
        match = _SCANNER.match(text, pos)
        if match is None:
            raise malformed(f"Unexpected character '{text[pos]}' at position {pos}")
        kind = match.lastgroup or OP
        if kind != "WS":
            raw = match.group()
            if kind == STRING:
                raw = raw[1:-1].replace("''", "'")
            elif kind == QNAME:
                raw = raw[1:-1].replace('""', '"')
            tokens.append(Token(kind, raw, pos))
        pos = match.end()
    tokens.append(Token(EOF, "<EOF>", len(text)))
    return tokens
