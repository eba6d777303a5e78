"""Vendor sync: pull a vendor's plants and alerts from its API into WOMS, safe to run concurrently.

    python examples/woms/sync.py --db woms.db --vendor-id 3 --vendor-url http://127.0.0.1:8070
    python examples/woms/sync.py --endpoint http://127.0.0.1:8000 --vendor-id 3 --vendor-url ...

Plants: a station the vendor lists that WOMS knows (``vendor_id`` + ``vendor_plant_id``, the SQL
unique key) gets its status and production metrics updated; an unknown one is added to the
vendor's organisation with a plant id derived from the station (``new_plant_id``), so two
concurrent syncs adding the same new station compute the same id and one create wins.
Alerts: ``Woms.sync_vendor_alerts``, each vendor alert id stored once per station whatever the
number of concurrent runs (the unique marker in the alert's transaction decides). A station the
vendor describes wrongly (no id, an id with stray whitespace, the same id twice in one answer, a
value the design refuses, a plant removed meanwhile) is named on stderr and skipped, the others are
synced. An answer with an object naming one key twice is refused (JSON parsers keep either value):
the plants answer stops the sync, one station's alerts answer skips that station (README, 18).
Prints one summary line; exit 0, 1 when a station was skipped, 2 for bad arguments, 3 when the
vendor API (or what answers there) or the tables cannot be used.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from urllib.parse import quote

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from botocore.exceptions import BotoCoreError, ClientError  # noqa: E402
from woms import DESIGN, METRICS, Woms  # noqa: E402

from tablewright.cli.errors import reported  # noqa: E402
from tablewright.runtime import ConflictError, Runtime, RuntimeFailure, UniquenessError  # noqa: E402

PROGRAM = "woms sync"
NEW_PLANT_BASE = 10**12  # above any SQL plant id (7,000 max): vendor-discovered plants
PLANT_FIELDS = ("name", "network_status", *METRICS)


@dataclass
class SyncReport:
    """What one run did."""

    plants_added: int = 0
    plants_updated: int = 0
    alerts_created: int = 0
    alerts_duplicate: int = 0
    problems: list[str] = field(default_factory=list)


def new_plant_id(vendor_id: int, vendor_plant_id: str) -> int:
    """The plant id of a station first seen at its vendor: 40 bits of SHA-256 above ``NEW_PLANT_BASE``
    (collision odds ~2e-5 at 7,000 plants; a collision is refused by the create, not merged)."""
    digest = hashlib.sha256(f"{vendor_id}:{vendor_plant_id}".encode()).hexdigest()
    return NEW_PLANT_BASE + int(digest[:10], 16)


# Seconds one vendor answer may take in all: httpx's timeout bounds each read, so a server sending
# a byte every few seconds would otherwise hold the sync for ever.
ANSWER_SECONDS = 60.0


class VendorAnswerError(Exception):
    """The vendor's API answered something that is no answer of its API (not JSON, another shape)."""


def vendor_json(api: httpx.Client, path: str) -> object:
    """GET ``path``: its JSON, numbers with a fraction as Decimal (the design stores no floats), an
    object naming a key twice refused (``VendorAnswerError``) rather than read as its last value."""
    deadline = time.monotonic() + ANSWER_SECONDS
    with api.stream("GET", path) as response:
        response.raise_for_status()
        body = bytearray()
        for chunk in response.iter_bytes():
            body += chunk
            if time.monotonic() > deadline:
                raise httpx.ReadTimeout(f"{path}: no whole answer within {ANSWER_SECONDS:.0f} s")

    def refuse_repeats(pairs: list[tuple[str, object]]) -> dict[str, object]:
        found: dict[str, object] = {}
        for key, value in pairs:
            if key in found:
                raise VendorAnswerError(f"{path}: the answer names {key!r} twice in one object")
            found[key] = value
        return found

    try:
        return json.loads(body.decode("utf-8"), parse_float=Decimal, object_pairs_hook=refuse_repeats)
    except (ValueError, RecursionError):
        raise VendorAnswerError(f"{path}: the answer is not JSON") from None


def station_ids(stations: list[object], report: SyncReport) -> dict[int, str]:
    """Position -> vendor_plant_id of the stations to sync. Named in ``report`` and left out: an
    entry with no id, an id with leading or trailing whitespace (README: not trimmed, since the
    vendor's own id is the text it sent and its alerts URL uses it), and every entry of an id the
    answer lists more than once (which of the descriptions is right cannot be told)."""
    ids: dict[int, str] = {}
    for index, station in enumerate(stations):
        station_id = station.get("vendor_plant_id") if isinstance(station, dict) else None
        if (
            not isinstance(station_id, str | int)
            or isinstance(station_id, bool)
            or not str(station_id).strip()
        ):
            report.problems.append(f"station [{index}]: no vendor_plant_id; skipped")
        elif str(station_id) != str(station_id).strip():
            report.problems.append(
                f"station [{index}]: vendor_plant_id {station_id!r} has leading or trailing whitespace; skipped"
            )
        else:
            ids[index] = str(station_id)
    positions: dict[str, list[int]] = {}
    for index, station_id in ids.items():
        positions.setdefault(station_id, []).append(index)
    for station_id, where in positions.items():
        if len(where) > 1:
            listed = ", ".join(f"[{index}]" for index in where)
            report.problems.append(
                f"station {station_id}: listed {len(where)} times in one answer ({listed}); skipped"
            )
            for index in where:
                del ids[index]
    return ids


