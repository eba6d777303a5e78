"""What the explorer looks at: one DynamoDB client, and for each design given its runtime.

Without ``--db``/``--endpoint`` every design's sample data (its example's ``generate.py``) is
written through the runtime into one fresh in-memory engine, so ``tablewright explore examples/evse``
shows something at once.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from .. import connect, engine_of
from ..design import Design, DesignError, load
from ..runtime import Runtime
from ..runtime.direct import data_client
from ..runtime.samples import call_flexibly, find_examples, load_generator, load_sample_data

EXIT_UNUSABLE_INPUT, EXIT_ENVIRONMENT = 2, 3


class ExploreError(Exception):
    """A reason the explorer cannot start, with the CLI exit status it maps to."""

    def __init__(self, message: str, exit_code: int = EXIT_UNUSABLE_INPUT) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass
class Workspace:
    """One design: its runtime over the shared client and the sample parameter sets of its patterns."""

    name: str
    path: Path
    design: Design
    runtime: Runtime
    param_sets: dict[str, list[dict]] = field(default_factory=dict)

    def table_by_physical_name(self, physical: str) -> Any:
        """The design table stored under ``physical`` (None when the design has no such table)."""
        return next((t for t in self.design.tables.values() if t.table_name == physical), None)


@dataclass
class Explorer:
    """The client, the streams client, the designs, and whether writes are allowed."""

    client: Any
    streams: Any
    source: str
    writable: bool = False
    workspaces: dict[str, Workspace] = field(default_factory=dict)

    @property
    def data(self) -> Any:
        """The client for reads and writes of items: the runtime's direct path to an in-process
        engine (same requests, responses and errors, without botocore's per-call cost)."""
        if not hasattr(self, "_data"):
            self._data = data_client(self.client)
        return self._data

    def design_of_table(self, physical: str) -> tuple[Workspace, Any] | tuple[None, None]:
        """The workspace and design table a physical table belongs to, if a design declares it."""
        for workspace in self.workspaces.values():
            table = workspace.table_by_physical_name(physical)
            if table is not None:
                return workspace, table
        return None, None

    def workspace(self, name: str) -> Workspace:
        """The workspace ``name``; ``KeyError`` when there is none."""
        return self.workspaces[name]


def _client(db: str | None, endpoint: str | None) -> tuple[Any, Any, str]:
    if endpoint is not None:
        if not endpoint.startswith(("http://", "https://")):
            raise ExploreError(f"--endpoint {endpoint!r} is not an http(s) URL")
        client = connect(endpoint_url=endpoint)
        try:
            client.list_tables(Limit=1)
        except (BotoCoreError, ClientError) as exc:
            raise ExploreError(f"endpoint {endpoint} is not reachable: {exc}", EXIT_ENVIRONMENT) from None
        return client, connect(endpoint_url=endpoint, service="dynamodbstreams"), f"endpoint {endpoint}"
    if db is not None:
        if not os.path.isfile(db):
            raise ExploreError(f"--db {db}: no such file (explore opens an existing database)")
        try:
            client = connect(db)
        except Exception as exc:  # the engine says what is wrong with the file; say where
            raise ExploreError(f"--db {db}: {exc}") from None
        source = f"database {db}"
    else:
        client, source = connect(), "sample data in memory"
    return client, connect(engine=engine_of(client), service="dynamodbstreams"), source


def open_explorer(
    paths: list[Path],
    *,
    db: str | None = None,
    endpoint: str | None = None,
    writable: bool = False,
    seed: int = 1,
    scale: float = 1.0,
) -> Explorer:
    """Connect, load every design under ``paths`` and, on a fresh engine, its sample data."""
    examples = find_examples(paths)  # OSError naming the path; a folder without designs is one
    designs = []
    for example in examples:
        try:
            designs.append((example, load(example.design)))
        except DesignError as exc:
            raise ExploreError(" ".join(line.strip() for line in str(exc).splitlines())) from None
    client, streams, source = _client(db, endpoint)
    explorer = Explorer(client, streams, source, writable)
    fresh = db is None and endpoint is None
    for example, design in designs:
        name = _unique(example.name, explorer.workspaces)
        rt = Runtime(design, client)
        workspace = Workspace(name, example.design, design, rt)
        # As `tablewright check` takes them: the design's samples and examples, then the generator's.
        data = {entity: list(items) for entity, items in design.samples.items()}
        workspace.param_sets = {n: list(p.examples) for n, p in design.patterns.items() if p.examples}
        if example.generator is not None:
            try:
                module = load_generator(example.generator)
                for entity, values in call_flexibly(module.generate, seed, scale).items():
                    data[entity] = [*data.get(entity, []), *values]
                for pattern, sets in call_flexibly(module.params, seed, scale).items():
                    workspace.param_sets[pattern] = [*workspace.param_sets.get(pattern, []), *sets]
            except Exception as exc:  # the example's own code is at fault: say which file
                raise ExploreError(f"{example.generator}: sample data: {type(exc).__name__}: {exc}") from None
        if fresh:
            try:
                rt.create_tables()
            except Exception as exc:  # a table DynamoDB refuses (an imported index named "g"): say so
                message = " ".join(str(exc).split())
                raise ExploreError(f"{example.design}: its tables cannot be created: {message}") from None
            try:
                load_sample_data(rt, data)
            except Exception as exc:  # an item the design refuses: a finding about its sample data
                raise ExploreError(f"{example.design}: sample data: {type(exc).__name__}: {exc}") from None
        explorer.workspaces[name] = workspace
    return explorer


def _unique(name: str, taken: dict) -> str:
    candidate, n = name, 2
    while candidate in taken:
        candidate, n = f"{name}-{n}", n + 1
    return candidate
