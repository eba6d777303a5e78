"""Key template tokenizer: text -> tokens.

Outside braces everything is literal text (``{{`` and ``}}`` escape braces). Inside a field the
tokenizer emits a NAME, then ``:spec`` / ``|filter`` / ``:arg`` pieces. An argument runs to the next
``|`` or ``}`` so it may hold colons and slashes (``tz:America/Denver``, ``format:%H:%M``).

An attribute name DynamoDB allows but the bare-name syntax does not (``#``, spaces, ``:``, ``.``, a
leading digit, non-ASCII) is written quoted: ``{"State#Date"}``, a ``""`` inside standing for one
``"``. ``field_source(name)`` writes a name in the form the tokenizer reads back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum


class TemplateSyntaxError(ValueError):
    """A key template is malformed; ``position`` is the 0-based offset in the template text."""

    def __init__(self, message: str, text: str, position: int) -> None:
        super().__init__(f"{message} at position {position} in template {text!r}")
        self.reason = message
        self.text = text
        self.position = position


class Tok(Enum):
    TEXT = "text"
    OPEN = "{"
    CLOSE = "}"
    NAME = "name"
    ARG = "arg"  # the raw text after a ':' inside a field
    PIPE = "|"


@dataclass(frozen=True)
class Token:
    kind: Tok
    value: str
    position: int


_NAME = re.compile(r":?[A-Za-z_][A-Za-z0-9_.\-]*")
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def quote_name(name: str) -> str:
    """``name`` as it is written inside a field: bare when plain, else quoted (``"State#Date"``)."""
    return name if _PLAIN_NAME.fullmatch(name) else '"' + name.replace('"', '""') + '"'


def field_source(name: str) -> str:
    """The template that stores attribute ``name`` unchanged: ``{name}`` or ``{"State#Date"}``."""
    return "{" + quote_name(name) + "}"


def _quoted_name(text: str, start: int) -> tuple[str, int]:
    """Read a quoted name beginning at the ``"`` at ``start``; return it and the offset after it."""
    chars: list[str] = []
    i = start + 1
    while i < len(text):
        if text[i] == '"':
            if text[i + 1 : i + 2] != '"':
                if not chars:
                    raise TemplateSyntaxError("a quoted field name is empty", text, start)
                return "".join(chars), i + 1
            i += 1  # '""' is one quote
        chars.append(text[i])
        i += 1
    raise TemplateSyntaxError("quoted field name is not closed with '\"'", text, start)


def tokenize(text: str) -> list[Token]:
    """Split a key template into tokens; raises ``TemplateSyntaxError`` on unbalanced braces."""
    tokens: list[Token] = []
    i, n = 0, len(text)
    literal: list[str] = []
    literal_start = 0
    while i < n:
        ch = text[i]
        if ch in "{}" and text[i : i + 2] in ("{{", "}}"):
            if not literal:
                literal_start = i
            literal.append(ch)
            i += 2
            continue
        if ch == "}":
            raise TemplateSyntaxError("unmatched '}' (write '}}' for a literal brace)", text, i)
        if ch != "{":
            if not literal:
                literal_start = i
            literal.append(ch)
            i += 1
            continue
        if literal:
            tokens.append(Token(Tok.TEXT, "".join(literal), literal_start))
            literal = []
        i = _field_tokens(text, i, tokens)
    if literal:
        tokens.append(Token(Tok.TEXT, "".join(literal), literal_start))
    return tokens


def _field_tokens(text: str, start: int, tokens: list[Token]) -> int:
    """Tokenize one ``{...}`` field beginning at ``start``; return the offset after its ``}``."""
    tokens.append(Token(Tok.OPEN, "{", start))
    i = start + 1
    expect_name = True
    while i < len(text):
        ch = text[i]
        if ch == "}":
            tokens.append(Token(Tok.CLOSE, "}", i))
            return i + 1
        if ch == "|":
            tokens.append(Token(Tok.PIPE, "|", i))
            expect_name = True
            i += 1
        elif ch == ":" and not expect_name:
            end = i + 1
            while end < len(text) and text[end] not in "|}":
                end += 1
            tokens.append(Token(Tok.ARG, text[i + 1 : end], i + 1))
            i = end
        elif expect_name and ch == '"' and tokens[-1].kind is Tok.OPEN:
            name, end = _quoted_name(text, i)
            tokens.append(Token(Tok.NAME, name, i))
            i = end
            expect_name = False
        elif expect_name and (match := _NAME.match(text, i)):
            tokens.append(Token(Tok.NAME, match.group(0), i))
            expect_name = False
            i = match.end()
        elif ch.isspace():
            i += 1
        else:
            raise TemplateSyntaxError(
                f'unexpected {ch!r} in field (an attribute name holding it is quoted: {{"State#Date"}})',
                text,
                i,
            )
    raise TemplateSyntaxError("field is not closed with '}'", text, start)
