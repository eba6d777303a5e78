"""Every rule: a minimal change to the sound base design that triggers it, and a near-identical one that
does not. Each case asserts on its own rule only."""

from __future__ import annotations

from typing import Any

import pytest

from tablewright.lint import RULES, lint_text
from tablewright.lint.registry import SEVERITIES

from .designs import design
from .test_model_rules import MODEL_ONLY
from .test_review_rules import REVIEW_CASES

STATUS_INDEX = {
    "tables": {
        "orders": {
            "indexes": {
                "GSI2": {
                    "kind": "global",
                    "partition_key": {"name": "GSI2PK", "type": "S"},
                    "sort_key": {"name": "GSI2SK", "type": "S"},
                }
            }
        }
    },
    "entities": {"Order": {"keys": {"GSI2": {"pk": "{status}", "sk": "{created_at}"}}}},
    "patterns": {
        "orders_by_status": {
            "params": {"status": "string"},
            "returns": "Order",
            "means": {"where": "status = :status", "limit": 50},
            "served": {"op": "query", "index": "GSI2", "forward": False},
        }
    },
}


def _with(*changes: dict[str, Any]) -> dict[str, Any]:
    from .designs import merge

    result: dict[str, Any] = {}
    for change in changes:
        result = merge(result, change)
    return result


def _writes(rate: str) -> dict[str, Any]:
    return {"volumes": {"entities": {"Order": {"items": 100000, "writes": rate}}}}


def _index(
    name: str, pk: str, sk: str | None = None, kind: str = "global", projection: object = "ALL"
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "kind": kind,
        "partition_key": {"name": pk, "type": "S"},
        "projection": projection,
    }
    if sk:
        spec["sort_key"] = {"name": sk, "type": "S"}
    return {"tables": {"orders": {"indexes": {name: spec}}}}


def _pattern(name: str, **spec: Any) -> dict[str, Any]:
    body = {
        "params": {"customer_id": "string"},
        "returns": "Order",
        "means": {"where": "customer_id = :customer_id"},
    }
    body.update(spec)
    return {"patterns": {name: body}}


def _order_attr(name: str, spec: object) -> dict[str, Any]:
    return {"entities": {"Order": {"attributes": {name: spec}}}}


