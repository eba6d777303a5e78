"""The PartiQL expression grammar: tokens -> AST nodes by precedence climbing and dispatch tables.

Precedence, loosest first: OR, AND, NOT, predicates (comparison, BETWEEN, IN, IS), ``+``/``-``,
primaries. Primaries are dispatched on the token kind (:data:`_PRIMARY`) and on the opening
punctuation (:data:`_OPENERS`); predicates on the word or operator after an operand
(:data:`_PREDICATES`). Statement grammar lives in :mod:`.statements`.
"""

from __future__ import annotations

from collections.abc import Callable

from . import lexer as lx
from .errors import malformed
from .nodes import (
    Arith,
    BagExpr,
    Between,
    Call,
    Compare,
    In,
    Is,
    ListExpr,
    Literal,
    Logical,
    MapExpr,
    Node,
    Not,
    Param,
    Path,
)

COMPARATORS = {"=": "=", "<>": "<>", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
# Bare words that are values, not attribute names.
_WORD_VALUES = {"TRUE": {"BOOL": True}, "FALSE": {"BOOL": False}, "NULL": {"NULL": True}, "MISSING": None}


class Parser:
    """A cursor over one statement's tokens, with the expression grammar."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = lx.tokenize(text)
        self.pos = 0
        self.params = 0

    # ------------------------------------------------------------------------------------ cursor

    @property
    def token(self) -> lx.Token:
        return self.tokens[self.pos]

    def advance(self) -> lx.Token:
        token = self.tokens[self.pos]
        self.pos = min(self.pos + 1, len(self.tokens) - 1)
        return token

    def at_word(self, *words: str) -> bool:
        return any(self.token.is_word(word) for word in words)

    def at_op(self, *ops: str) -> bool:
        return self.token.kind == lx.OP and self.token.text in ops

    def accept_word(self, word: str) -> bool:
        if self.token.is_word(word):
            self.advance()
            return True
        return False

    def accept_op(self, op: str) -> bool:
        if self.at_op(op):
            self.advance()
            return True
        return False

    def expect_word(self, word: str) -> None:
        if not self.accept_word(word):
            raise self.unexpected(f"expected {word}")

    def expect_op(self, op: str) -> None:
        if not self.accept_op(op):
            raise self.unexpected(f"expected '{op}'")

    def unexpected(self, hint: str = "") -> Exception:
        token = self.token
        shown = "end of statement" if token.kind == lx.EOF else f"'{token.text}'"
        suffix = f" ({hint})" if hint else ""
        return malformed(f"Unexpected {shown} at position {token.start}{suffix}")

    def identifier(self) -> str:
        """A bare or double-quoted name."""
        if self.token.kind in (lx.NAME, lx.QNAME):
            return self.advance().text
        raise self.unexpected("expected an identifier")

    # -------------------------------------------------------------------------------- conditions

    def condition(self) -> Node:
        return self._logical("OR", self._conjunction)

    def _conjunction(self) -> Node:
        return self._logical("AND", self._negation)

    def _logical(self, word: str, operand: Callable[[], Node]) -> Node:
        operands = [operand()]
        while self.accept_word(word):
            operands.append(operand())
        return operands[0] if len(operands) == 1 else Logical(word, tuple(operands))

    def _negation(self) -> Node:
        if self.accept_word("NOT"):
            return Not(self._negation())
        return self.predicate()

    def predicate(self) -> Node:
        left = self.additive()
        for test, parse in _PREDICATES:
            if test(self):
                return parse(self, left)
        return left

    def _comparison(self, left: Node) -> Node:
        op = COMPARATORS[self.advance().text]
        return Compare(op, left, self.additive())

    def _between(self, left: Node) -> Node:
        self.advance()
        low = self.additive()
        self.expect_word("AND")
        return Between(left, low, self.additive())

    def _in(self, left: Node) -> Node:
        negated = self.accept_word("NOT")
        self.expect_word("IN")
        closer = {"[": "]", "(": ")"}.get(self.token.text) if self.token.kind == lx.OP else None
        if closer is None:
            raise self.unexpected("IN takes a list: [a, b] or (a, b)")
        self.advance()
        options = self.sequence(closer)
        node: Node = In(left, tuple(options))
        return Not(node) if negated else node

    def _is(self, left: Node) -> Node:
        self.advance()
        negated = self.accept_word("NOT")
        if self.token.kind != lx.NAME:
            raise self.unexpected("expected a type after IS")
        return Is(left, self.advance().text.upper(), negated)

    # ---------------------------------------------------------------------------------- operands

    def additive(self) -> Node:
        node = self.primary()
        while self.at_op("+", "-"):
            op = self.advance().text
            node = Arith(op, node, self.primary())
        return node

    def primary(self) -> Node:
        token = self.token
        if token.kind == lx.OP:
            parse = _OPENERS.get(token.text)
            if parse is None:
                raise self.unexpected()
            return parse(self)
        parse = _PRIMARY.get(token.kind)
        if parse is None:
            raise self.unexpected()
        return parse(self)

    def _string(self) -> Node:
        return Literal({"S": self.advance().text})

    def _number(self) -> Node:
        return Literal({"N": self.advance().text})

    def _param(self) -> Node:
        self.advance()
        self.params += 1
        return Param(self.params - 1)

    def _word(self) -> Node:
        word = self.token.text.upper()
        if self.token.kind == lx.NAME and word in _WORD_VALUES:
            self.advance()
            return Literal(_WORD_VALUES[word])
        if self.token.kind == lx.NAME and self.tokens[self.pos + 1].text == "(":
            name = self.advance().text.lower()
            self.advance()
            return Call(name, tuple(self.sequence(")")))
        return self.path()

    def path(self) -> Path:
        elements: list[str | int] = [self.identifier()]
        while True:
            if self.accept_op("."):
                elements.append(self.identifier())
            elif self.accept_op("["):
                token = self.advance()
                if token.kind == lx.NUMBER and token.text.isdigit():
                    elements.append(int(token.text))
                elif token.kind == lx.STRING:
                    elements.append(token.text)
                else:
                    self.pos -= 1
                    raise self.unexpected("expected a list index or a quoted map key")
                self.expect_op("]")
            else:
                return Path(tuple(elements))

    def _negative(self) -> Node:
        self.advance()
        if self.token.kind != lx.NUMBER:
            raise self.unexpected("expected a number after '-'")
        return Literal({"N": "-" + self.advance().text})

    def _group(self) -> Node:
        self.advance()
        node = self.condition()
        self.expect_op(")")
        return node

    def _list(self) -> Node:
        self.advance()
        return ListExpr(tuple(self.sequence("]")))

    def _bag(self) -> Node:
        self.advance()
        return BagExpr(tuple(self.sequence(">>")))

    def _map(self) -> Node:
        self.advance()
        pairs: list[tuple[str, Node]] = []
        if not self.accept_op("}"):
            while True:
                if self.token.kind not in (lx.STRING, lx.QNAME):
                    raise self.unexpected("map keys are quoted strings")
                key = self.advance().text
                self.expect_op(":")
                pairs.append((key, self.additive()))
                if self.accept_op("}"):
                    break
                self.expect_op(",")
        return MapExpr(tuple(pairs))

    def sequence(self, closer: str) -> list[Node]:
        """Comma-separated conditions/values up to ``closer`` (consumed)."""
        items: list[Node] = []
        if self.accept_op(closer):
            return items
        while True:
            items.append(self.condition())
            if self.accept_op(closer):
                return items
            self.expect_op(",")


_PREDICATES: tuple[tuple[Callable[[Parser], bool], Callable[[Parser, Node], Node]], ...] = (
    (lambda p: p.at_op(*COMPARATORS), Parser._comparison),
    (lambda p: p.at_word("BETWEEN"), Parser._between),
    (lambda p: p.at_word("IN") or (p.at_word("NOT") and p.tokens[p.pos + 1].is_word("IN")), Parser._in),
    (lambda p: p.at_word("IS"), Parser._is),
)
_PRIMARY: dict[str, Callable[[Parser], Node]] = {
    lx.STRING: Parser._string,
    lx.NUMBER: Parser._number,
    lx.PARAM: Parser._param,
    lx.NAME: Parser._word,
    lx.QNAME: Parser._word,
}
_OPENERS: dict[str, Callable[[Parser], Node]] = {
    "(": Parser._group,
    "[": Parser._list,
    "<<": Parser._bag,
    "{": Parser._map,
    "-": Parser._negative,
}