def sync_vendor(woms: Woms, vendor_id: int, api: httpx.Client) -> SyncReport:
    """One sync of one vendor: plants, then each plant's alerts. A station the vendor describes wrongly
    (no id, an id with stray whitespace, an id listed twice, a value the design refuses) is reported
    and skipped; the others are synced."""
    report = SyncReport()
    vendor = woms.rt.get("Vendor", vendor_id=vendor_id)
    if vendor is None:
        raise LookupError(f"vendor {vendor_id} is not in WOMS")
    stations = vendor_json(api, f"/vendors/{vendor_id}/plants")
    if not isinstance(stations, list):
        raise VendorAnswerError(f"/vendors/{vendor_id}/plants: expected a list of stations")
    for index, station_id in station_ids(stations, report).items():
        station = stations[index]
        assert isinstance(station, dict)  # station_ids keeps objects only
        try:
            _sync_station(woms, vendor, station_id, station, api, report)
        except (
            RuntimeFailure,
            ValueError,
            TypeError,
            ArithmeticError,
            VendorAnswerError,
            httpx.HTTPStatusError,
        ) as error:
            said = "; ".join(line.strip() for line in str(error).splitlines())
            report.problems.append(f"station {station_id}: {said}; skipped")
    return report


def _sync_station(
    woms: Woms, vendor: Mapping, station_id: str, station: Mapping, api: httpx.Client, report: SyncReport
) -> None:
    vendor_id = vendor["vendor_id"]
    fields = {k: station[k] for k in PLANT_FIELDS if station.get(k) is not None}
    known = woms.plant_for(vendor_id, station_id)
    if known is not None:
        changes = {k: v for k, v in fields.items() if known.get(k) != v}
        if changes:
            woms.rt.update("Plant", {"plant_id": known["plant_id"]}, changes)
            report.plants_updated += 1
    else:
        values = {
            "plant_id": new_plant_id(vendor_id, station_id),
            "org_id": vendor["org_id"],
            "vendor_id": vendor_id,
            "vendor_plant_id": station_id,
            **fields,
        }
        try:
            woms.add_plant(values)
            report.plants_added += 1
        except (ConflictError, UniquenessError):
            if woms.plant_for(vendor_id, station_id) is None:  # another station holds the id
                report.problems.append(f"plant id {values['plant_id']} of station {station_id} is taken")
    # The id is the vendor's text: escaped, so "ST1/../ST2" or "ST9?x=" names no other resource.
    alerts = vendor_json(api, f"/vendors/{vendor_id}/plants/{quote(station_id, safe='')}/alerts")
    if not isinstance(alerts, list):
        raise VendorAnswerError("its alerts answer is not a list")
    result = woms.sync_vendor_alerts(vendor_id, station_id, alerts)
    report.alerts_created += len(result.created)
    report.alerts_duplicate += len(result.duplicates)


@reported(PROGRAM)
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROGRAM, description="Sync a vendor's plants and alerts into WOMS")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--db", help="SQLite file of the embedded engine")
    where.add_argument("--endpoint", help="DynamoDB endpoint URL")
    parser.add_argument("--vendor-id", type=int, required=True)
    parser.add_argument("--vendor-url", required=True, help="base URL of the vendor's API")
    args = parser.parse_args(argv)
    if args.db and not Path(args.db).is_file():
        print(f"{PROGRAM}: error: --db {args.db}: no such file (load the SQL data first)", file=sys.stderr)
        return 2
    try:
        woms = Woms(Runtime.open(DESIGN, endpoint_url=args.endpoint, db=args.db))
        with httpx.Client(base_url=args.vendor_url, timeout=30) as api:
            report = sync_vendor(woms, args.vendor_id, api)
    except LookupError as error:
        print(f"{PROGRAM}: error: {error}", file=sys.stderr)
        return 2
    except (httpx.HTTPError, ClientError, BotoCoreError, VendorAnswerError) as error:
        print(f"{PROGRAM}: error: {error}", file=sys.stderr)
        return 3
    print(
        f"vendor {args.vendor_id}: plants +{report.plants_added} ~{report.plants_updated}, "
        f"alerts +{report.alerts_created} ={report.alerts_duplicate}"
    )
    for problem in report.problems:
        print(f"{PROGRAM}: {problem}", file=sys.stderr)
    return 1 if report.problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
