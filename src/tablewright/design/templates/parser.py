"""Key template AST and parser: tokens -> ``Template``."""

from __future__ import annotations

from dataclasses import dataclass, field

from .tokenizer import TemplateSyntaxError, Tok, Token, tokenize


@dataclass(frozen=True)
class Literal:
    """Literal text copied into the key."""

    text: str


@dataclass(frozen=True)
class FilterCall:
    """One ``|name:arg`` step; ``arg`` is the raw text after the colon (None when absent)."""

    name: str
    arg: str | None = None


@dataclass(frozen=True)
class Field:
    """``{name:spec|filter...}``: an attribute (or ``:param``) with an optional format spec and filters."""

    name: str
    spec: str | None = None
    filters: tuple[FilterCall, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Template:
    """A parsed template: literals and fields in order."""

    source: str
    parts: tuple[Literal | Field, ...]


def parse(text: str) -> Template:
    """Parse template text; raises ``TemplateSyntaxError`` with the position of the first fault."""
    tokens = tokenize(text)
    parts: list[Literal | Field] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.kind is Tok.TEXT:
            parts.append(Literal(tok.value))
            i += 1
            continue
        fld, i = _parse_field(text, tokens, i + 1, tok.position)
        parts.append(fld)
    return Template(text, tuple(parts))


def _applies(spec: str) -> bool:
    """Whether ``spec`` is a Python format spec for a number or a string (else every write fails)."""
    for sample in (0, ""):
        try:
            format(sample, spec)
        except ValueError:
            continue
        return True
    return False


def _parse_field(text: str, tokens: list[Token], i: int, start: int) -> tuple[Field, int]:
    """Parse after an OPEN token; return the field and the index after its CLOSE."""
    if i >= len(tokens) or tokens[i].kind is not Tok.NAME:
        raise TemplateSyntaxError("a field needs an attribute name, as in {userId}", text, start)
    name = tokens[i].value
    i += 1
    spec = None
    if tokens[i].kind is Tok.ARG:
        spec = tokens[i].value.strip()
        if not _applies(spec):
            raise TemplateSyntaxError(
                f"format spec :{spec} formats no number or string; write e.g. :013 (zero-padded)",
                text,
                tokens[i].position,
            )
        i += 1
    filters: list[FilterCall] = []
    while tokens[i].kind is Tok.PIPE:
        if i + 1 >= len(tokens) or tokens[i + 1].kind is not Tok.NAME:
            raise TemplateSyntaxError("'|' must be followed by a filter name", text, tokens[i].position)
        fname = tokens[i + 1].value
        i += 2
        arg = None
        if tokens[i].kind is Tok.ARG:
            arg = tokens[i].value
            i += 1
        filters.append(FilterCall(fname, arg))
    if tokens[i].kind is not Tok.CLOSE:
        raise TemplateSyntaxError(f"unexpected {tokens[i].value!r} in field", text, tokens[i].position)
    return Field(name, spec, tuple(filters)), i + 1
