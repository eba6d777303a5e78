"""Terraform's HCL: files parsed by python-hcl2 (its Lark tree), expressions evaluated where the
configuration decides them.

``read_blocks`` turns a parsed file into ``Block`` objects whose arguments are unevaluated
expression trees; ``evaluate(tree, scope)`` computes one: literals, strings with interpolations,
lists and objects, ``var.*`` (defaults), ``local.*``, iterators, operators, conditionals, ``for``
expressions and the functions in ``FUNCTIONS``. What only ``terraform apply`` knows (a resource's
attribute, a variable without a default) raises ``Unresolved`` naming the expression.
``EVALUATORS`` maps a grammar rule to its evaluator.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import hcl2
from lark import Token, Tree
from lark.exceptions import LarkError

from ..design.files import read_text
from . import terraform_json
from .hcl_functions import FUNCTIONS, as_text


class Unresolved(ValueError):
    """An expression only ``terraform apply`` (or a -var) decides; ``expression`` is its text."""

    def __init__(self, node: Any, reason: str) -> None:
        self.expression = text_of(node)
        self.reason = reason
        super().__init__(f"{self.expression} ({reason})")


def text_of(node: Any) -> str:
    """The source text of an expression tree."""
    if isinstance(node, str):
        return node
    try:
        return " ".join(hcl2.reconstruct(node).split())
    except Exception:  # noqa: BLE001  (a message, never worth a second error)
        return str(node)


_NOT_HCL = (".yaml", ".yml", ".json", ".template")


@dataclass
class Block:
    """A block: ``type`` ("resource"), ``labels``, arguments (expression trees) and nested blocks."""

    type: str
    labels: list[str]
    arguments: dict[str, Tree] = field(default_factory=dict)
    blocks: list[Block] = field(default_factory=list)
    file: str = ""
    comments: list[str] = field(default_factory=list)


def parse_file(path: Path) -> Tree:
    """A ``.tf`` (or ``.tf.json``) file's Lark tree; ``ValueError`` naming the file, line and column
    on bad syntax."""
    if path.name.endswith(".tf.json"):  # Terraform's JSON syntax, read as the native text it stands for
        text = terraform_json.hcl_text(path)
    else:
        try:
            text = read_text(path, encoding="utf-8-sig")  # a BOM is not part of the text
        except UnicodeDecodeError:
            raise ValueError(f"{path}: not a text file (not UTF-8)") from None
    try:
        return hcl2.parses_to_tree(text if text.endswith("\n") else text + "\n")
    except LarkError as error:
        line, column = getattr(error, "line", "?"), getattr(error, "column", "?")
        token = getattr(error, "token", None)
        found = f"unexpected {str(token).strip()!r}" if token is not None else "unexpected text"
        hint = " (a YAML or JSON template: use --from cloudformation)" if path.suffix in _NOT_HCL else ""
        raise ValueError(f"{path}: not valid HCL at line {line}, column {column}: {found}{hint}") from None


def _name(node: Any) -> str:
    """An identifier, keyword or string label as text."""
    if isinstance(node, Token):
        return str(node)
    if node.data == "string":
        return "".join(str(p.children[0]) for p in node.children if isinstance(p, Tree))
    return str(node.children[0])


def read_blocks(body: Tree, file: str = "") -> list[Block]:
    """Top-level (or nested) blocks of a body, with their arguments unevaluated."""
    blocks = []
    for item in body.children:
        if isinstance(item, Tree) and item.data == "block":
            parts = [
                c for c in item.children if not (isinstance(c, Token) or c.data == "new_line_or_comment")
            ]
            *head, inner = parts
            block = Block(_name(head[0]), [_name(label) for label in head[1:]], file=file)
            for child in inner.children:
                if isinstance(child, Tree) and child.data == "attribute":
                    key, _, expression = child.children
                    block.arguments[_name(key)] = expression
            block.blocks = read_blocks(inner, file)
            block.comments = [
                str(token).strip()
                for line in inner.children
                if isinstance(line, Tree) and line.data == "new_line_or_comment"
                for token in line.children
                if str(token).strip()
            ]
            blocks.append(block)
    return blocks


def top_level_attributes(body: Tree) -> dict[str, Tree]:
    """Attributes directly in a body (``locals`` blocks hold theirs this way)."""
    return {
        _name(c.children[0]): c.children[2]
        for c in body.children
        if isinstance(c, Tree) and c.data == "attribute"
    }


class Scope(Mapping[str, Any]):
    """Names an expression can use: ``var``, ``local`` (evaluated on first use) and iterators."""

    def __init__(
        self, variables: dict[str, Any], locals_: dict[str, Tree], names: dict[str, Any] | None = None
    ) -> None:
        self.variables = variables
        self.locals = locals_
        self.names = names or {}
        self._local_values: dict[str, Any] = {}
        self._evaluating: set[str] = set()

    def with_names(self, **names: Any) -> Scope:
        """The same scope with more names bound (an iterator, a for variable)."""
        scope = Scope(self.variables, self.locals, {**self.names, **names})
        scope._local_values = self._local_values
        return scope

    def local(self, name: str) -> Any:
        if name not in self._local_values:
            if name not in self.locals:
                raise Unresolved(f"local.{name}", "no such local value")
            if name in self._evaluating:
                raise Unresolved(f"local.{name}", "local values refer to each other in a cycle")
            self._evaluating.add(name)
            try:
                self._local_values[name] = evaluate(self.locals[name], self)
            finally:
                self._evaluating.discard(name)
        return self._local_values[name]

    def __getitem__(self, name: str) -> Any:
        return self.names[name]

    def __iter__(self):  # noqa: ANN204
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


class _Namespace(Mapping[str, Any]):
    """``var`` or ``local``: attribute access that evaluates lazily and names what is missing."""

    def __init__(self, prefix: str, get: Callable[[str], Any], names: Any) -> None:
        self.prefix, self.get, self.names = prefix, get, names

    def __getitem__(self, name: str) -> Any:
        return self.get(name)

    def __iter__(self):  # noqa: ANN204
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


NO_DEFAULT: Any = object()  # the value of a declared variable without a default


def _variable(scope: Scope, name: str) -> Any:
    if name not in scope.variables:
        raise Unresolved(f"var.{name}", "no such variable")
    value = scope.variables[name]
    if value is NO_DEFAULT:
        raise Unresolved(f"var.{name}", "a variable without a default")
    return value


def subtrees(node: Tree) -> list[Tree]:
    """A node's child trees, comments and line breaks left out."""
    return [c for c in node.children if isinstance(c, Tree) and c.data != "new_line_or_comment"]


