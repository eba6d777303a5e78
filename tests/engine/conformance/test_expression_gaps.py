"""Expression behaviours where the engine used to differ from DynamoDB (gaps listed in docs/fidelity.md)."""

from __future__ import annotations