TTL_TABLE = {"tables": {"orders": {"ttl": "expires_at"}}}
TTL_COMPUTED = _order_attr(
    "expires_at", {"type": "number", "computed": {"ttl": {"from": "created_at", "retention": "90d"}}}
)
DEVICE = {
    "tables": {"devices": {"partition_key": {"name": "sc_id", "type": "S"}}},
    "entities": {
        "Device": {
            "table": "devices",
            "attributes": {
                "wireless_device_id": {"type": "string", "required": True, "format": "uuid"},
                "sc_id": {
                    "type": "string",
                    "computed": {"template": "SC-{wireless_device_id|sha256:4|upper}"},
                },
            },
        }
    },
    "patterns": {
        "device": {
            "params": {"sc_id": "string"},
            "returns": "Device",
            "means": {"where": "sc_id = :sc_id"},
            "served": {"op": "get"},
        }
    },
    "volumes": {"entities": {"Device": {"items": 10000, "writes": "1/min"}}},
}
LSI = _with(
    _index("LSI1", "PK", "LSI1SK", kind="local"),
    {"entities": {"Order": {"keys": {"LSI1": {"pk": "CUSTOMER#{customer_id}", "sk": "{created_at}"}}}}},
    _pattern(
        "orders_by_date",
        served={"op": "query", "index": "LSI1"},
        means={"where": "customer_id = :customer_id", "limit": 10},
    ),
)
SCAN = _pattern("all_orders", params={}, means={"where": "status = 'new'"}, served={"op": "scan"})
IDEMPOTENT = {
    "entities": {"Order": {"idempotency_key": "order_id"}},
}
DAY_KEY = {"entities": {"Order": {"keys": {"GSI2": {"pk": "DAY#{created_at|date}"}}}}}
DAY_PARAM = {"patterns": {"orders_by_status": {"params": {"created_at": "string", "customer_id": "string"}}}}
BY_CUSTOMER = {
    "patterns": {
        "order_by_id": {
            "params": {"customer_id": "string", "order_id": None},
            "means": {"where": "customer_id = :customer_id"},
        }
    }
}
LOCAL_TIME = _order_attr(
    "local_time",
    {
        "type": "string",
        "computed": {"template": "{created_at|tz:America/Denver|format:%Y-%m-%d %H:%M:%S.%L}"},
    },
)
NO_LIMIT = _with(STATUS_INDEX, {"patterns": {"orders_by_status": {"means": {"limit": None}}}})
NOTE_IN_SK = {"entities": {"Order": {"keys": {"table": {"sk": "ORDER#{order_id}#{note}"}}}}}
CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("TW101", _with(STATUS_INDEX, _writes("200/s")), _with(STATUS_INDEX, _writes("1/s"))),
    # A date bucket under load: 200 writes/s x peak 3 on one day's key (60% of 1,000 WCU);
    # at 1/s (3 WCU/s) the same key is sound (tests/lint/test_false_alarms.py).
    (
        "TW102",
        _with(STATUS_INDEX, DAY_PARAM, DAY_KEY, _writes("200/s")),
        _with(STATUS_INDEX, DAY_PARAM, DAY_KEY, _writes("1/s")),
    ),
    # No declared write rate: the load cannot be judged, so the date bucket is reported.
    (
        "TW102",
        _with(STATUS_INDEX, DAY_PARAM, DAY_KEY, {"volumes": {"entities": {"Order": None}}}),
        _with(
            STATUS_INDEX,
            DAY_PARAM,
            {"entities": {"Order": {"keys": {"GSI2": {"pk": "{status}#{customer_id}#{created_at|date}"}}}}},
            {"volumes": {"entities": {"Order": None}}},
        ),
    ),
    ("TW103", _with(STATUS_INDEX, _writes("2000/s")), _with(STATUS_INDEX, _writes("1000/s"))),
    (
        "TW104",
        _with(
            LSI,
            {
                "volumes": {
                    "entities": {"Order": {"items": 100000, "growth_per_month": 10000000, "item_size": 4000}}
                }
            },
        ),
        _with(LSI, TTL_TABLE, TTL_COMPUTED),
    ),
    (
        "TW201",
        _with(
            BY_CUSTOMER,
            {
                "entities": {
                    "Order": {"keys": {"GSI1": {"pk": "CUSTOMER#{customer_id}", "sk": "ORDER#{order_id}"}}}
                }
            },
        ),
        _with(
            BY_CUSTOMER,
            {
                "entities": {
                    "Order": {"keys": {"GSI1": {"pk": "CUSTOMER#{customer_id}", "sk": "{created_at}"}}}
                }
            },
        ),
    ),
    (
        "TW202",
        _pattern(
            "order_id_taken",
            description="Uniqueness check before insert.",
            served={"op": "query", "index": "GSI1"},
            params={"order_id": "string"},
            means={"where": "order_id = :order_id"},
        ),
        _pattern(
            "order_id_lookup",
            description="Look an order up by id.",
            served={"op": "query", "index": "GSI1"},
            params={"order_id": "string"},
            means={"where": "order_id = :order_id"},
        ),
    ),
    (
        "TW202",
        _pattern(
            "order_id_taken",
            description="Uniqueness check before insert.",
            served={"op": "query", "index": "GSI1"},
            params={"order_id": "string"},
            means={"where": "order_id = :order_id"},
        ),
        _with(
            {"entities": {"Order": {"unique": [["order_id"]]}}},  # markers enforce it; the GSI is a lookup
            _pattern(
                "order_id_taken",
                description="Uniqueness check before insert.",
                served={"op": "query", "index": "GSI1"},
                params={"order_id": "string"},
                means={"where": "order_id = :order_id"},
            ),
        ),
    ),
    ("TW203", {"patterns": {"order_by_id": None}, "volumes": {"patterns": {"order_by_id": None}}}, {}),
    (
        "TW204",
        {
            "volumes": {
                "entities": {"Order": {"items": 100000, "writes": "100/s", "item_size": 4000}},
                "patterns": {"order_by_id": {"reads": "1/day"}},
            }
        },
        {
            "volumes": {
                "entities": {"Order": {"items": 100000, "writes": "100/s", "item_size": 4000}},
                "patterns": {"order_by_id": {"reads": "1000/s"}},
            }
        },
    ),
    (
        "TW206",
        {"patterns": {"order_by_id": {"served": {"consistent": True}}}},
        {"patterns": {"orders_of_customer": {"served": {"consistent": True}}}},
    ),
    (
        "TW301",
        _with(SCAN, {"volumes": {"patterns": {"all_orders": {"reads": "1/min"}}}}),
        _with(SCAN, {"volumes": {"patterns": {"all_orders": {"reads": "1/day"}}}}),
    ),
    (
        "TW302",
        {"patterns": {"orders_of_customer": {"served": {"filter": "status = 'shipped'"}}}},
        {"patterns": {"orders_of_customer": {"served": {"filter": "status <> 'shipped'"}}}},
    ),
    (
        "TW303",
        {"patterns": {"orders_of_customer": {"served": {"filter": "status <> 'shipped'", "page_size": 20}}}},
        {"patterns": {"orders_of_customer": {"served": {"filter": "status <> 'shipped'"}}}},
    ),
    (
        "TW304",
        _with(STATUS_INDEX, {"patterns": {"orders_by_status": {"means": {"limit": None}}}}),
        STATUS_INDEX,
    ),
    (
        "TW305",
        _pattern("one_order", served={"op": "get"}),
        _pattern("one_order", params={"customer_id": "string", "order_id": "string"}, served={"op": "get"}),
    ),
    (
        "TW306",
        {"patterns": {"orders_of_customer": {"means": {"order": "total desc"}}}},
        {"patterns": {"orders_of_customer": {"means": {"order": "order_id asc"}}}},
    ),
    (
        "TW401",
        _order_attr(
            "lines", {"type": "list", "max_length": 1000, "items": {"type": "string", "max_length": 1000}}
        ),
        _order_attr(
            "lines", {"type": "list", "max_length": 100, "items": {"type": "string", "max_length": 1000}}
        ),
    ),
    (
        "TW402",
        _with(IDEMPOTENT, {"lint": {"batches": {"Order": 100}}}),
        _with(IDEMPOTENT, {"lint": {"batches": {"Order": 99}}}),
    ),
    # The sensor API: 100 readings + 1 processed-batch marker in one TransactWriteItems.
    (
        "TW402",
        {"lint": {"batches": {"Order": {"items": 100, "extra_actions": 1}}}},
        {"lint": {"batches": {"Order": {"items": 99, "extra_actions": 1}}}},
    ),
    (
        "TW403",
        _pattern(
            "orders",
            params={"ids": {"type": "list", "max_length": 200}},
            means={},
            served={"op": "batch_get", "keys": ":ids"},
        ),
        _pattern(
            "orders",
            params={"ids": {"type": "list", "max_length": 100}},
            means={},
            served={"op": "batch_get", "keys": ":ids"},
        ),
    ),
    (
        "TW405",
        _with(NOTE_IN_SK, _order_attr("note", {"type": "string", "max_length": 1100})),
        _with(NOTE_IN_SK, _order_attr("note", {"type": "string", "max_length": 900})),
    ),
    (
        "TW501",
        _with(TTL_TABLE, _order_attr("expires_at", {"type": "number", "format": "epoch_ms"})),
        _with(TTL_TABLE, TTL_COMPUTED),
    ),
    (
        "TW502",
        _with(TTL_TABLE, TTL_COMPUTED),
        _with(
            TTL_TABLE,
            TTL_COMPUTED,
            {
                "patterns": {
                    n: {"params": {"now": "number"}, "served": {"filter": "expires_at > :now"}}
                    for n in ("orders_of_customer", "order_by_id")
                }
            },
        ),
    ),
    (
        "TW601",
        {
            "entities": {
                "Order": {
                    "keys": {"table": {"sk": "{created_at|tz:America/Denver|format:%Y-%m-%d %H:%M:%S.%L}"}}
                }
            }
        },
        {
            "entities": {
                "Order": {
                    "keys": {"table": {"sk": "{created_at|tz:America/Phoenix|format:%Y-%m-%d %H:%M:%S.%L}"}}
                }
            }
        },
    ),
    # EVSE: the sort key is a computed attribute that renders Mountain Time.
    (
        "TW601",
        _with(LOCAL_TIME, {"entities": {"Order": {"keys": {"table": {"sk": "{local_time}"}}}}}),
        _with(LOCAL_TIME, {"entities": {"Order": {"keys": {"table": {"sk": "ORDER#{order_id}"}}}}}),
    ),
    (
        "TW602",
        DEVICE,
        _with(
            DEVICE,
            {
                "entities": {
                    "Device": {
                        "attributes": {
                            "sc_id": {"computed": {"template": "SC-{wireless_device_id|sha256:16|upper}"}}
                        }
                    }
                }
            },
        ),
    ),
    (
        "TW701",
        {"conventions": {"attribute_case": "camelCase", "severity": "warning"}},
        {"conventions": {"attribute_case": "snake_case", "severity": "warning"}},
    ),
    (
        "TW707",
        {"conventions": {"timestamps": "epoch_ms", "severity": {"timestamps": "warning"}}},
        {"conventions": {"timestamps": "rfc3339", "severity": {"timestamps": "warning"}}},
    ),
    (
        "TW708",
        {"lint": {"conventions": {"key_templates": {"GSI1": {"pk": "^USER#"}}}}},
        {"lint": {"conventions": {"key_templates": {"GSI1": {"pk": "^ORDER#"}}}}},
    ),
    (
        "TW709",
        _with(NO_LIMIT, {"lint": {"conventions": {"max_items_without_limit": 100}}}),
        _with(NO_LIMIT, {"lint": {"conventions": {"max_items_without_limit": 100000}}}),
    ),
    (
        "TW710",
        _with(SCAN, {"lint": {"conventions": {"scans": "forbidden"}}}),
        _with(SCAN, {"lint": {"conventions": {"scans": "allowed"}}}),
    ),
    (
        "TW208",
        {"entities": {"Order": {"unique": [["customer_id", "order_id"]]}}},  # the table key's fields
        {"entities": {"Order": {"unique": [["order_id"]]}}},  # unique across customers: not the key's
    ),
    (
        "TW406",  # the base design's peak needs 30 RCU / 3 WCU on the table, 15 / 3 on GSI1 (inherited)
        {"tables": {"orders": {"billing": {"mode": "provisioned", "read": 5, "write": 5}}}},
        {"tables": {"orders": {"billing": {"mode": "provisioned", "read": 30, "write": 3}}}},
    ),
    ("TW001", {"entities": {"Order": {"table": "nope"}}}, {"entities": {"Order": {"table": "orders"}}}),
    ("TW002", {"lint": {"disable": ["TW999"]}}, {"lint": {"disable": ["TW203"]}}),
    ("TW002", {"lint": {"transactional": "Order"}}, {"lint": {"transactional": ["Order"]}}),
    (
        "TW503",
        {
            "tables": {"orders": {"ttl": "expiresAt"}},
            "entities": {"Order": {"attributes": {"expires_at": "number"}}},
        },
        {
            "tables": {"orders": {"ttl": "expires_at"}},
            "entities": {"Order": {"attributes": {"expires_at": "number"}}},
        },
    ),
]


