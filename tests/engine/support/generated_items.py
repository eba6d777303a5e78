"""Generated items of every attribute type, and a table with indexes to read them through.

Shared by the differential tests of the results' fast paths (pass-through Query/Scan, the
in-process client's item decoding): strings of any Unicode (empty too), odd spellings of numbers,
binary of any bytes, the three sets, nested maps and lists, NULL and BOOL, and attribute names that
look like the type members ``B`` and ``BS``.
"""

from __future__ import annotations

import base64
from typing import Any

from hypothesis import strategies as st

TABLE = "things"
NEVER = "never_stored"  # an attribute name no generated item has: its absence is an always-true filter

_names = st.one_of(
    st.sampled_from(["B", "BS", "M", "L", "S", "N", "NULL", "données", "🔑", "a b"]),
    st.text(min_size=1, max_size=6).filter(lambda name: name not in ("pk", "sk", "l", "g", NEVER)),
)
_numbers = st.one_of(
    st.integers(-(10**30), 10**30).map(str),
    # Within DynamoDB's 38 significant digits (25 + 5 places): these items are meant to be stored.
    st.decimals(min_value=-(10**25), max_value=10**25, places=5).map(lambda d: format(d, "f")),
    st.sampled_from(["1E2", "0.000", "-0", "5.0", "00012", "1e-5", "-1.5E+10", "  7 ".strip()]),
)
_binary = st.binary(max_size=24).map(lambda data: base64.b64encode(data).decode())
_scalars = st.one_of(
    st.builds(lambda s: {"S": s}, st.text(max_size=12)),
    st.builds(lambda n: {"N": n}, _numbers),
    st.builds(lambda b: {"B": b}, _binary),
    st.builds(lambda b: {"BOOL": b}, st.booleans()),
    st.just({"NULL": True}),
    st.builds(lambda s: {"SS": sorted(s)}, st.sets(st.text(min_size=1, max_size=5), min_size=1, max_size=4)),
    st.builds(
        lambda s: {"NS": [str(n) for n in sorted(s)]},
        st.sets(st.integers(-(10**12), 10**12), min_size=1, max_size=4),
    ),
    st.builds(
        lambda s: {"BS": [base64.b64encode(b).decode() for b in sorted(s)]},
        st.sets(st.binary(min_size=1, max_size=8), min_size=1, max_size=4),
    ),
)
values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.builds(lambda m: {"M": m}, st.dictionaries(_names, inner, max_size=4)),
        st.builds(lambda items: {"L": items}, st.lists(inner, max_size=4)),
    ),
    max_leaves=10,
)
attributes = st.dictionaries(_names, values, max_size=6)
# The index attributes: present on some items only (sparse indexes), few distinct values.
_index_values = st.one_of(st.none(), st.sampled_from(["x", "y", "z"]))
items = st.lists(st.tuples(attributes, _index_values, _index_values), min_size=0, max_size=12)


def with_keys(generated: list[tuple[dict, str | None, str | None]], partitions: int = 2) -> list[dict]:
    """Items of ``TABLE``: keys ``pk`` (one of ``partitions``) and ``sk`` added, ``l``/``g`` when drawn."""
    out = []
    for number, (extra, local, global_) in enumerate(generated):
        item: dict[str, Any] = dict(extra)
        item["pk"] = {"S": f"p{number % partitions}"}
        item["sk"] = {"N": str(number)}
        if local is not None:
            item["l"] = {"S": local}
        if global_ is not None:
            item["g"] = {"S": global_}
        out.append(item)
    return out


def _index(name: str, hash_key: str, range_key: str, projection: str) -> dict:
    return {
        "IndexName": name,
        "KeySchema": [
            {"AttributeName": hash_key, "KeyType": "HASH"},
            {"AttributeName": range_key, "KeyType": "RANGE"},
        ],
        "Projection": {"ProjectionType": projection},
    }


DEFINITION = {
    "TableName": TABLE,
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
    "AttributeDefinitions": [
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "sk", "AttributeType": "N"},
        {"AttributeName": "l", "AttributeType": "S"},
        {"AttributeName": "g", "AttributeType": "S"},
    ],
    "LocalSecondaryIndexes": [
        _index("by_l", "pk", "l", "ALL"),
        _index("by_l_keys", "pk", "l", "KEYS_ONLY"),
    ],
    "GlobalSecondaryIndexes": [_index("by_g", "g", "sk", "ALL"), _index("by_g_keys", "g", "sk", "KEYS_ONLY")],
    "BillingMode": "PAY_PER_REQUEST",
}


def same(left: Any, right: Any) -> bool:
    """Equal, and of the same type at every depth (``True == 1`` and ``b"" == ""`` do not pass)."""
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        return list(left) == list(right) and all(same(left[key], right[key]) for key in left)
    if isinstance(left, list):
        return len(left) == len(right) and all(same(a, b) for a, b in zip(left, right, strict=True))
    return left == right