def _root(node: Tree, scope: Scope) -> Any:
    name = str(node.children[0])
    if name == "var":
        return _Namespace("var", lambda n: _variable(scope, n), scope.variables)
    if name == "local":
        return _Namespace("local", scope.local, scope.locals)
    if name in scope.names:
        return scope.names[name]
    raise Unresolved(node, _UNKNOWN_ROOTS.get(name, "a resource attribute, known only after terraform apply"))


# Names an expression can start with that only terraform plan or apply decides.
_UNKNOWN_ROOTS = {
    "data": "a data source, read by terraform plan",
    "module": "a module output, known only after terraform apply",
    "terraform": "the workspace, chosen when terraform runs",
    "path": "a path on the machine that runs terraform",
    "each": "each.* outside a for_each resource",
    "count": "count.* outside a count resource",
    "self": "self.* outside a provisioner",
}


def _unescape(text: str) -> str:
    return json.loads('"' + text + '"', strict=False)  # HCL's escapes are JSON's


def _string(node: Tree, scope: Scope) -> Any:
    parts = [p.children[0] for p in node.children if isinstance(p, Tree)]
    if len(parts) == 1 and isinstance(parts[0], Tree) and parts[0].data == "interpolation":
        return evaluate(subtrees(parts[0])[0], scope)  # "${x}" keeps x's type
    out = []
    for part in parts:
        if isinstance(part, Token):
            text = str(part)
            out.append(
                text[1:] if part.type in ("ESCAPED_INTERPOLATION", "ESCAPED_DIRECTIVE") else _unescape(text)
            )
        elif part.data == "interpolation":
            out.append(as_text(evaluate(subtrees(part)[0], scope)))
        else:
            raise Unresolved(node, "template directives are not evaluated")
    return "".join(out)


def _heredoc(node: Tree, _: Scope) -> str:
    text = str(node.children[0])
    lines = text.split("\n")[1:-2]  # drop <<EOT and the closing marker
    if node.data == "heredoc_template_trim":
        indent = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
        lines = [line[indent:] for line in lines]
    body = "\n".join(lines) + "\n"
    if "${" in body.replace("$${", ""):
        raise Unresolved(node, "interpolations in heredocs are not evaluated")
    return body.replace("$${", "${")


def _object(node: Tree, scope: Scope) -> dict[str, Any]:
    out = {}
    for element in subtrees(node):
        key_node, value_node = subtrees(element)
        key_expression = subtrees(key_node)[0] if subtrees(key_node) else key_node
        inner = subtrees(key_expression)
        bare = key_expression.data == "expr_term" and len(inner) == 1 and inner[0].data == "identifier"
        key = str(inner[0].children[0]) if bare else as_text(evaluate(key_expression, scope))
        out[key] = evaluate(value_node, scope)
    return out


def _get_attr(node: Tree, scope: Scope) -> Any:
    base, attribute = subtrees(node)
    value = evaluate(base, scope)
    name = _name(subtrees(attribute)[0])
    try:
        return value[name]
    except Unresolved:
        raise
    except (KeyError, TypeError, IndexError):
        raise Unresolved(node, f"no attribute {name}") from None


