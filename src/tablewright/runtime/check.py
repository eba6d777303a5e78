"""Checking designs: load each, create its tables, load sample data, run every pattern both ways.

``tablewright check`` is a thin layer over ``check_designs``: this module decides what runs and
returns JSON-ready reports; presentation (tables, progress bars) is the caller's. Sample data comes
from the design's ``samples:`` and from a ``generate.py`` beside it; parameter sets from each
pattern's ``examples:`` and from ``generate.py``'s ``params()``. A pattern with neither is a failure
unless the design marks it ``unchecked: <reason>``.

On a shared endpoint (``CheckOptions.endpoint``) every table is created under a name prefix unique
to the run, an existing table of that name is refused before anything is written (unless
``reuse_tables``), and the tables the run created are deleted afterwards (unless ``keep``).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError, ParamValidationError

from ..design import DesignError, load
from ..design.model import Design
from .core import Runtime
from .samples import Example, call_flexibly, load_generator, load_sample_data
from .tables import create_tables
from .verify import Verdict, verify_pattern
from .wire import Record

# (design name, stage, done, total): stage is "loading sample data" or "running patterns".
ProgressCallback = Callable[[str, str, int, int], None]

NO_PARAMETERS = "no parameter sets: add examples: to the pattern, or unchecked: <why> to skip it"


@dataclass
class CheckOptions:
    """How to check: where (embedded engine or ``endpoint``), with which sample data, how to clean up."""

    endpoint: str | None = None
    seed: int = 1
    scale: float = 1.0
    table_prefix: str | None = None  # with an endpoint; None picks one unique to this run
    keep: bool = False  # leave the tables on the endpoint afterwards
    reuse_tables: bool = False  # write into tables that already exist on the endpoint


class TablesExistError(Exception):
    """Tables a check would create already exist on the endpoint; nothing was written."""

    def __init__(self, endpoint: str, tables: list[str]) -> None:
        self.endpoint, self.tables = endpoint, tables
        super().__init__(
            f"{len(tables)} table(s) already exist on {endpoint}: {', '.join(tables)}; check writes only "
            "into tables it creates (choose another --table-prefix, or pass --reuse-tables to write into them)"
        )


def unique_prefix() -> str:
    """A table-name prefix no other run uses: ``twcheck-<8 hex>-``."""
    return f"twcheck-{secrets.token_hex(4)}-"


@dataclass
class _Planned:
    example: Example
    report: dict[str, Any]
    design: Design | None = None
    created: list[str] = field(default_factory=list)


def design_name(example: Example, design: Design | None) -> str:
    """The design's own ``name:``, else its folder (resolved, so ``.`` has a name) or file stem."""
    if design is not None and design.name and design.name != "design":
        return design.name
    path = example.design.resolve()
    return path.parent.name if path.name == "design.yaml" else path.stem


def _plan(example: Example, prefix: str | None) -> _Planned:
    report: dict[str, Any] = {"design": str(example.design), "name": "", "patterns": [], "status": "pass"}
    planned = _Planned(example, report)
    try:
        planned.design = load(example.design)
    except DesignError as exc:
        report.update(status="invalid", error=str(exc))
    except OSError as exc:
        report.update(status="invalid", error=f"{example.design}: {exc.strerror or exc}")
    report["name"] = design_name(example, planned.design)
    if planned.design is not None and prefix:
        for table in planned.design.tables.values():
            table.physical_name = prefix + table.table_name
        report["table_prefix"] = prefix
    return planned


def _existing(client: Any, names: Iterable[str]) -> list[str]:
    found = []
    for name in names:
        try:
            client.describe_table(TableName=name)
        except ClientError as error:
            if error.response["Error"]["Code"] != "ResourceNotFoundException":
                raise
            continue
        found.append(name)
    return found


def check_designs(
    examples: list[Example], options: CheckOptions, on_progress: ProgressCallback | None = None
) -> list[dict[str, Any]]:
    """Check every example; returns one report per design (``status``: pass, fail or invalid).

    Raises ``TablesExistError`` before writing anything when, on an endpoint, a table to create
    exists and ``reuse_tables`` is not set; botocore's errors when the endpoint cannot be reached.
    """
    prefix = None
    if options.endpoint:
        prefix = options.table_prefix if options.table_prefix is not None else unique_prefix()
    plans = [_plan(example, prefix) for example in examples]
    if options.endpoint and not options.reuse_tables:
        from .. import connect

        client = connect(endpoint_url=options.endpoint)
        names = [t.table_name for p in plans if p.design for t in p.design.tables.values()]
        taken = _existing(client, names)
        if taken:
            raise TablesExistError(options.endpoint, taken)
    for planned in plans:
        if planned.design is not None:
            _run(planned, options, on_progress or (lambda *_: None))
    return [p.report for p in plans]


