"""Capacity rules (TW406): provisioned throughput the design's own volumes outgrow at peak.

The capacity a table or GSI needs is ``tablewright cost``'s "prov. WCU/RCU" figure (average units x
``peak_factor``, rounded up to whole units, a table's LSIs included), so lint and cost never disagree.
The design model has no auto scaling: what it declares is the capacity DynamoDB is given.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from tablewright.cost.bill import Line
from tablewright.cost.estimate import Target

from ..context import Context, index_path
from ..registry import Hit, rule


@dataclass(frozen=True)
class Shortfall:
    """A table or GSI whose declared provisioned units are below what its peak needs."""

    target: Target
    inherited: bool  # a GSI without throughput of its own, running on the table's figures
    declared_rcu: int
    declared_wcu: int
    needed_rcu: int
    needed_wcu: int

    @property
    def label(self) -> str:
        """``table X`` or ``index Y of table X``."""
        if self.target.index is None:
            return f"table {self.target.table}"
        return f"index {self.target.index} of table {self.target.table}"

    @property
    def path(self) -> tuple[object, ...]:
        """Where the capacity is declared: the table's billing, the GSI's throughput, or the GSI
        itself when it inherits (the fix is to give it a throughput there)."""
        table, index = self.target.table, self.target.index
        if index is None:
            return ("tables", table, "billing")
        if self.inherited:
            return index_path(table, index)
        return (*index_path(table, index), "throughput")

    @property
    def short(self) -> str:
        """Which units run out, e.g. ``reads`` or ``reads and writes``."""
        kinds = [
            kind
            for kind, declared, needed in (
                ("reads", self.declared_rcu, self.needed_rcu),
                ("writes", self.declared_wcu, self.needed_wcu),
            )
            if declared < needed
        ]
        return " and ".join(kinds)


@rule(
    "TW406",
    "under-provisioned-capacity",
    "limits",
    "warning",
    "Provisioned billing declares less read or write capacity than the design's own volumes need at peak.",
    "With provisioned billing DynamoDB serves at most the declared read and write units per second on "
    "a table and on each GSI (burst capacity covers a few minutes at most). Past that, requests are "
    "throttled (ProvisionedThroughputExceededException); a GSI short of write capacity throttles the "
    "writes to its table too. The design model has no auto scaling, so the declared figures are all "
    "the capacity there is.",
    "Raise read/write (the table's billing, or the GSI's throughput) to at least what the peak needs, "
    "lower peak_factor if the volumes overstate the peak, or switch to billing: on_demand.",
)
def under_provisioned_capacity(ctx: Context) -> Iterator[Hit]:
    if not ctx.has_volumes:
        return  # without volumes there is no peak to hold the declared units against
    for line in ctx.bill.lines:
        shortfall = _shortfall(ctx, line)
        if shortfall is not None:
            yield Hit(shortfall.path, _message(shortfall, ctx.estimate.peak_factor), _fix(shortfall))


def _shortfall(ctx: Context, line: Line) -> Shortfall | None:
    """The line's declared vs needed units when it is provisioned and short; None otherwise."""
    target = ctx.estimate.targets.get(line.target)
    # An LSI has no capacity of its own: its units are in its table's line.
    if target is None or target.kind == "local" or line.declared_mode != "provisioned":
        return None
    read, write = line.declared_units
    if read >= line.provisioned_rcu and write >= line.provisioned_wcu:
        return None
    return Shortfall(
        target,
        _inherits(ctx, target),
        read,
        write,
        line.provisioned_rcu,
        line.provisioned_wcu,
    )


def _inherits(ctx: Context, target: Target) -> bool:
    """True for a GSI that declares no throughput and so runs on its table's figures."""
    if target.index is None:
        return False
    index = ctx.design.tables[target.table].indexes[target.index]
    return index.throughput is None


def _message(shortfall: Shortfall, peak_factor: float) -> str:
    declared = f"{shortfall.declared_rcu} RCU / {shortfall.declared_wcu} WCU"
    source = "inherits the table's" if shortfall.inherited else "declares"
    return (
        f"{shortfall.label} {source} provisioned {declared}; its peak (declared volumes x peak_factor "
        f"{peak_factor:g}) needs {shortfall.needed_rcu} RCU / {shortfall.needed_wcu} WCU: "
        f"{shortfall.short} throttle at peak"
    )


def _fix(shortfall: Shortfall) -> str:
    read = max(shortfall.declared_rcu, shortfall.needed_rcu)
    write = max(shortfall.declared_wcu, shortfall.needed_wcu)
    if shortfall.target.index is None:
        setting = f"billing: {{mode: provisioned, read: {read}, write: {write}}}"
        return f"Declare at least {setting} on the table, or switch it to billing: on_demand."
    return (
        f"Give the index at least throughput: {{read: {read}, write: {write}}}, or switch the table to "
        "billing: on_demand."
    )
