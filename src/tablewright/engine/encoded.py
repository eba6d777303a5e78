"""Item lists kept in their JSON wire form, so large results cost no per-item Python work.

The engine stores every item as the orjson bytes of its DynamoDB JSON. A Query or Scan that neither
filters nor projects returns those bytes as they are, joined into one ``[item,item,...]`` array
(:class:`EncodedItems`): the HTTP server writes them into its response without decoding them, and
whoever needs Python structures decodes the whole array in one ``orjson.loads`` call while the
garbage collector is paused (:func:`decoded`), rather than having it walk the freshly built items
again and again as they are made.

``Engine.handle`` returns plain Python structures (it calls :func:`decoded`); only a caller that asks
for ``encoded=True`` (the HTTP server, the in-process boto3 client) sees :class:`EncodedItems`, and
GetItem's unprojected ``Item`` as an :class:`EncodedItem` (the stored bytes, likewise).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson

# Members of a response that may hold an item list in its wire form.
ENCODED_MEMBERS = ("Items",)


class EncodedItems:
    """A list of items as the JSON bytes of ``[item,item,...]``; ``count`` is how many."""

    __slots__ = ("json", "count")

    def __init__(self, items: list[bytes]) -> None:
        self.json = b"[" + b",".join(items) + b"]"
        self.count = len(items)

    def decode(self) -> list[dict[str, Any]]:
        """The items as Python structures (the garbage collector paused while they are built)."""
        with gc_paused():
            return orjson.loads(self.json)

    def __len__(self) -> int:
        return self.count

    def __repr__(self) -> str:
        return f"EncodedItems({self.count} items, {len(self.json)} bytes)"


class EncodedItem:
    """One item as the JSON bytes it is stored as (GetItem's ``Item`` when nothing is projected)."""

    __slots__ = ("json",)

    def __init__(self, json: bytes) -> None:
        self.json = json

    def decode(self) -> dict[str, Any]:
        """The item as Python structures."""
        return orjson.loads(self.json)

    def __repr__(self) -> str:
        return f"EncodedItem({len(self.json)} bytes)"


_pause = threading.Lock()
_pauses = 0
_resume = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """Run a block with the cyclic garbage collector off (it is back on after, if it was on before).

    Building thousands of item dicts triggers a collection every few hundred allocations, each of
    which walks the items built so far: half the cost of a large result. Item dicts hold no cycles,
    so nothing is lost by collecting later. Nested and concurrent pauses (threads) share one pause:
    the collector comes back when the last one ends.
    """
    global _pauses, _resume
    with _pause:
        if _pauses == 0:
            _resume = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _pause:
            _pauses -= 1
            if _pauses == 0 and _resume:
                gc.enable()


def decoded(response: dict[str, Any]) -> dict[str, Any]:
    """``response`` with every :class:`EncodedItems` member replaced by its list of item dicts, and
    an :class:`EncodedItem` ``Item`` by its dict."""
    for member in ENCODED_MEMBERS:
        value = response.get(member)
        if type(value) is EncodedItems:
            response[member] = value.decode()
    value = response.get("Item")
    if type(value) is EncodedItem:
        response["Item"] = value.decode()
    return response


def _fragment(value: Any) -> orjson.Fragment:
    if type(value) is EncodedItems or type(value) is EncodedItem:
        return orjson.Fragment(value.json)
    raise TypeError(f"Type is not JSON serializable: {type(value).__name__}")


def dumps(response: dict[str, Any]) -> bytes:
    """A response as JSON bytes, :class:`EncodedItems` and :class:`EncodedItem` written as they are
    (never decoded)."""
    return orjson.dumps(response, default=_fragment)