def _run(planned: _Planned, options: CheckOptions, on_progress: ProgressCallback) -> None:
    report, design = planned.report, planned.design
    assert design is not None
    started = time.perf_counter()
    rt = Runtime.open(design, endpoint_url=options.endpoint)
    try:
        try:
            report["tables"] = _create_tables(rt, planned, options)
        except ClientError as exc:  # e.g. two designs of one run naming the same table on an endpoint
            report.update(status="fail", error=f"tables: {exc}")
            return
        except ParamValidationError as exc:  # refused before sending: a name or size DynamoDB does not take
            said = " ".join(str(exc).split())
            report.update(
                status="fail", error=f"tables: DynamoDB refuses them: {said} (see tablewright lint)"
            )
            return
        data, param_sets = dict(design.samples), {}
        if planned.example.generator is not None:
            try:
                module = load_generator(planned.example.generator)
                for entity, values in call_flexibly(module.generate, options.seed, options.scale).items():
                    data[entity] = [*data.get(entity, []), *values]
                param_sets = call_flexibly(module.params, options.seed, options.scale)
            except Exception as exc:  # the generator is at fault: report it, go on with the next design
                report.update(status="fail", error=f"sample data: {type(exc).__name__}: {exc}")
                return
        try:
            records = _load_samples(
                rt, data, lambda done, total: on_progress(report["name"], "loading sample data", done, total)
            )
        except Exception as exc:  # an invalid sample item is a finding about the design's data
            report.update(status="fail", error=f"sample data: {type(exc).__name__}: {exc}")
            return
        report["items_loaded"] = len(records)
        _run_patterns(rt, design, param_sets, records, report, on_progress)
    finally:
        if planned.created and not options.keep:
            protected = {t.table_name for t in design.tables.values() if t.deletion_protection}
            for name in planned.created:
                try:
                    _delete_created(rt.client, name, protected=name in protected)
                except (ClientError, BotoCoreError) as exc:
                    report.setdefault("cleanup_errors", []).append(f"{name}: {exc}")
        report["seconds"] = round(time.perf_counter() - started, 3)


def _delete_created(client: Any, name: str, *, protected: bool) -> None:
    """Delete a table this run created; one the design protects from deletion is created protected
    (as the design says), so the protection this run turned on is turned off first."""
    if protected:
        client.update_table(TableName=name, DeletionProtectionEnabled=False)
    client.delete_table(TableName=name)


def _create_tables(rt: Runtime, planned: _Planned, options: CheckOptions) -> list[str]:
    """Create the design's tables one by one, remembering each one this run created."""
    done: list[str] = []
    exist_ok = options.reuse_tables or not options.endpoint
    for table in rt.design.tables.values():
        try:
            lines = create_tables(rt.client, [table], exist_ok=exist_ok)
        except ClientError as error:
            # A setting refused after CreateTable (a Kinesis stream the account lacks): the table
            # is this run's all the same, and must be cleaned up with the others.
            if error.operation_name != "CreateTable" and options.endpoint:
                planned.created.append(table.table_name)
            raise
        if f"{table.table_name}: created" in lines and options.endpoint:
            planned.created.append(table.table_name)
        done += lines
    return done


def _load_samples(
    rt: Runtime, data: dict[str, list[dict]], advance: Callable[[int, int], None]
) -> list[Record]:
    total, done = sum(len(v) for v in data.values()), 0

    def step(written: int) -> None:
        nonlocal done
        done += written
        advance(done, total)

    return load_sample_data(rt, data, step)


def _run_patterns(
    rt: Runtime,
    design: Design,
    generated: dict[str, list[dict]],
    records: list[Record],
    report: dict[str, Any],
    on_progress: ProgressCallback,
) -> None:
    runs = {
        name: [] if pattern.unchecked else [*pattern.examples, *(generated.get(name) or [])]
        for name, pattern in design.patterns.items()
    }
    total, done = sum(len(sets) for sets in runs.values()), 0
    for name, sets in runs.items():
        pattern = design.patterns[name]
        if pattern.unchecked:
            report["patterns"].append(
                {"pattern": name, "status": "skipped", "reason": f"unchecked: {pattern.unchecked}"}
            )
            continue
        if not sets:
            report["patterns"].append({"pattern": name, "status": "fail", "reason": NO_PARAMETERS})
            report["status"] = "fail"
            continue
        for params in sets:
            verdict = verify_pattern(rt, name, params, records)
            report["patterns"].append(verdict_json(verdict))
            if not verdict.ok:
                report["status"] = "fail"
            done += 1
            on_progress(report["name"], "running patterns", done, total)
    unknown = sorted(set(generated) - set(design.patterns))
    if unknown:
        report["status"] = "fail"
        report["error"] = f"parameter sets for unknown patterns: {', '.join(unknown)}"


def verdict_json(verdict: Verdict) -> dict[str, Any]:
    """One pattern run as JSON-ready data."""
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


def summarize(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """Totals over reports: designs, patterns, runs, failures, items loaded, seconds."""
    rows = [row for r in reports for row in r["patterns"]]
    return {
        "designs": len(reports),
        "patterns": len({(r["design"], row["pattern"]) for r in reports for row in r["patterns"]}),
        "runs": sum(1 for row in rows if "returned" in row),
        "failures": sum(1 for row in rows if row["status"] == "fail")
        + sum(1 for r in reports if r["status"] == "invalid" or (r.get("error") and r["status"] == "fail")),
        "skipped": sum(1 for row in rows if row["status"] == "skipped"),
        "items_loaded": sum(r.get("items_loaded", 0) for r in reports),
        "seconds": round(sum(r.get("seconds", 0.0) for r in reports), 3),
    }
