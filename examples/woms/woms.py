"""WOMS (seed 003) domain code on the runtime: the hierarchy's constraints, vendor alert sync with
de-duplication, and production metrics aggregated on the fly.

Hierarchy: Organization -> Vendors (at most 50) -> Plants; Organization -> Work Orders -> Plants
(through work-order-plants, several vendors, one organization). What the design can say
declaratively lives in design.yaml (required ids, unique markers); what needs another item (the
plant's vendor is in the plant's org, the WMS device is in the work order's org) is checked here.

Uniqueness never goes through a GSI (eventually consistent, no conditions): the runtime's marker
items, written in the same transaction as the item, decide. See README.md for each decision.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

from tablewright.design.templates import fold
from tablewright.runtime import (
    ConditionFailedError,
    NotFoundError,
    Record,
    Runtime,
    RuntimeFailure,
    UniquenessError,
)

DESIGN = Path(__file__).with_name("design.yaml")
MAX_VENDORS_PER_ORG = 50  # "20-50 max per org": 20 is the usual, 50 the cap
METRICS = (
    "capacity_kw",
    "current_power_kw",
    "daily_energy_kwh",
    "monthly_energy_mwh",
    "yearly_energy_mwh",
    "total_energy_mwh",
)
# RFC 3339 as vendors send it: any fraction, Z or an offset, either case of T and Z.
VENDOR_TIME = re.compile(r"(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(?:\.\d+)?([Zz]|[+-]\d{2}:\d{2})")


class HierarchyError(ValueError):
    """A write that breaks the WOMS hierarchy (missing parent, parent of another organization)."""


class VendorLimitError(HierarchyError):
    """The organization already has its maximum number of vendors."""


class PlantAlreadyAssignedError(HierarchyError):
    """The plant is already in another active work order (one active work order per plant)."""


@dataclass
class SyncResult:
    """What one vendor sync did: alerts created and vendor alert ids skipped as already known."""

    created: list[Record] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)


@dataclass
class Metrics:
    """Summed plant production metrics and how many distinct plants they cover."""

    plants: int = 0
    totals: dict[str, Decimal] = field(default_factory=lambda: {m: Decimal(0) for m in METRICS})

    def add(self, plant: Mapping[str, object]) -> None:
        """Add one plant's metrics (absent metrics count as zero)."""
        self.plants += 1
        for name in METRICS:
            self.totals[name] += Decimal(str(plant.get(name, 0)))


def alert_time(sent: object) -> object:
    """A vendor's alert time in the one precision alerts are keyed by: ``YYYY-MM-DDTHH:MM:SSZ`` (UTC,
    whole seconds, the document's ``2025-01-15T14:30:00Z``); a fraction is cut, an offset converted.
    A value that is not RFC 3339 comes back unchanged, for the design's validation to name."""
    found = VENDOR_TIME.fullmatch(sent) if isinstance(sent, str) else None
    if found is None:
        return sent
    day, clock, zone = found.groups()
    offset = "+00:00" if zone in "Zz" else zone
    try:
        moment = datetime.fromisoformat(f"{day}T{clock}{offset}").astimezone(UTC)
    except (ValueError, OverflowError):
        return sent  # 2025-02-30, or 9999-12-31T23:59:59-01:00 (past year 9999 in UTC): validation names it
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


