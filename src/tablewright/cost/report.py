"""Cost output: one JSON-ready dict (``build``), rendered as text (rich) or Markdown.

The dict is the contract; text and Markdown are views of it, so the three formats never disagree.
"""

from __future__ import annotations

from typing import Any

from .bill import Bill, price
from .estimate import PARTITION_RCU, PARTITION_WCU, Estimate, estimate
from .prices import Prices, default_prices


def build(
    design: Any, prices: Prices | None = None, measured: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Estimate and price a design; ``measured`` (from ``--measure``) is put beside the estimate."""
    prices = prices or default_prices()
    est = estimate(design)
    bill = price(est, prices)
    return _as_dict(est, bill, prices, measured)


def _measured(found: Any) -> dict[str, Any]:
    """A pattern's measurement fields (a bare number from older callers is the units alone)."""
    if not isinstance(found, dict):
        return {"measured_read_units_per_call": found}
    return {
        "measured_read_units_per_call": found["units"],
        "measured_items_read_per_call": found["items_read"],
        "modelled_read_units_per_call": found["modelled"],
        "measure_tolerance": found["tolerance"],
        "measure_agrees": found["agrees"],
    }


def _as_dict(est: Estimate, bill: Bill, prices: Prices, measured: dict[str, Any] | None) -> dict[str, Any]:
    lines = {line.target: line for line in bill.lines}
    targets = []
    for name, target in est.targets.items():
        line = lines[name]
        targets.append(
            {
                "name": name,
                "kind": target.kind,
                "items": round(target.items),
                "entry_bytes": round(target.entry_bytes),
                "storage_gb": line.storage_gb,
                "write_units_per_month": target.write_units,
                "read_units_per_month": target.read_units,
                "peak_partition_wcu": target.partition_wcu,
                "peak_partition_rcu": target.partition_rcu,
                "on_demand": line.on_demand,
                "provisioned_capacity": {"wcu": line.provisioned_wcu, "rcu": line.provisioned_rcu},
                "provisioned": line.provisioned,
            }
        )
    patterns = [
        {
            "name": p.name,
            "target": p.target,
            "op": p.op,
            "calls_per_month": p.calls,
            "items_per_call": p.items_per_call,
            "read_units_per_call": p.units_per_call,
            "consistency": p.consistency,
            "read_units_per_month": p.read_units,
            "typical_read_units_per_call": p.typical_units_per_call,
            **_measured((measured or {}).get(p.name)),
        }
        for p in est.patterns
    ]
    return {
        "design": est.design,
        "prices": {"region": prices.region, "effective": prices.effective, "source": prices.source},
        "peak_factor": est.peak_factor,
        "targets": targets,
        "patterns": patterns,
        "streams": {"records_per_month": est.stream_records, "non_lambda_read_cost": bill.streams},
        "ttl_deletes_per_month": est.ttl_deletes,
        "monthly": {"on_demand": bill.on_demand, "provisioned": bill.provisioned, "cheaper": bill.cheaper},
        "break_even_utilisation": bill.break_even,
        "utilisation": bill.utilisation,
        "free_tier": bill.free_tier,
        "partition_limits": {"wcu": PARTITION_WCU, "rcu": PARTITION_RCU},
        "declared_billing": {
            "monthly": bill.declared,
            "modes": {line.target: line.declared_mode for line in bill.lines},
            "under_provisioned": bill.under_provisioned,
        },
        "storage_growth_gb_per_month": est.storage_growth,
        "backups": {
            "pitr_per_month": bill.pitr,
            "backed_up_gb": bill.backup_gb,
            "on_demand_backup_per_month": bill.backup_month,
            "restore_each": bill.restore,
            "export_each": bill.export,
        },
        "volumes_declared": est.volumes_declared,
        "assumptions": est.assumptions,
    }


NO_VOLUMES = (
    "No volumes declared (items, write and read rates): every figure below is $0 until `volumes:` says "
    "how many items exist and how often each entity is written and each pattern read"
)


def _money(value: float) -> str:
    # Sub-cent figures keep 4 decimals (the van design is cents a month); float dust prints as 0.
    return f"${value:,.2f}" if abs(value) >= 0.01 or abs(value) < 5e-5 else f"${value:,.4f}"


def _units(value: float) -> str:
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= size:
            return f"{value / size:,.2f}{suffix}"
    return f"{value:,.1f}"


def _peak(value: float | None) -> str:
    return "-" if value is None else f"{value:,.2f}/s"


def rows(data: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The per-table/index table: header and rows (shared by text and Markdown)."""
    header = [
        "table/index",
        "items",
        "storage GB",
        "WRU/month",
        "RRU/month",
        "on-demand",
        "prov. WCU/RCU",
        "provisioned",
        "peak/key W",
        "peak/key R",
    ]
    body = [
        [
            t["name"],
            f"{t['items']:,}",
            f"{t['storage_gb']:.4f}",
            _units(t["write_units_per_month"]),
            _units(t["read_units_per_month"]),
            _money(sum(t["on_demand"].values())),
            f"{t['provisioned_capacity']['wcu']}/{t['provisioned_capacity']['rcu']}",
            _money(sum(t["provisioned"].values())),
            _peak(t["peak_partition_wcu"]),
            _peak(t["peak_partition_rcu"]),
        ]
        for t in data["targets"]
    ]
    return header, body


def summary(data: dict[str, Any]) -> list[str]:
    """The bill's headline lines."""
    monthly, free, be = data["monthly"], data["free_tier"], data["break_even_utilisation"]
    lines = [] if data["volumes_declared"] else [NO_VOLUMES]
    declared = data["declared_billing"]
    modes = sorted({m.replace("_", "-") for m in declared["modes"].values()})
    lines += [
        f"As declared ({', '.join(modes) or 'no tables'} billing in the design): {_money(declared['monthly'])}/month",
        *(f"Under-provisioned: {u}" for u in declared["under_provisioned"]),
    ]
    lines += [
        f"On-demand:   {_money(monthly['on_demand'])}/month",
        f"Provisioned: {_money(monthly['provisioned'])}/month (sized at peak = average x {data['peak_factor']:g}, 730 h)",
        f"Cheaper: {monthly['cheaper'].replace('_', '-')}. Break-even utilisation {be['write']:.1%} "
        f"(this design would use {data['utilisation']:.1%} of the capacity provisioned for its peak)",
        f"Free tier (account-wide, shown apart): storage worth {_money(free['storage'])}, "
        f"provisioned capacity worth {_money(free['provisioned_capacity'])}; after it: on-demand "
        f"{_money(free['on_demand_after_free_tier'])}, provisioned {_money(free['provisioned_after_free_tier'])} "
        "(on-demand request units have no free tier)",
    ]
    if data["streams"]["records_per_month"]:
        records = sum(data["streams"]["records_per_month"].values())
        lines.append(
            f"Streams: {_units(records)} records/month; free for Lambda triggers, "
            f"{_money(data['streams']['non_lambda_read_cost'])}/month for another consumer reading one record per request"
        )
    for table, gb in data["storage_growth_gb_per_month"].items():
        lines.append(
            f"Storage of {table} grows by {gb:,.3g} GB a month: its TTL attribute is not epoch seconds"
        )
    backups = data["backups"]
    if backups["pitr_per_month"]:
        tables = ", ".join(f"{t} {_money(c)}" for t, c in backups["pitr_per_month"].items())
        lines.append(f"Point-in-time recovery (included above): {tables} a month")
    if backups["backed_up_gb"]:
        lines.append(
            f"Backups ({backups['backed_up_gb']:,.3g} GB of tables and local indexes): each on-demand backup "
            f"kept costs {_money(backups['on_demand_backup_per_month'])}/month; a restore "
            f"{_money(backups['restore_each'])}; a full export {_money(backups['export_each'])}"
        )
    if data["ttl_deletes_per_month"]:
        lines.append(f"TTL deletes: {_units(sum(data['ttl_deletes_per_month'].values()))}/month, free")
    prices = data["prices"]
    lines.append(f"Prices: {prices['region']} effective {prices['effective']} ({prices['source']})")
    return lines


def pattern_rows(data: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Per-pattern read units, with measured figures when present."""
    header = [
        "pattern",
        "target",
        "op",
        "calls/month",
        "items/call",
        "RRU/call",
        "RRU/month",
        "measured RRU/call",
    ]
    body = [
        [
            p["name"],
            p["target"],
            p["op"],
            _units(p["calls_per_month"]),
            f"{p['items_per_call']:,.1f}",
            f"{p['read_units_per_call']:,.1f}"
            + (
                f" (typical {p['typical_read_units_per_call']:,.1f})"
                if p["typical_read_units_per_call"] is not None
                else ""
            ),
            _units(p["read_units_per_month"]),
            _measured_cell(p),
        ]
        for p in data["patterns"]
    ]
    return header, body


def _measured_cell(p: dict[str, Any]) -> str:
    if p["measured_read_units_per_call"] is None:
        return "-"
    cell = f"{p['measured_read_units_per_call']:,.2f}"
    if "modelled_read_units_per_call" in p:
        verdict = "agrees" if p["measure_agrees"] else "DIFFERS"
        cell += (
            f" ({p['measured_items_read_per_call']:,.1f} items; rules give "
            f"{p['modelled_read_units_per_call']:,.2f}, {verdict} within {p['measure_tolerance']:,.2f})"
        )
    return cell


def to_markdown(data: dict[str, Any]) -> str:
    """The report as Markdown tables (for READMEs and pull requests)."""
    out = [f"## Cost estimate: {data['design']}", ""]
    for header, body in (rows(data), pattern_rows(data)):
        out.append("| " + " | ".join(header) + " |")
        out.append("|" + "---|" * len(header))
        out.extend("| " + " | ".join(row) + " |" for row in body)
        out.append("")
    out.extend(f"- {line}" for line in summary(data))
    out.extend(f"- Assumption: {a}" for a in data["assumptions"])
    return "\n".join(out) + "\n"


def render_text(data: dict[str, Any], console: Any) -> None:
    """Print the report with rich tables."""
    from rich.table import Table

    for title, (header, body) in (
        (f"{data['design']}: tables and indexes", rows(data)),
        ("access patterns", pattern_rows(data)),
    ):
        table = Table(title=title, title_justify="left")
        for column in header:
            table.add_column(
                column, justify="left" if column in ("table/index", "pattern", "target", "op") else "right"
            )
        for row in body:
            table.add_row(*row)
        console.print(table)
    for line in summary(data):
        console.print(line, highlight=False, soft_wrap=True)
    for assumption in data["assumptions"]:
        console.print(f"[dim]assumption: {assumption}[/dim]", highlight=False, soft_wrap=True)
