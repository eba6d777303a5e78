"""How fast the explorer's pages are in a real browser: the start page, and a 1,000-item query.

Not a test (timings vary by machine). Starts ``tablewright explore examples/evse --scale 2`` (the
event-type index then holds over 1,000 telemetry events), drives Debian's Chromium through
Playwright and prints the median over ``--rounds`` of: the time to the page's load event (request
sent -> everything drawn), and the server's share of it (request -> first byte). The target is
under one second for the 1,000-item page.

    python bench/explore_bench.py [--rounds 5] [--chromium /usr/bin/chromium]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
PAGES = {
    "start page": "",
    "table page (50 items)": "tables/evse-events",
    "query, 1,000 items": "tables/evse-events?index=event-type-index&pk=telemetry&limit=1000",
    "view (timeline)": "designs/evse/views/device_timeline",
}
TIMING = """() => { const t = performance.getEntriesByType("navigation")[0];
  return {load: t.loadEventEnd - t.startTime, first_byte: t.responseStart - t.startTime,
          rows: document.querySelectorAll("#items .item").length}; }"""


def start_explorer() -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    process = subprocess.Popen(
        [sys.executable, "-c", "from tablewright.cli import main; main()", "explore", "examples/evse"]
        + ["--scale", "2", "--port", "0"],
        cwd=ROOT,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    for line in process.stderr:
        found = re.search(r"(http://\S+/) ", line)
        if found:
            return process, found.group(1)
    raise SystemExit(f"explore did not start: exit {process.wait()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    process, url = start_explorer()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            print(f"{'page':<24} {'load ms':>9} {'first byte ms':>14} {'rows':>6}")
            for name, path in PAGES.items():
                page.goto(url + path)  # warm: templates compiled, caches filled
                samples = []
                for _ in range(args.rounds):
                    page.goto(url + path, wait_until="load")
                    samples.append(page.evaluate(TIMING))
                load = statistics.median(s["load"] for s in samples)
                first = statistics.median(s["first_byte"] for s in samples)
                verdict = "" if load < 1000 else "  (over one second)"
                print(f"{name:<24} {load:>9.0f} {first:>14.0f} {samples[-1]['rows']:>6}{verdict}")
            browser.close()
    finally:
        process.terminate()
        process.wait(10)


if __name__ == "__main__":
    main()
