"""Run every benchmark and rewrite docs/benchmarks.md: ``python bench/run.py`` (``--quick`` for a smoke run).

Each module in ``BENCHMARKS`` exposes ``section(quick: bool) -> measure.Section``; this runs them in
order, one after the other, and writes their sections under a head giving the date, the machine and
the load average before and after. ``--only NAME`` runs some of them and replaces just their sections.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
import time
from pathlib import Path

from measure import Section, machine
from rich.console import Console

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "benchmarks.md"
# Module names in bench/, in the order their sections appear in docs/benchmarks.md.
BENCHMARKS: list[str] = [
    "writers_bench",
    "sensor_api_bench",
    "bulk_bench",
    "results_bench",
    "engine_bench",
    "server_bench",
]

console = Console(stderr=True)


def run(names: list[str], quick: bool) -> list[Section]:
    sections = []
    for name in names:
        started = time.monotonic()
        console.rule(name)
        module = importlib.import_module(name)
        sections.append(module.section(quick))
        console.log(f"{name}: {time.monotonic() - started:.0f} s")
    return sections


def write(sections: list[Section], before: str, after: str) -> None:
    """Replace each section's part of docs/benchmarks.md (or add it) and the head of the file."""
    text = DOCS.read_text() if DOCS.exists() else ""
    body = re.split(r"^## ", text, flags=re.M)
    kept = {part.split("\n", 1)[0].strip(): "## " + part for part in body[1:]}
    for section in sections:
        kept[section.title] = section.markdown()
    head = (
        "# Benchmarks\n\n"
        "Written by `python bench/run.py`. Every comparison alternates the systems in short slices within\n"
        "one run and gives the median of the per-slice figures with their spread, never the best slice.\n\n"
        f"- started: {before}\n- finished: {after}\n\n"
    )
    order = [s.title for s in sections] + [t for t in kept if t not in {s.title for s in sections}]
    DOCS.write_text(head + "\n".join(kept[t].rstrip("\n") + "\n" for t in order))


def _missing(name: str) -> str | None:
    """What benchmark ``name`` needs and this machine lacks (its module's ``missing()``, if it has one)."""
    check = getattr(importlib.import_module(name), "missing", None)
    return check() if check else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few slices each: checks the scripts run")
    parser.add_argument("--only", action="append", choices=BENCHMARKS, help="run only this benchmark")
    parser.add_argument("--no-docs", action="store_true", help="print the sections, leave the docs alone")
    args = parser.parse_args()
    names = args.only or BENCHMARKS
    # Before any runs: a tool missing for the last benchmark must not cost the minutes of the others.
    problems = [problem for name in names if (problem := _missing(name))]
    if problems:
        raise SystemExit("\n".join(problems))
    before = machine()
    sections = run(names, args.quick)
    after = machine()
    for section in sections:
        print(section.markdown())
    if not args.no_docs and not args.quick:
        write(sections, before, after)
        console.log(f"updated {DOCS}")


if __name__ == "__main__":
    sys.exit(main())