def _index(node: Tree, scope: Scope) -> Any:
    base, index = subtrees(node)
    value = evaluate(base, scope)
    key = evaluate(subtrees(index)[0], scope) if index.data == "braces_index" else int(index.children[1])
    try:
        return value[int(key) if isinstance(value, list) else key]
    except (KeyError, TypeError, IndexError, ValueError):
        raise Unresolved(node, f"no element {key!r}") from None


_OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "%": operator.mod,
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    ">": operator.gt,
    "<=": operator.le,
    ">=": operator.ge,
    "&&": lambda a, b: a and b,
    "||": lambda a, b: a or b,
}


def _binary(node: Tree, scope: Scope) -> Any:
    left, term = subtrees(node)
    symbol_node, right = subtrees(term)
    result = _OPERATORS[str(symbol_node.children[0]).strip()](evaluate(left, scope), evaluate(right, scope))
    return int(result) if isinstance(result, float) and result.is_integer() else result


def _unary(node: Tree, scope: Scope) -> Any:
    value = evaluate(subtrees(node)[0], scope)
    return -value if str(node.children[0]) == "-" else not value


def _conditional(node: Tree, scope: Scope) -> Any:
    condition, when_true, when_false = subtrees(node)
    return evaluate(when_true if evaluate(condition, scope) else when_false, scope)


def _function(node: Tree, scope: Scope) -> Any:
    name_node, *rest = subtrees(node)
    name = str(name_node.children[0])
    function = FUNCTIONS.get(name)
    if function is None:
        raise Unresolved(node, f"the function {name} is not evaluated at import")
    arguments = [evaluate(a, scope) for a in subtrees(rest[0])] if rest else []
    return function(*arguments)


def _for(node: Tree, scope: Scope) -> Any:
    intro, *parts = subtrees(node)
    names = [str(i.children[0]) for i in subtrees(intro) if i.data == "identifier"]
    collection = evaluate(subtrees(intro)[-1], scope)
    condition = parts.pop() if parts and parts[-1].data == "for_cond" else None
    pairs = collection.items() if isinstance(collection, dict) else enumerate(collection)
    tuples, objects = [], {}
    for key, value in pairs:
        inner = scope.with_names(**dict(zip(names, [key, value] if len(names) == 2 else [value])))
        if condition is not None and not evaluate(subtrees(condition)[0], inner):
            continue
        if node.data == "for_tuple_expr":
            tuples.append(evaluate(parts[0], inner))
        else:
            objects[as_text(evaluate(parts[0], inner))] = evaluate(parts[1], inner)
    return tuples if node.data == "for_tuple_expr" else objects


def _only_child(node: Tree, scope: Scope) -> Any:
    return evaluate(subtrees(node)[0], scope)


def _number(node: Tree, _: Scope) -> Any:
    text = str(node.children[0])
    return int(text) if node.data == "int_lit" else float(text)


def _unsupported(reason: str) -> Callable[[Tree, Scope], Any]:
    def evaluator(node: Tree, _: Scope) -> Any:
        raise Unresolved(node, reason)

    return evaluator


EVALUATORS: dict[str, Callable[[Tree, Scope], Any]] = {
    "expr_term": _only_child,
    "int_lit": _number,
    "float_lit": _number,
    "literal_value": lambda node, _: {"true": True, "false": False, "null": None}[str(node.children[0])],
    "string": _string,
    "heredoc_template": _heredoc,
    "heredoc_template_trim": _heredoc,
    "tuple": lambda node, scope: [evaluate(item, scope) for item in subtrees(node)],
    "object": _object,
    "identifier": _root,
    "get_attr_expr_term": _get_attr,
    "index_expr_term": _index,
    "binary_op": _binary,
    "unary_op": _unary,
    "conditional": _conditional,
    "function_call": _function,
    "for_tuple_expr": _for,
    "for_object_expr": _for,
    "attr_splat_expr_term": _unsupported("splat expressions are not evaluated at import"),
    "full_splat_expr_term": _unsupported("splat expressions are not evaluated at import"),
    "template_string": _unsupported("template strings are not evaluated at import"),
}


def evaluate(node: Any, scope: Scope) -> Any:
    """The value of an expression tree; ``Unresolved`` when only deploy time decides it."""
    if not isinstance(node, Tree):
        return node
    evaluator = EVALUATORS.get(node.data)
    if evaluator is None:
        raise Unresolved(node, f"{node.data} expressions are not evaluated at import")
    try:
        return evaluator(node, scope)
    except Unresolved:
        raise
    except (TypeError, ValueError, KeyError, IndexError, ZeroDivisionError, StopIteration) as error:
        raise Unresolved(node, str(error) or type(error).__name__) from None
