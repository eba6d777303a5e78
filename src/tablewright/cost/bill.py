"""The monthly bill for an ``Estimate``: on-demand and provisioned, break-even, free tier apart.

Provisioned capacity is sized at the peak (average x ``peak_factor``, rounded up, at least 1 unit)
per table and per GSI (an LSI shares its table's capacity); a month is ``hours_per_month`` hours.
The free tier (25 WCU, 25 RCU, 25 GB of Standard storage, 2.5M stream reads) is account-wide per
region, so it is shown as a separate credit and never folded into the per-table figures. On-demand
request units and Standard-IA storage get no free tier.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .estimate import SECONDS_PER_MONTH, Estimate, Target
from .prices import Prices

GB = 1024**3


@dataclass
class Line:
    """One table or GSI: its monthly cost both ways."""

    target: str
    storage_gb: float
    write_units: float
    read_units: float
    on_demand: dict[str, float]
    provisioned_wcu: int
    provisioned_rcu: int
    provisioned: dict[str, float]
    declared: dict[str, float] = field(default_factory=dict)  # as the design's billing says
    declared_mode: str = "on_demand"
    declared_units: tuple[int, int] = (0, 0)  # read, write: provisioned as declared
    table_class: str = "STANDARD"


@dataclass
class Bill:
    """Monthly totals, per line, plus break-even and free-tier figures."""

    lines: list[Line] = field(default_factory=list)
    on_demand: float = 0.0
    provisioned: float = 0.0
    streams: float = 0.0  # stream reads by a non-Lambda consumer, after the free tier
    break_even: dict[str, float] = field(default_factory=dict)
    utilisation: float = 0.0
    free_tier: dict[str, float | bool] = field(default_factory=dict)
    declared: float = 0.0  # the bill under the billing the design declares
    under_provisioned: list[str] = field(default_factory=list)  # declared units below the peak
    # Point-in-time recovery per table (in every total above) and, apart, what one on-demand backup of
    # every table kept for a month, one restore of them all, and one full export cost.
    pitr: dict[str, float] = field(default_factory=dict)
    backup_gb: float = 0.0
    backup_month: float = 0.0
    restore: float = 0.0
    export: float = 0.0

    @property
    def cheaper(self) -> str:
        """``on_demand`` or ``provisioned``, whichever bills less."""
        return "provisioned" if self.provisioned < self.on_demand else "on_demand"


def _capacity(units_per_month: float, peak_factor: float) -> int:
    return max(1, math.ceil(units_per_month / SECONDS_PER_MONTH * peak_factor - 1e-9))


def _storage_gb(target: Target) -> float:
    return target.storage_bytes / GB


def price(estimate: Estimate, prices: Prices) -> Bill:
    """Price an estimate both ways."""
    bill = Bill(break_even=prices.break_even())
    lsi_units: dict[str, tuple[float, float]] = {}
    for target in estimate.targets.values():
        if target.kind == "local":
            w, r = lsi_units.get(target.table, (0.0, 0.0))
            lsi_units[target.table] = (w + target.write_units, r + target.read_units)
    for target in estimate.targets.values():
        multiplier = prices.throughput_multiplier.get(target.table_class, 1.0)
        storage = _storage_gb(target) * prices.storage_gb_month.get(target.table_class, 0.25)
        on_demand = {
            "write": target.write_units * prices.write_request_unit * multiplier,
            "read": target.read_units * prices.read_request_unit * multiplier,
            "storage": storage,
        }
        if target.kind == "local":
            wcu = rcu = 0  # served from the table's provisioned capacity
        else:
            extra_w, extra_r = (
                lsi_units.get(target.table, (0.0, 0.0)) if target.kind == "table" else (0.0, 0.0)
            )
            wcu = _capacity(target.write_units + extra_w, estimate.peak_factor)
            rcu = _capacity(target.read_units + extra_r, estimate.peak_factor)
        hours = prices.hours_per_month
        provisioned = {
            "write": wcu * prices.wcu_hour * hours * multiplier,
            "read": rcu * prices.rcu_hour * hours * multiplier,
            "storage": storage,
        }
        line = Line(
            target.name,
            _storage_gb(target),
            target.write_units,
            target.read_units,
            on_demand,
            wcu,
            rcu,
            provisioned,
            table_class=target.table_class,
        )
        _declared(line, target, prices, multiplier, storage, bill)
        bill.lines.append(line)
        bill.on_demand += sum(on_demand.values())
        bill.provisioned += sum(provisioned.values())
        bill.declared += sum(line.declared.values())
    provisioned_units = sum(line.provisioned_wcu + line.provisioned_rcu for line in bill.lines)
    used = sum(line.write_units + line.read_units for line in bill.lines) / SECONDS_PER_MONTH
    # Average use of what is provisioned: peak_factor and rounding up to whole units both lower it.
    bill.utilisation = used / provisioned_units if provisioned_units else 0.0
    records = sum(estimate.stream_records.values())
    bill.streams = max(0.0, records - prices.free_tier["stream_read_requests"]) * prices.stream_read_request
    bill.free_tier = _free_tier(bill, prices)
    _backups(estimate, prices, bill)
    return bill


def _backups(estimate: Estimate, prices: Prices, bill: Bill) -> None:
    """PITR and backups are billed on a table's size with its local indexes (global indexes are rebuilt
    on restore, not backed up). PITR is a monthly charge of the design, so it joins every total."""
    sizes: dict[str, float] = {}
    for target in estimate.targets.values():
        if target.kind != "global":
            sizes[target.table] = sizes.get(target.table, 0.0) + _storage_gb(target)
    for table in estimate.pitr_tables:
        bill.pitr[table] = sizes.get(table, 0.0) * prices.pitr_gb_month
    pitr = sum(bill.pitr.values())
    bill.on_demand += pitr
    bill.provisioned += pitr
    bill.declared += pitr
    bill.backup_gb = sum(sizes.values())
    bill.backup_month = bill.backup_gb * prices.backup_gb_month
    bill.restore = bill.backup_gb * prices.restore_gb
    bill.export = bill.backup_gb * prices.export_gb


def _declared(
    line: Line, target: Target, prices: Prices, multiplier: float, storage: float, bill: Bill
) -> None:
    """Price the line as the design's billing declares it, and note capacity below the peak."""
    mode, read, write = target.declared
    line.declared_mode = mode
    if mode != "provisioned":
        line.declared = dict(line.on_demand)
        return
    if target.kind == "local":
        read = write = 0  # an LSI uses its table's capacity
    line.declared_units = (read, write)
    hours = prices.hours_per_month
    line.declared = {
        "write": write * prices.wcu_hour * hours * multiplier,
        "read": read * prices.rcu_hour * hours * multiplier,
        "storage": storage,
    }
    if target.kind != "local" and (write < line.provisioned_wcu or read < line.provisioned_rcu):
        bill.under_provisioned.append(
            f"{target.name}: declares {read} RCU / {write} WCU, the peak needs {line.provisioned_rcu} RCU / "
            f"{line.provisioned_wcu} WCU: requests throttle at peak"
        )