class Woms:
    """The WOMS tables through one runtime."""

    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime

    @classmethod
    def open(cls, db: str | os.PathLike | None = None) -> Woms:
        """WOMS on a fresh in-memory engine (or the SQLite file ``db``), tables created."""
        rt = Runtime.open(DESIGN, db=db)
        rt.create_tables()
        return cls(rt)

    # ------------------------------------------------------------------------------------ parents
    def _require(self, entity: str, what: str, **key: object) -> Record | None:
        """The parent ``entity`` at ``key``; None when a key value is missing (the write's own
        validation then reports every missing attribute at once)."""
        if any(v is None for v in key.values()):
            return None
        found = self.rt.get(entity, **key)
        if found is None:
            raise HierarchyError(f"{what}: {entity} {key} does not exist")
        return found

    def create_organization(self, org_id: int, name: str) -> Record:
        """A new organization; ``ConflictError`` when the id exists (a create never replaces)."""
        return self.rt.put("Organization", {"org_id": org_id, "name": name}).record  # type: ignore[return-value]

    def create_account(self, values: Mapping[str, object]) -> Record:
        """A new account; ``ConflictError`` when the id exists, ``UniquenessError`` when another
        account has the email in any letter case (the design's ``email_key``)."""
        self._require("Organization", f"account {values.get('account_id')}", org_id=values.get("org_id"))
        return self.rt.put("Account", values).record  # type: ignore[return-value]

    def account_by_email(self, email: str) -> Record | None:
        """Login: the account of an email address, whatever its letter case or Unicode spelling (the
        design's ``email_key`` is ``{email|fold}``)."""
        for account in self.rt.run("account_by_email", email_key=fold(email)):
            return account
        return None

    def add_vendor(self, values: Mapping[str, object]) -> Record:
        """A vendor of an existing organization, in a free slot 1..50 of that organization.

        The slot is a unique value per organization (a marker claimed in the vendor's transaction),
        so two concurrent additions never take the same slot and a 51st vendor finds none free.
        """
        org_id = values.get("org_id")
        self._require("Organization", f"vendor {values.get('vendor_id')}", org_id=org_id)
        used = {v["org_slot"] for v in self.rt.run("vendors_by_org", org_id=org_id)}
        for slot in range(1, MAX_VENDORS_PER_ORG + 1):
            if slot in used:
                continue
            try:
                return self.rt.put("Vendor", {**values, "org_slot": slot}).record  # type: ignore[return-value]
            except UniquenessError:
                continue  # a concurrent addition took it (the index read above lags): next slot
        raise VendorLimitError(
            f"organization {org_id} already has {MAX_VENDORS_PER_ORG} vendors (the maximum); "
            f"vendor {values.get('vendor_id')} not added"
        )

    def add_plant(self, values: Mapping[str, object]) -> Record:
        """A plant of an existing vendor of the same organization; (vendor_id, vendor_plant_id) unique."""
        vendor = self._require("Vendor", f"plant {values.get('plant_id')}", vendor_id=values.get("vendor_id"))
        if vendor is not None and vendor["org_id"] != values.get("org_id"):
            raise HierarchyError(
                f"plant {values.get('plant_id')}: vendor {vendor['vendor_id']} belongs to organization "
                f"{vendor['org_id']}, not {values.get('org_id')}"
            )
        return self.rt.put("Plant", values).record  # type: ignore[return-value]

    def create_work_order(self, values: Mapping[str, object]) -> Record:
        """A work order of an existing organization; its optional WMS device must be that org's."""
        org_id = values.get("org_id")
        what = f"work order {values.get('work_order_id')}"
        self._require("Organization", what, org_id=org_id)
        device_id = values.get("wms_device_id")
        if device_id is not None:
            device = self._require("WmsDevice", what, device_id=device_id)
            if device is not None and device["org_id"] != org_id:
                raise HierarchyError(
                    f"{what}: WMS device {device_id} belongs to organization {device['org_id']}, not {org_id}"
                )
        return self.rt.put("WorkOrder", values).record  # type: ignore[return-value]

    def close_work_order(self, work_order_id: int) -> Record:
        """Close a work order and release every plant active in it (the mappings stay as history).

        The status is set first, so no assignment lands after the release (``assign_plant`` checks
        the status in its own transaction); then each active mapping gives up its marker. A crash in
        between leaves a CLOSED order with plants still held: closing again finishes the release.
        """
        key = {"work_order_id": work_order_id}
        order = self._require("WorkOrder", f"closing work order {work_order_id}", **key)
        assert order is not None
        if order["status"] != "CLOSED":
            order = self.rt.update("WorkOrder", key, {"status": "CLOSED"}).record  # type: ignore[assignment]
        for plant_id in self._active_plant_ids(work_order_id):
            self.release_plant(work_order_id, plant_id)
        return order  # type: ignore[return-value]

    def reopen_work_order(self, work_order_id: int) -> Record:
        """Reopen a CLOSED work order (status OPEN); anything else is refused by name.

        The plants released at close are not taken back: by now they may be active in another work
        order, and one active work order per plant wins over restoring the old list. Reassign them
        with ``assign_plant`` (the mappings kept as history show which they were). The status moves
        under a condition, so of two concurrent reopen/close calls each sees the state it changes.
        """
        key = {"work_order_id": work_order_id}
        order = self._require("WorkOrder", f"reopening work order {work_order_id}", **key)
        assert order is not None
        if order["status"] != "CLOSED":
            raise HierarchyError(
                f"work order {work_order_id} is {order['status']}, not CLOSED: nothing to reopen"
            )
        try:
            result = self.rt.update(
                "WorkOrder",
                key,
                {"status": "OPEN"},
                condition="status = :closed",
                condition_params={"closed": "CLOSED"},
            )
        except ConditionFailedError:
            raise HierarchyError(
                f"work order {work_order_id} changed while being reopened; read it again"
            ) from None
        return result.record  # type: ignore[return-value]

    def released_plants(self, work_order_id: int) -> list[int]:
        """Plants that were in a work order and are no longer active in it (its history)."""
        return [
            m["plant_id"]
            for m in self.rt.run("work_order_plants", work_order_id=work_order_id)
            if not m.get("is_active")
        ]

    # ------------------------------------------------------------------------------------ work orders
    def active_work_order(self, plant_id: int) -> int | None:
        """The work order a plant is actively in, if any (reverse index, then a consistent read)."""
        for mapping in self.rt.run("plant_work_orders", plant_id=plant_id):
            current = self.rt.get("WorkOrderPlant", work_order_id=mapping["work_order_id"], plant_id=plant_id)
            if current is not None and current.get("is_active"):
                return int(current["work_order_id"])
        return None

    def assign_plant(self, work_order_id: int, plant_id: int) -> Record:
        """Put a plant into a work order of its organization, as its one active work order."""
        order = self._require("WorkOrder", f"assigning plant {plant_id}", work_order_id=work_order_id)
        plant = self._require("Plant", f"work order {work_order_id}", plant_id=plant_id)
        assert order is not None and plant is not None  # both ids are given
        if plant["org_id"] != order["org_id"]:
            raise HierarchyError(
                f"work order {work_order_id} (organization {order['org_id']}) cannot contain plant "
                f"{plant_id} of organization {plant['org_id']}"
            )
        if order["status"] == "CLOSED":
            raise HierarchyError(f"work order {work_order_id} is CLOSED; plant {plant_id} not assigned")
        key = {"work_order_id": work_order_id, "plant_id": plant_id}
        # The order must still be open when the mapping is written (a close may run concurrently).
        still_open = self.rt.tx_check(
            "WorkOrder",
            {"work_order_id": work_order_id},
            "status <> :closed",
            condition_params={"closed": "CLOSED"},
        )
        try:
            if self.rt.get("WorkOrderPlant", **key) is not None:  # re-activating an old mapping
                change = self.rt.tx_update("WorkOrderPlant", key, {"is_active": True})
            else:
                values = {
                    **key,
                    "org_id": order["org_id"],
                    "vendor_id": plant["vendor_id"],
                    "is_active": True,
                }
                change = self.rt.tx_put("WorkOrderPlant", values)
            # ...and the plant must still exist (a delete_plant may run concurrently).
            plant_exists = self.rt.tx_check("Plant", {"plant_id": plant_id}, "plant_id exists")
            result = self.rt.transact([still_open, plant_exists, change])
            return next(r for r in result.records if r.entity == "WorkOrderPlant")
        except UniquenessError:
            holder = self.active_work_order(plant_id)
            raise PlantAlreadyAssignedError(
                f"plant {plant_id} is already in active work order {holder}; release it before "
                f"assigning it to work order {work_order_id}"
            ) from None

    def release_plant(self, work_order_id: int, plant_id: int) -> Record:
        """End a plant's assignment: the mapping stays (history), its active marker is released."""
        key = {"work_order_id": work_order_id, "plant_id": plant_id}
        return self.rt.update("WorkOrderPlant", key, {}, remove=["is_active"]).record  # type: ignore[return-value]

    def delete_plant(self, plant_id: int) -> None:
        """Delete a plant and its work-order mappings (history) in one transaction.

        Refused while the plant is active in a work order (``PlantAlreadyAssignedError``): release it
        first, so no work order silently loses a plant it counts. Deleting releases the plant's
        vendor station id (its unique marker) and leaves no mapping pointing at nothing.
        """
        if self.rt.get("Plant", plant_id=plant_id) is None:
            raise NotFoundError(f"plant {plant_id} does not exist")
        holder = self.active_work_order(plant_id)
        if holder is not None:
            raise PlantAlreadyAssignedError(
                f"plant {plant_id} is active in work order {holder}; release it before deleting the plant"
            )
        mappings = [m["work_order_id"] for m in self.rt.run("plant_work_orders", plant_id=plant_id)]
        operations = [self.rt.tx_delete("Plant", {"plant_id": plant_id})]
        operations += [
            # An assignment that slipped in since the check above makes the transaction fail.
            self.rt.tx_delete(
                "WorkOrderPlant", {"work_order_id": w, "plant_id": plant_id}, condition="is_active NOT EXISTS"
            )
            for w in mappings
        ]
        try:
            self.rt.transact(operations)
        except RuntimeFailure as error:
            raise PlantAlreadyAssignedError(
                f"plant {plant_id} changed while it was being deleted ({error}); nothing was deleted"
            ) from None

    def _plants(self, plant_ids: Iterable[int]) -> list[Record]:
        ids = list(dict.fromkeys(plant_ids))
        return list(self.rt.run("plants_by_ids", plant_ids=ids)) if ids else []

    def _active_plant_ids(self, work_order_id: int) -> list[int]:
        return [
            m["plant_id"]
            for m in self.rt.run("work_order_plants", work_order_id=work_order_id)
            if m.get("is_active")
        ]

    def work_order_metrics(self, work_order_id: int) -> Metrics:
        """Sum of the metrics of the plants active in a work order, computed now (no pre-aggregation)."""
        metrics = Metrics()
        for plant in self._plants(self._active_plant_ids(work_order_id)):
            metrics.add(plant)
        return metrics

    def organization_metrics(self, org_id: int) -> Metrics:
        """The document's organization metrics: the plants in all of the org's work orders, each once."""
        plant_ids: list[int] = []
        for order in self.rt.run("work_orders_by_org", org_id=org_id):
            plant_ids += self._active_plant_ids(order["work_order_id"])
        metrics = Metrics()
        for plant in self._plants(plant_ids):
            metrics.add(plant)
        return metrics

    # ------------------------------------------------------------------------------------ alerts
    def natural_key(self, entity: str, table_key: Mapping[str, object]) -> dict[str, object]:
        """Natural key values parsed back from a stored table key (a KEYS_ONLY index hit)."""
        found = self.rt.entity(entity)
        entry = found.keys["table"]
        values: dict[str, object] = {}
        for template, name in ((entry.pk, entry.partition_name), (entry.sk, entry.sort_name)):
            if template is not None and name is not None:
                values.update(template.parse(table_key[name]))
        for name, value in values.items():  # templates render text: numbers come back as numbers
            if found.attributes[name].type == "number":
                values[name] = int(str(value))
        return values

    def plant_for(self, vendor_id: int, vendor_plant_id: str) -> Record | None:
        """Our plant for a vendor's station id (KEYS_ONLY index lookup, then a consistent read)."""
        for hit in self.rt.run(
            "plant_by_vendor_plant_id", vendor_id=vendor_id, vendor_plant_id=vendor_plant_id
        ):
            return self.rt.get("Plant", **self.natural_key("Plant", hit.key))
        return None

    def sync_vendor_alerts(
        self, vendor_id: int, vendor_plant_id: str, vendor_alerts: Iterable[Mapping[str, object]]
    ) -> SyncResult:
        """Store a vendor's alerts for one station, each vendor alert id at most once.

        Every alert is written with its de-duplication marker (vendor, station, vendor alert id) in
        one transaction: a second sync of the same alert, even a concurrent one, loses the marker's
        ``attribute_not_exists`` and is counted as a duplicate, never stored twice.
        """
        plant = self.plant_for(vendor_id, vendor_plant_id)
        if plant is None:
            raise HierarchyError(f"vendor {vendor_id} has no plant with vendor plant id {vendor_plant_id!r}")
        result = SyncResult()
        for alert in vendor_alerts:
            values = {
                **alert,
                "alert_time": alert_time(alert.get("alert_time")),
                "plant_id": plant["plant_id"],
                "alert_id": str(uuid.uuid4()),
                "vendor_id": vendor_id,
                "vendor_plant_id": vendor_plant_id,
            }
            try:
                result.created.append(self.rt.put("Alert", values).record)  # type: ignore[arg-type]
            except UniquenessError:
                result.duplicates.append(str(alert["vendor_alert_id"]))
        return result

    def resolve_alert(self, alert_id: str) -> Record:
        """Mark an alert resolved, found by its id (alert-id-index gives the table key)."""
        for hit in self.rt.run("alert_by_id", alert_id=alert_id):
            key = self.natural_key("Alert", hit.key)
            return self.rt.update("Alert", key, {"status": "RESOLVED"}).record  # type: ignore[return-value]
        raise HierarchyError(f"alert {alert_id} does not exist")
