"""The broken van design uses the same sample data as the van design: only its patterns differ."""

from __future__ import annotations

import runpy
from pathlib import Path

_VAN = runpy.run_path(str(Path(__file__).with_name("van.generate.py")))
generate = _VAN["generate"]
params = _VAN["params"]
