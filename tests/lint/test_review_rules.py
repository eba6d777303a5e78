"""Lint on indexes and keys as designs nobody here wrote use them: each behaviour with a design that
triggers it and a near-identical one that stays quiet."""

from __future__ import annotations

from typing import Any

import pytest

from tablewright.lint import lint_text

from .designs import design, merge


def _with(*changes: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for change in changes:
        result = merge(result, change)
    return result


def _status_index(projection: object) -> dict[str, Any]:
    """GSI2 keyed on the customer and creation time, read by a pattern that filters on status."""
    return {
        "tables": {
            "orders": {
                "ttl": "expires_at",
                "indexes": {
                    "GSI2": {
                        "kind": "global",
                        "partition_key": {"name": "GSI2PK", "type": "S"},
                        "sort_key": {"name": "GSI2SK", "type": "S"},
                        "projection": projection,
                    }
                },
            }
        },
        "entities": {
            "Order": {
                "attributes": {"expires_at": {"type": "number", "format": "epoch_s"}},
                "keys": {"GSI2": {"pk": "C#{customer_id}", "sk": "{created_at}"}},
            }
        },
        "patterns": {
            "open_orders": {
                "params": {"customer_id": "string"},
                "returns": "Order",
                "means": {"where": "customer_id = :customer_id AND status = 'new'", "limit": 10},
                "served": {"op": "query", "index": "GSI2", "filter": "status = 'new'", "forward": False},
            }
        },
    }


KEYS_ONLY = _status_index("KEYS_ONLY")
INCLUDES_STATUS = _status_index({"include": ["status"]})
TYPED_SORT = {
    "entities": {"Order": {"keys": {"GSI2": {"sk": "{status}#{created_at}"}}}},
    "patterns": {"open_orders": {"served": {"sort": {"begins_with": {"status": "new"}}}}},
}

REVIEW_CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    # A filter on an attribute a KEYS_ONLY GSI does not carry keeps nothing; projecting it is the fix.
    ("TW207", KEYS_ONLY, INCLUDES_STATUS),
]


def _found(change: dict[str, Any]) -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = {}
    for finding in lint_text(design(change), "case.yaml"):
        found.setdefault(finding.rule, []).append(finding)
    return found


def test_filter_not_projected_is_an_error() -> None:
    (finding,) = _found(KEYS_ONLY)["TW207"]
    assert finding.severity == "error" and "returns nothing" in finding.message


def test_ttl_filter_is_not_suggested_on_an_index_that_does_not_project_it() -> None:
    hidden = [f for f in _found(KEYS_ONLY)["TW502"] if "open_orders" in f.message]
    assert hidden and "does not project expires_at" in hidden[0].fix
    visible = [f for f in _found(_status_index("ALL"))["TW502"] if "open_orders" in f.message]
    assert visible and "Add served.filter" in visible[0].fix


def test_filter_on_an_attribute_the_key_condition_fixes_is_not_reported() -> None:
    plain = _with(_status_index("ALL"), {"patterns": {"open_orders": {"served": {"page_size": 5}}}})
    assert {"TW302", "TW303"} <= set(_found(plain))
    in_key = merge(plain, TYPED_SORT)
    assert not {"TW302", "TW303"} & set(_found(in_key))


def test_limit_with_filter_is_quiet_once_a_page_holds_the_matches_asked_for() -> None:
    base = _status_index("ALL")
    short = _with(base, {"patterns": {"open_orders": {"served": {"page_size": 20}}}})  # ~5 of 10
    enough = _with(base, {"patterns": {"open_orders": {"served": {"page_size": 80}}}})  # ~20 of 10
    assert "TW303" in _found(short)
    assert "TW303" not in _found(enough)


ORDERED_BY_DATE = {"patterns": {"open_orders": {"means": {"order": "created_at desc"}}}}
COMPUTED_SORT = {
    "entities": {
        "Order": {
            "attributes": {
                "status_date": {"type": "string", "computed": {"template": "{status}#{created_at}"}}
            },
            "keys": {"GSI2": {"sk": "{status_date}"}},
        }
    },
    "patterns": {"open_orders": {"served": {"sort": {"begins_with": {"status": "new"}}}}},
}
REVIEW_CASES += [
    # sk STATUS#date: ordered by date only where the key condition fixes the status.
    (
        "TW306",
        _with(
            _status_index("ALL"),
            ORDERED_BY_DATE,
            {"entities": {"Order": {"keys": {"GSI2": {"sk": "{status}#{created_at}"}}}}},
        ),
        _with(_status_index("ALL"), ORDERED_BY_DATE, TYPED_SORT),
    ),
]


def test_a_bound_prefix_built_through_a_computed_attribute_orders_by_the_rest() -> None:
    found = _found(_with(_status_index("ALL"), ORDERED_BY_DATE, COMPUTED_SORT))
    assert "TW306" not in found, [f.message for f in found.get("TW306", [])]
    unbound = _with(_status_index("ALL"), ORDERED_BY_DATE, COMPUTED_SORT)
    unbound["patterns"]["open_orders"]["served"].pop("sort")
    assert "orders by status first" in _found(unbound)["TW306"][0].message


