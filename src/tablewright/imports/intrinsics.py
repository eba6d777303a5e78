"""CloudFormation intrinsic functions, resolved where the template itself decides the value.

``resolve(value, template)`` returns ``value`` with every intrinsic the template decides replaced by
its result: ``Ref`` to a parameter with a default, ``Fn::Sub`` over template-local values,
``Fn::If`` on conditions decidable from defaults, ``Fn::FindInMap``, ``Fn::Join``, ``Fn::Select``,
``Fn::Split``, the condition functions. A value decided only at deploy time (``Fn::GetAtt``, a
``Ref`` to a resource or to ``AWS::Region``, ``Fn::ImportValue``, a parameter without a default)
raises ``Undecidable`` naming the expression. ``FUNCTIONS`` is the dispatch table.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from typing import Any


class Undecidable(ValueError):
    """A value the template leaves to deploy time; ``expression`` is its source form."""

    def __init__(self, expression: Any, reason: str) -> None:
        self.expression = describe(expression)
        super().__init__(f"{self.expression} ({reason})")


class _NoValue:
    """``Ref: AWS::NoValue``: the property or list item is removed."""


NO_VALUE = _NoValue()


def describe(expression: Any) -> str:
    """A short, readable form of an expression: ``!Sub 'orders-${Env}'``, ``!Ref Env``."""
    if isinstance(expression, dict) and len(expression) == 1:
        ((name, args),) = expression.items()
        if name == "Serverless::Variable":
            return str(args[0])
        short = "!" + (name.removeprefix("Fn::") if name.startswith("Fn::") else name)
        if name in FUNCTIONS or name.startswith("Fn::"):
            if isinstance(args, str):
                return f"{short} {args!r}" if name == "Fn::Sub" else f"{short} {args}"
            return f"{short} {json.dumps(args, default=str)}"
    return json.dumps(expression, default=str) if not isinstance(expression, str) else expression


class Template:
    """What a template decides by itself: parameter defaults, mappings, conditions, resource ids."""

    def __init__(self, body: dict[str, Any]) -> None:
        self.parameters: dict[str, Any] = _mapping(body.get("Parameters"))
        self.mappings: dict[str, Any] = _mapping(body.get("Mappings"))
        self.conditions: dict[str, Any] = _mapping(body.get("Conditions"))
        self.resources = set(_mapping(body.get("Resources")))
        self._deciding: set[str] = set()  # conditions being evaluated, to catch cycles

    def parameter(self, name: str) -> Any:
        spec = _mapping(self.parameters.get(name))
        if "Default" not in spec:
            raise Undecidable({"Ref": name}, f"parameter {name} has no default")
        default = spec["Default"]
        kind = str(spec.get("Type", "String"))
        if kind == "Number":
            try:
                return _number(default)
            except ValueError:
                raise ValueError(
                    f"parameter {name}: its Number default {default!r} is not a number"
                ) from None
        if kind == "CommaDelimitedList" or kind.startswith("List<"):
            return [s.strip() for s in str(default).split(",")] if isinstance(default, str) else default
        return default

    def condition(self, name: str) -> bool:
        if name not in self.conditions:
            raise ValueError(f"condition {name!r} is not declared under Conditions")
        if name in self._deciding:
            raise ValueError(f"condition {name!r} depends on itself")
        self._deciding.add(name)
        try:
            return bool(resolve(self.conditions[name], self))
        finally:
            self._deciding.discard(name)


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _number(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return float(value)
    return value


_PSEUDO_PARAMETERS = {
    "AWS::AccountId",
    "AWS::NotificationARNs",
    "AWS::Partition",
    "AWS::Region",
    "AWS::StackId",
    "AWS::StackName",
    "AWS::URLSuffix",
}


def _ref(args: Any, template: Template) -> Any:
    name = str(args)
    if name == "AWS::NoValue":
        return NO_VALUE
    if name in template.parameters:
        return template.parameter(name)
    if name in _PSEUDO_PARAMETERS:
        raise Undecidable({"Ref": name}, "decided at deploy time")
    if name in template.resources:
        raise Undecidable({"Ref": name}, f"the physical id of resource {name}, decided at deploy time")
    raise ValueError(f"!Ref {name}: no parameter or resource of that name")


_SUB_VARIABLE = re.compile(r"\$\{(!?)([^}]*)\}")


def _sub(args: Any, template: Template) -> str:
    text, variables = (args, {}) if isinstance(args, str) else (args[0], args[1] if len(args) > 1 else {})
    values = {k: resolve(v, template) for k, v in _mapping(variables).items()}

    def value(match: re.Match[str]) -> str:
        if match.group(1):  # ${!Literal} is written as ${Literal}
            return "${" + match.group(2) + "}"
        name = match.group(2).strip()
        if name in values:
            return str(values[name])
        if "." in name:  # ${Resource.Attribute} is a GetAtt
            raise Undecidable({"Fn::Sub": text}, f"${{{name}}} is an attribute decided at deploy time")
        try:
            return _scalar(_ref(name, template))
        except Undecidable as error:
            raise Undecidable({"Fn::Sub": text}, f"${{{name}}}: {error}") from None

    return _SUB_VARIABLE.sub(value, str(text))


def _scalar(value: Any) -> str:
    return ",".join(map(str, value)) if isinstance(value, list) else str(value)


def _if(args: Any, template: Template) -> Any:
    name, when_true, when_false = args
    try:
        chosen = when_true if template.condition(str(name)) else when_false
    except Undecidable as error:
        raise Undecidable({"Fn::If": args}, f"condition {name}: {error}") from None
    return resolve(chosen, template)


def _find_in_map(args: Any, template: Template) -> Any:
    name, first, second = (resolve(a, template) for a in args[:3])
    try:
        return template.mappings[name][first][second]
    except (KeyError, TypeError):
        if len(args) > 3 and isinstance(args[3], dict) and "DefaultValue" in args[3]:
            return resolve(args[3]["DefaultValue"], template)
        raise ValueError(f"!FindInMap {[name, first, second]}: no such entry under Mappings") from None


def _deploy_time(name: str) -> Callable[[Any, Template], Any]:
    def function(args: Any, _: Template) -> Any:
        raise Undecidable({name: args}, "decided at deploy time")

    return function


def _serverless_variable(args: Any, _: Template) -> Any:
    variable, reason = args
    raise Undecidable(variable, reason)


def _resolved(function: Callable[..., Any]) -> Callable[[Any, Template], Any]:
    """A function of already resolved arguments."""

    def call(args: Any, template: Template) -> Any:
        values = resolve(args, template)
        return function(*values) if isinstance(values, list) else function(values)

    return call


FUNCTIONS: dict[str, Callable[[Any, Template], Any]] = {
    "Ref": _ref,
    "Fn::Sub": _sub,
    "Fn::If": _if,
    "Fn::FindInMap": _find_in_map,
    "Condition": lambda name, template: template.condition(str(name)),
    "Fn::Join": _resolved(lambda sep, items: str(sep).join(_scalar(i) for i in items)),
    "Fn::Select": _resolved(lambda index, items: items[int(index)]),
    "Fn::Split": _resolved(lambda sep, text: str(text).split(str(sep))),
    "Fn::Equals": _resolved(lambda a, b: str(a) == str(b)),
    "Fn::Not": _resolved(lambda a: not a),
    "Fn::And": _resolved(lambda *conditions: all(conditions)),
    "Fn::Or": _resolved(lambda *conditions: any(conditions)),
    "Fn::Length": lambda args, template: len(resolve(args, template)),
    "Fn::ToJsonString": lambda args, template: json.dumps(resolve(args, template)),
    "Fn::GetAtt": _deploy_time("Fn::GetAtt"),
    "Fn::ImportValue": _deploy_time("Fn::ImportValue"),
    "Fn::GetAZs": _deploy_time("Fn::GetAZs"),
    "Fn::Cidr": _deploy_time("Fn::Cidr"),
    "Fn::Base64": _resolved(lambda text: base64.b64encode(str(text).encode()).decode()),
    # A Serverless Framework variable the file does not decide: [variable, why] (see serverless.py).
    "Serverless::Variable": _serverless_variable,
}


def resolve(value: Any, template: Template) -> Any:
    """``value`` with every intrinsic function evaluated; ``Undecidable`` for deploy-time values."""
    if isinstance(value, dict):
        if len(value) == 1:
            ((name, args),) = value.items()
            function = FUNCTIONS.get(name)
            if function is not None and not (name == "Condition" and not isinstance(args, str)):
                return function(args, template)
            if function is None and name.startswith("Fn::"):  # Fn::Transform, a macro's own...
                raise Undecidable(value, f"{name} is not evaluated at import")
        resolved = {k: resolve(v, template) for k, v in value.items()}
        return {k: v for k, v in resolved.items() if v is not NO_VALUE}
    if isinstance(value, list):
        return [v for v in (resolve(item, template) for item in value) if v is not NO_VALUE]
    return value
