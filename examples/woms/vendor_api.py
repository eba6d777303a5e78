"""A stand-in for a solar vendor's monitoring API (Solis, Huawei, ... all differ; this is the shape the
sync needs), serving a JSON data file over HTTP so the sync can be run and tested offline:

    python examples/woms/vendor_api.py --data vendor.json --port 8070

``vendor.json``: ``{"<vendor_id>": {"plants": [{"vendor_plant_id", "name", "network_status",
"capacity_kw", ...}], "alerts": {"<vendor_plant_id>": [{"vendor_alert_id", "alert_time",
"severity", "message"}]}}}``. Endpoints: ``GET /vendors/{id}/plants`` and
``GET /vendors/{id}/plants/{vendor_plant_id}/alerts``, JSON; 404 for what the file does not have.
Vendors send times in their own precision and offset; the sync normalises them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote


def _served_ids(plants: object) -> set[str]:
    """The station ids of a plants list as URL text: a numeric id (``17``) is served at ``/17``; an
    entry without an id, or no object at all (test data describing a vendor wrongly), names none."""
    if not isinstance(plants, list):
        return set()
    return {
        str(plant["vendor_plant_id"])
        for plant in plants
        if isinstance(plant, dict) and plant.get("vendor_plant_id") is not None
    }


def make_handler(data: dict) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            parts = [unquote(p) for p in self.path.split("?")[0].strip("/").split("/")]
            vendor = data.get(parts[1]) if len(parts) >= 3 and parts[0] == "vendors" else None
            if not isinstance(vendor, dict):
                vendor = None
            if vendor is not None and parts[2:] == ["plants"]:
                return self._send(200, vendor.get("plants", []))
            if vendor is not None and len(parts) == 5 and parts[2] == "plants" and parts[4] == "alerts":
                alerts = vendor.get("alerts", {})
                if not isinstance(alerts, dict):
                    alerts = {}
                if parts[3] in alerts or parts[3] in _served_ids(vendor.get("plants", [])):
                    return self._send(200, alerts.get(parts[3], []))
            return self._send(404, {"error": f"no such resource {self.path}"})

        def _send(self, status: int, body: object) -> None:
            payload = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:  # quiet: tests read stdout
            pass

    return Handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="vendor-api", description="Stand-in vendor monitoring API")
    parser.add_argument("--data", required=True, help="JSON data file")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8070, help="0 picks a free port")
    args = parser.parse_args(argv)
    try:
        data = json.loads(Path(args.data).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        print(f"vendor-api: error: {args.data}: {error}", file=sys.stderr)
        return 2
    if not isinstance(data, dict):
        print(f"vendor-api: error: {args.data}: not an object of vendors by id", file=sys.stderr)
        return 2
    try:
        server = ThreadingHTTPServer((args.host, args.port), make_handler(data))
    except OSError as error:
        print(
            f"vendor-api: error: cannot listen on {args.host}:{args.port}: {error.strerror}", file=sys.stderr
        )
        return 3
    print(f"vendor-api: listening on http://{args.host}:{server.server_address[1]}", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