LOCAL_TIME_SORT = {
    "entities": {
        "Order": {
            "attributes": {
                "created_local": {
                    "type": "string",
                    "computed": {"template": "{created_at|tz:America/Denver|format:%Y-%m-%d %H:%M:%S}"},
                }
            },
            "keys": {"GSI2": {"sk": "{created_local}"}},
        }
    },
}


def test_a_computed_sort_attribute_orders_by_itself_as_well_as_by_its_fields() -> None:
    by_itself = {"patterns": {"open_orders": {"means": {"order": "created_local desc"}}}}
    assert "TW306" not in _found(_with(_status_index("ALL"), LOCAL_TIME_SORT, by_itself))
    # Its source field orders it too (the local-time hazard is TW601's, not an order finding) ...
    assert "TW306" not in _found(_with(_status_index("ALL"), LOCAL_TIME_SORT, ORDERED_BY_DATE))
    # ... and an attribute that is neither is still reported.
    by_status = {"patterns": {"open_orders": {"means": {"order": "status desc"}}}}
    assert "TW306" in _found(_with(_status_index("ALL"), LOCAL_TIME_SORT, by_status))


def test_a_lookup_on_a_unique_index_key_is_graded_like_a_get() -> None:
    from tablewright.cost import analysis
    from tablewright.design import loads

    ttl = {
        "tables": {"orders": {"ttl": "expires_at"}},
        "entities": {"Order": {"attributes": {"expires_at": "number"}}},
    }
    unique = _with(ttl, {"entities": {"Order": {"unique": [["order_id"]]}}})

    def by_id(change: dict) -> list[str]:
        return [f.severity for f in _found(change).get("TW502", []) if "order_by_id" in f.message]

    assert by_id(ttl) == ["warning"]  # a GSI query: any number of items, expired ones among them
    assert by_id(unique) == ["info"]  # at most one item: like GetItem
    loaded = loads(design(unique), "case.yaml")
    rows = analysis.rows_read(loaded, loaded.patterns["order_by_id"])
    assert (rows.items, rows.assumed) == (1, False)


def test_cost_findings_state_their_monthly_dollars_at_the_declared_volumes() -> None:
    def tw302(rate: str | None) -> str:
        change = {"patterns": {"orders_of_customer": {"served": {"filter": "status = 'new'"}}}}
        if rate is None:
            change["volumes"] = None
        else:
            change["volumes"] = {"patterns": {"orders_of_customer": {"reads": rate}}}
        (finding,) = _found(change)["TW302"]
        return finding.message

    # 20 orders x 1/4 kept: 80 items read per call, 3/4 of it discarded.
    rare, busy = tw302("1/day"), tw302("1000/s")
    assert "$" in rare and "$" in busy and rare != busy
    assert "/month at the declared volumes" in busy
    assert "no volumes declared" in tw302(None)
    unused = _with(_status_index("ALL"), {"patterns": {"open_orders": None}})
    (finding,) = _found(unused)["TW203"]
    assert "costs $" in finding.message


def _device(charset: str) -> dict[str, Any]:
    return {
        "entities": {
            "Order": {
                "attributes": {
                    "mac": {"type": "string", "format": "mac"},
                    "device_key": {
                        "type": "string",
                        "charset": charset,
                        "computed": {"template": "DEV#{mac}"},
                    },
                }
            }
        }
    }


def _day_bucket(buckets: bool) -> dict[str, Any]:
    served: dict[str, Any] = {
        "op": "query",
        "index": "GSI2",
        "partition": {"created_at": ":from"},
        "sort": {"between": [{"created_at": ":from"}, {"created_at": ":to"}]},
    }
    if buckets:
        served["buckets"] = {"attribute": "created_at", "from": ":from", "to": ":to", "step": "day"}
    return _with(
        _status_index("ALL"),
        {
            "entities": {"Order": {"keys": {"GSI2": {"pk": "DAY#{created_at|date}", "sk": "{created_at}"}}}},
            "patterns": {
                "open_orders": None,
                "orders_between": {
                    "params": {
                        "from": {"type": "string", "format": "rfc3339"},
                        "to": {"type": "string", "format": "rfc3339"},
                    },
                    "returns": "Order",
                    "means": {"where": "created_at BETWEEN :from AND :to", "limit": 100},
                    "served": served,
                },
            },
        },
    )


REVIEW_CASES += [
    # A MAC address (AA:BB:...) rendered into an attribute whose charset has no ':'.
    ("TW003", _device("[A-Za-z0-9#_-]"), _device("[A-Za-z0-9#_:-]")),
    # A day-bucketed partition read over a window: one Query per day, or only the first day comes back.
    ("TW307", _day_bucket(False), _day_bucket(True)),
]