def _rules_found(change: dict[str, Any], at_least: str = "info") -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for finding in lint_text(design(change), "case.yaml"):
        if SEVERITIES[finding.severity] >= SEVERITIES[at_least]:
            found.setdefault(finding.rule, []).append(finding.message)
    return found


@pytest.mark.parametrize(("rule", "trigger", "quiet"), CASES, ids=[c[0] for c in CASES])
def test_rule_triggers_and_stays_quiet(rule: str, trigger: dict[str, Any], quiet: dict[str, Any]) -> None:
    assert rule in _rules_found(trigger), f"{rule} did not fire on its trigger"
    # A rule that fires as a warning is quiet when it says nothing louder than info (TW101 reports a
    # low-cardinality key's headroom at info even far below its threshold).
    at_least = "warning" if rule in _rules_found(trigger, "warning") else "info"
    quiet_found = _rules_found(quiet, at_least)
    assert rule not in quiet_found, (
        f"{rule} fired on the near-identical sound design: {quiet_found.get(rule)}"
    )


def test_every_rule_has_a_case() -> None:
    covered = {case[0] for case in CASES}
    covered |= MODEL_ONLY  # rules the loader also enforces: tested on designs built in Python
    covered |= {case[0] for case in REVIEW_CASES}  # tests/lint/test_review_rules.py
    # TW702-TW706 are the design loader's own convention checks, run as lint rules (tests/design).
    untested = {r for r in RULES if r not in covered and not "TW702" <= r <= "TW706"}
    assert untested == set()