def _free_tier(bill: Bill, prices: Prices) -> dict[str, float | bool]:
    """The free tier's value against this design alone (it is shared by the whole account)."""
    free = prices.free_tier
    # The 25 GB free are Standard storage (facts A: "Storage, Standard ... first 25 GB free"; the
    # Standard-IA row has none): Standard-IA storage is never credited, nor valued at the Standard price.
    gb = sum(line.storage_gb for line in bill.lines if line.table_class == "STANDARD")
    paid_gb = sum(line.storage_gb for line in bill.lines if line.table_class != "STANDARD")
    storage = min(gb, free["storage_gb"]) * prices.storage_gb_month["STANDARD"]
    wcu = sum(line.provisioned_wcu for line in bill.lines)
    rcu = sum(line.provisioned_rcu for line in bill.lines)
    hours = prices.hours_per_month
    capacity = (
        min(wcu, free["wcu"]) * prices.wcu_hour * hours + min(rcu, free["rcu"]) * prices.rcu_hour * hours
    )
    return {
        "storage": storage,
        "provisioned_capacity": capacity,
        "on_demand_after_free_tier": max(0.0, bill.on_demand - storage),
        "provisioned_after_free_tier": max(0.0, bill.provisioned - storage - capacity),
        "within_free_tier_provisioned": wcu <= free["wcu"]
        and rcu <= free["rcu"]
        and gb <= free["storage_gb"]
        and not paid_gb,
    }
