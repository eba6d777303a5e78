"""``tablewright check PATH...``: run every access pattern of a design both ways and compare.

For each design, on a fresh embedded engine (or ``--endpoint``): load and validate, create tables,
load the example's sample data through the runtime, then for every pattern and parameter set
compare ``means`` (evaluated in memory) with ``served`` (run through DynamoDB).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click
import orjson
from rich.console import Console
from rich.progress import Progress
from rich.table import Table as RichTable

from ..design import DesignError, load
from ..runtime import Runtime
from ..runtime.samples import Example, call_flexibly, find_examples, load_generator, load_sample_data
from ..runtime.verify import Verdict, verify_pattern
from ..runtime.wire import Record


def _load_samples(rt: Runtime, data: dict[str, list[dict]], console: Console, quiet: bool) -> list[Record]:
    total = sum(len(v) for v in data.values())
    with Progress(console=console, disable=quiet or not console.is_terminal, transient=True) as progress:
        task = progress.add_task("loading sample data", total=total)
        return load_sample_data(rt, data, lambda n: progress.advance(task, n))


def check_example(
    example: Example, endpoint: str | None, seed: int, scale: float, console: Console, quiet: bool
) -> dict:
    """Check one design; returns a JSON-ready report (``status``: pass, fail or invalid)."""
    report: dict = {"design": str(example.design), "name": example.name, "patterns": [], "status": "pass"}
    started = time.perf_counter()
    try:
        design = load(example.design)
    except DesignError as exc:
        report.update(status="invalid", error=str(exc))
        return report
    rt = Runtime.open(design, endpoint_url=endpoint)
    report["tables"] = rt.create_tables()
    records: list[Record] = []
    param_sets: dict[str, list[dict]] = {}
    if example.generator is not None:
        try:
            module = load_generator(example.generator)
            records = _load_samples(rt, call_flexibly(module.generate, seed, scale), console, quiet)
            param_sets = call_flexibly(module.params, seed, scale)
        except Exception as exc:  # the generator or the data is at fault: report it, go on
            report.update(status="fail", error=f"sample data: {type(exc).__name__}: {exc}")
            return report
    report["items_loaded"] = len(records)
    for name in design.patterns:
        sets = param_sets.get(name) or []
        if not sets:
            report["patterns"].append({"pattern": name, "status": "skipped", "reason": "no parameter sets"})
        for params in sets:
            verdict = verify_pattern(rt, name, params, records)
            report["patterns"].append(_verdict_json(verdict))
            if not verdict.ok:
                report["status"] = "fail"
    unknown = sorted(set(param_sets) - set(design.patterns))
    if unknown:
        report["status"] = "fail"
        report["error"] = f"parameter sets for unknown patterns: {', '.join(unknown)}"
    report["seconds"] = round(time.perf_counter() - started, 3)
    return report


def _verdict_json(verdict: Verdict) -> dict:
    return {
        "pattern": verdict.pattern,
        "params": {
            k: v if isinstance(v, str | int | float | bool) or v is None else repr(v)
            for k, v in verdict.params.items()
        },
        "status": "pass" if verdict.ok else "fail",
        "detail": verdict.summary(),
        "expected": verdict.expected,
        "returned": verdict.returned,
        "missing": verdict.missing,
        "extra": verdict.extra,
        "out_of_order": verdict.out_of_order,
        **verdict.stats.as_dict(),
    }


def _print_report(console: Console, report: dict) -> None:
    status_style = {"pass": "green", "fail": "red", "invalid": "red", "skipped": "yellow"}
    head = f"[bold]{report['name']}[/bold] ({report['design']}): "
    console.print(head + f"[{status_style[report['status']]}]{report['status']}[/]")
    if report.get("error"):
        console.print(report["error"], markup=False, highlight=False)
    if not report["patterns"]:
        return
    table = RichTable(show_header=True, header_style="bold")
    for column in ("pattern", "status", "read", "returned", "RCU", "ms", "detail"):
        table.add_column(column, justify="right" if column in ("read", "returned", "RCU", "ms") else "left")
    for row in report["patterns"]:
        style = status_style[row["status"]]
        table.add_row(
            row["pattern"],
            f"[{style}]{row['status']}[/]",
            str(row.get("items_read", "")),
            str(row.get("items_returned", "")),
            f"{row['consumed_capacity']:.1f}" if "consumed_capacity" in row else "",
            f"{row['latency_ms']:.1f}" if "latency_ms" in row else "",
            row.get("detail") or row.get("reason", ""),
        )
    console.print(table)


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--endpoint", "endpoint", default=None, help="DynamoDB endpoint URL instead of a fresh embedded engine."
)
@click.option("--scale", default=1.0, show_default=True, help="Sample data size multiplier.")
@click.option("--seed", default=1, show_default=True, help="Sample data random seed.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def check(paths: tuple[Path, ...], endpoint: str | None, scale: float, seed: int, fmt: str) -> None:
    """Validate designs, load sample data and check every access pattern's served against means."""
    console = Console(stderr=fmt == "json")
    examples = find_examples(list(paths))
    if not examples:
        raise click.UsageError(f"no design files found in {', '.join(map(str, paths))}")
    reports = [
        check_example(example, endpoint, seed, scale, console, quiet=fmt == "json") for example in examples
    ]
    if fmt == "json":
        sys.stdout.write(
            orjson.dumps({"designs": reports}, default=repr, option=orjson.OPT_INDENT_2).decode() + "\n"
        )
    else:
        for report in reports:
            _print_report(console, report)
    statuses = {r["status"] for r in reports}
    if "invalid" in statuses:
        sys.exit(2)
    if "fail" in statuses:
        sys.exit(1)
