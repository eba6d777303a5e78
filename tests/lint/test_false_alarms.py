"""False alarms the reviewers reported: the minimal design that used to trigger each one now stays
quiet (or drops to info), and the near-identical real problem still fires."""

from __future__ import annotations

from typing import Any

import yaml

from tablewright.lint import lint_text

from .designs import merge

# EVSE's fleet overview in miniature: one item per device, read whole by a Scan every minute.
FLEET: dict[str, Any] = {
    "version": 1,
    "name": "fleet",
    "tables": {"state": {"partition_key": {"name": "id", "type": "S"}}},
    "entities": {
        "State": {
            "table": "state",
            "attributes": {
                "id": {"type": "string", "required": True},
                "status": {"type": "string", "enum": ["online", "offline", "charging", "fault"]},
            },
            "keys": {"table": {"pk": "{id}"}},
        }
    },
    "patterns": {
        "overview": {
            "params": {},
            "returns": "State",
            "means": {"where": "id exists"},
            "served": {"op": "scan"},
        }
    },
    "volumes": {
        "entities": {"State": {"items": 1000, "writes": "1/min"}},
        "patterns": {"overview": {"reads": "1/min"}},
    },
}

# WOMS insolation in miniature: one reading per device per day, a GSI keyed by the day.
DAILY: dict[str, Any] = {
    "version": 1,
    "name": "daily",
    "tables": {
        "wms": {
            "partition_key": {"name": "PK", "type": "S"},
            "sort_key": {"name": "SK", "type": "S"},
            "ttl": "ttl",
            "indexes": {
                "by-date": {
                    "kind": "global",
                    "partition_key": {"name": "GSI1PK", "type": "S"},
                    "sort_key": {"name": "GSI1SK", "type": "S"},
                    "projection": "ALL",
                }
            },
        }
    },
    "entities": {
        "Insolation": {
            "table": "wms",
            "attributes": {
                "device_id": {"type": "number", "required": True},
                "measured_at": {"type": "string", "required": True, "format": "rfc3339"},
                "date": {"type": "string", "format": "date", "computed": {"template": "{measured_at|date}"}},
                "ttl": {
                    "type": "number",
                    "format": "epoch_s",
                    "computed": {"ttl": {"from": "measured_at", "unit": "rfc3339", "retention": "100d"}},
                },
            },
            "keys": {
                "table": {"pk": "DEVICE#{device_id}", "sk": "{measured_at}"},
                "by-date": {"pk": "DATE#{date}", "sk": "DEVICE#{device_id}"},
            },
        }
    },
    "patterns": {
        "by_date": {
            "params": {"date": {"type": "string", "format": "date"}},
            "returns": "Insolation",
            "means": {"where": "date = :date"},
            "served": {"op": "query", "index": "by-date"},
        },
        "latest": {
            "params": {"device_id": "number"},
            "returns": "Insolation",
            "means": {"where": "device_id = :device_id", "order": "measured_at desc", "limit": 1},
            "served": {"op": "query", "forward": False},
        },
    },
    "volumes": {
        "peak_factor": 3,
        "entities": {"Insolation": {"items": 30000, "item_size": 200, "writes": "500/day"}},
        "patterns": {"by_date": {"reads": "300/day"}, "latest": {"reads": "1000/day"}},
    },
}


def _found(base: dict[str, Any], change: dict[str, Any] | None = None) -> dict[str, list[tuple[str, str]]]:
    text = yaml.safe_dump(merge(base, change or {}), sort_keys=False)
    found: dict[str, list[tuple[str, str]]] = {}
    for finding in lint_text(text, "case.yaml"):
        found.setdefault(finding.rule, []).append((finding.severity, finding.message))
    return found


# ------------------------------------------------------------------------------- TW301 (scans)


def test_scan_that_reads_every_item_of_a_one_entity_table_is_quiet() -> None:
    assert "TW301" not in _found(FLEET)


def test_no_where_at_all_selects_everything_too() -> None:
    assert "TW301" not in _found(FLEET, {"patterns": {"overview": {"means": {"where": None}}}})


def test_frequent_scan_selecting_a_small_subset_still_fires() -> None:
    found = _found(FLEET, {"patterns": {"overview": {"means": {"where": "status = 'fault'"}}}})
    [(severity, message)] = found["TW301"]
    assert severity == "warning" and "selecting about 25% of it" in message


def test_exists_on_an_optional_attribute_is_not_proof_of_selecting_all() -> None:
    optional = {"entities": {"State": {"attributes": {"note": {"type": "string"}}}}}
    found = _found(FLEET, {**optional, "patterns": {"overview": {"means": {"where": "note exists"}}}})
    assert "TW301" in found


def test_scan_of_every_item_of_one_entity_in_a_shared_table_fires_when_it_is_a_small_share() -> None:
    shared = {
        "entities": {
            "Log": {
                "table": "state",
                "attributes": {"id": {"type": "string", "required": True}},
                "keys": {"table": {"pk": "{id}"}},
            }
        },
        "volumes": {"entities": {"Log": {"items": 99000, "writes": "1/s"}}},
    }
    [(_, message)] = _found(FLEET, shared)["TW301"]
    assert "100,000 items" in message and "1%" in message


# --------------------------------------------------------------------------- TW102 (date keys)


def test_date_bucket_key_at_a_low_declared_write_rate_is_quiet() -> None:
    # 500/day x peak 3 x 1 WCU on one day's key: 0.02 units/s against 1,000.
    assert "TW102" not in _found(DAILY)


def test_date_bucket_key_near_the_partition_limit_still_fires() -> None:
    found = _found(DAILY, {"volumes": {"entities": {"Insolation": {"writes": "50/s"}}}})
    [(severity, message)] = found["TW102"]
    assert severity == "warning" and "150.0 units/s (15% of 1,000)" in message


def test_date_bucket_key_without_a_declared_write_rate_still_fires() -> None:
    found = _found(DAILY, {"volumes": {"entities": {"Insolation": None}, "patterns": None}})
    [(severity, message)] = found["TW102"]
    assert severity == "warning" and "declare the entity's writes" in message


# ---------------------------------------------------------------------- TW502 (expired items)


def _ttl_reads(found: dict[str, list[tuple[str, str]]]) -> dict[str, str]:
    return {message.split()[1]: severity for severity, message in found.get("TW502", [])}


def test_newest_first_with_a_limit_and_a_date_partition_are_info_only() -> None:
    assert _ttl_reads(_found(DAILY)) == {"by_date": "info", "latest": "info"}


def test_oldest_first_with_a_limit_still_warns() -> None:
    # Oldest first, the expired items are the first ones returned.
    change = {"patterns": {"latest": {"means": {"order": "measured_at asc"}, "served": {"forward": True}}}}
    assert _ttl_reads(_found(DAILY, change))["latest"] == "warning"


def test_a_whole_partition_with_no_limit_still_warns() -> None:
    change = {"patterns": {"latest": {"means": {"limit": None}}}}
    assert _ttl_reads(_found(DAILY, change))["latest"] == "warning"


def test_get_of_the_one_item_at_a_key_is_info() -> None:
    get = {
        "patterns": {
            "reading": {
                "params": {"device_id": "number", "measured_at": "string"},
                "returns": "Insolation",
                "means": {"where": "device_id = :device_id AND measured_at = :measured_at"},
                "served": {"op": "get", "consistent": True},
            }
        }
    }
    assert _ttl_reads(_found(DAILY, get))["reading"] == "info"