def _batched(max_batch: int) -> dict[str, Any]:
    return {
        "entities": {
            "Order": {"max_batch": max_batch, "unique": [["order_id"]], "idempotency_key": "order_id"}
        }
    }


REVIEW_CASES += [
    # From the entity's own bounds: 50 orders + 50 unique markers + 1 idempotency marker = 101 actions.
    ("TW402", _batched(50), _batched(49)),
]


_GSI2 = _status_index("ALL")["tables"]["orders"]["indexes"]["GSI2"]
SHORT_INDEX_NAME = _with(
    _status_index("ALL"),
    {
        "tables": {"orders": {"indexes": {"GSI2": None, "G2": _GSI2}}},
        "entities": {
            "Order": {"keys": {"GSI2": None, "G2": {"pk": "C#{customer_id}", "sk": "{created_at}"}}}
        },
        "patterns": {"open_orders": {"served": {"index": "G2"}}},
    },
)
REVIEW_CASES += [
    # CreateTable refuses an index (or a table) named with fewer than 3 characters: caught before
    # check or cost --measure meet the engine's ValidationException.
    ("TW004", SHORT_INDEX_NAME, _status_index("ALL")),
]


NO_FILTER_KEYS_ONLY = _with(KEYS_ONLY, {"patterns": {"open_orders": {"served": {"filter": None}}}})
REVIEW_CASES += [
    # Selecting on status through a KEYS_ONLY GSI without a filter: the index cannot even be filtered.
    (
        "TW207",
        NO_FILTER_KEYS_ONLY,
        _with(INCLUDES_STATUS, {"patterns": {"open_orders": {"served": {"filter": None}}}}),
    ),
]


def test_a_quiet_low_cardinality_key_is_reported_at_info_with_its_headroom() -> None:
    status_key = _with(
        _status_index("ALL"),
        {"entities": {"Order": {"keys": {"GSI2": {"pk": "{status}"}}}}},
        {"patterns": {"open_orders": {"params": {"status": "string"}, "served": {"filter": None}}}},
        {"volumes": {"entities": {"Order": {"items": 100000, "writes": "1/day"}}}},
    )
    (finding,) = _found(status_key)["TW101"]
    assert finding.severity == "info"
    # 1 write/day x peak 3 over 4 status values: 3/86400/4 WCU/s on the busiest.
    assert "4 value(s)" in finding.message and "busiest value 8.7e-06 WCU/s" in finding.message
    assert "at 11,520,000 writes/day (now 1)" in finding.message


def test_each_entity_of_a_single_table_is_judged_on_its_own_key_and_writes() -> None:
    """Two entities under constant keys in one table: the busy one is warned about, the quiet one
    is reported with its own load and writes, not the busy one's or the table's."""
    shared = _with(
        {
            "entities": {
                "Order": {"keys": {"table": {"pk": "ORDERS", "sk": "ORDER#{order_id}"}}},
                "Note": {
                    "table": "orders",
                    "attributes": {"note_id": {"type": "string", "required": True}},
                    "keys": {"table": {"pk": "NOTES", "sk": "NOTE#{note_id}"}},
                },
            },
            "volumes": {
                "peak_factor": 1,
                "entities": {
                    "Order": {"items": 1000, "writes": "200/s"},
                    "Note": {"items": 100, "writes": "2/day"},
                },
            },
        }
    )
    found = {
        f.message.split(" of ")[1].split(" ")[0]: f
        for f in _found(shared)["TW101"]
        if "table orders" in f.message
    }
    assert found["Order"].severity == "warning" and "at peak one value takes writes" in found["Order"].message
    note = found["Note"]
    assert note.severity == "info", note.message
    assert "(now 2)" in note.message and "busiest value 2.3e-05 WCU/s" in note.message, note.message


def test_selecting_on_a_field_of_a_computed_key_needs_no_projection() -> None:
    keyed = _with(KEYS_ONLY, COMPUTED_SORT, {"patterns": {"open_orders": {"served": {"filter": None}}}})
    assert "TW207" not in _found(keyed)
    (finding,) = _found(NO_FILTER_KEYS_ONLY)["TW207"]
    assert "neither keys nor projects" in finding.message and "Project status" in finding.fix


def test_the_new_rules_raise_no_false_alarm_on_the_examples() -> None:
    from pathlib import Path

    from tablewright.lint import lint_file

    root = Path(__file__).resolve().parents[2]
    for path in sorted(root.glob("examples/*/design.yaml")):
        found = {f.rule for f in lint_file(path)}
        assert not found & {"TW003", "TW004", "TW207", "TW307"}, (path, found)


# Last, so every case above (they are added beside the behaviour they show) is collected.
@pytest.mark.parametrize(("rule", "trigger", "quiet"), REVIEW_CASES, ids=[c[0] for c in REVIEW_CASES])
def test_review_rule_triggers_and_stays_quiet(rule: str, trigger: dict, quiet: dict) -> None:
    assert rule in _found(trigger), f"{rule} did not fire on its trigger"
    assert rule not in _found(quiet), f"{rule} fired on the near-identical sound design"
