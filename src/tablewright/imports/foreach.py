"""``Fn::ForEach`` (the AWS::LanguageExtensions transform): loops in ``Resources`` expanded.

``Fn::ForEach::Name: [Identifier, Collection, {OutputKey: OutputValue}]`` repeats the fragment for
each item of the collection; ``${Identifier}`` (and ``&{Identifier}``, alphanumerics only) in keys,
``${Identifier}`` in strings and ``Ref: Identifier`` in values become the item. Loops nest.
"""

from __future__ import annotations

import re
from typing import Any

from .intrinsics import Template, resolve

PREFIX = "Fn::ForEach::"


def _in_key(key: str, identifier: str, item: str) -> str:
    key = key.replace("${" + identifier + "}", item)
    return key.replace("&{" + identifier + "}", re.sub(r"[^A-Za-z0-9]", "", item))


def substitute(fragment: Any, identifier: str, item: str) -> Any:
    """``fragment`` with the loop variable replaced by ``item``."""
    if isinstance(fragment, dict):
        if fragment == {"Ref": identifier}:
            return item
        return {_in_key(k, identifier, item): substitute(v, identifier, item) for k, v in fragment.items()}
    if isinstance(fragment, list):
        return [substitute(v, identifier, item) for v in fragment]
    if isinstance(fragment, str):
        return fragment.replace("${" + identifier + "}", item)
    return fragment


def expand(section: dict[str, Any], template: Template) -> dict[str, Any]:
    """A ``Resources`` mapping with every ``Fn::ForEach`` loop replaced by its output."""
    out: dict[str, Any] = {}
    for key, value in section.items():
        if not key.startswith(PREFIX):
            out[key] = value
            continue
        if not (isinstance(value, list) and len(value) == 3 and isinstance(value[2], dict)):
            raise ValueError(f"{key}: expected [Identifier, Collection, {{OutputKey: OutputValue}}]")
        identifier, collection, fragment = value
        items = resolve(collection, template)
        if not isinstance(items, list):
            raise ValueError(f"{key}: the collection is not a list: {items!r}")
        for item in items:
            out.update(expand(substitute(fragment, str(identifier), str(item)), template))
    return out
