"""The remote backends of the conformance suite: a ``tablewright serve`` process, any other endpoint,
and the table namespace that keeps each test's tables apart from every other table there.

A namespace is a prefix put on every table name a test sends and taken off every string that
comes back (names, ARNs, error messages), so a test written against a fresh in-memory engine runs
unchanged against a shared server or a real AWS account, and leaves nothing behind: every table it
created is deleted when the test ends. Names that the prefix would make invalid (too long), and names
that are invalid anyway (tests of the naming rules), are sent as written.
"""

from __future__ import annotations

import copy
import functools
import ipaddress
import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

# Environment variables of the harness (documented in docs/conformance.md).
ENDPOINT_VARIABLE = "TABLEWRIGHT_ENDPOINT"
OPT_IN_VARIABLE = "TABLEWRIGHT_ENDPOINT_ALLOW_REMOTE"
OPT_IN_VALUE = "create-and-delete-tables"

# One attempt, as the in-process client makes: a retry would hide the error a test expects.
NO_RETRY = Config(retries={"total_max_attempts": 1}, connect_timeout=10, read_timeout=60)

_VALID_TABLE_NAME = re.compile(r"[A-Za-z0-9_.-]{3,255}")
_TABLE_IN_ARN = re.compile(r"(arn:[^:]*:dynamodb:[^:]*:[^:]*:table/)([A-Za-z0-9_.-]+)")
# Keys whose string value is a table name, at any depth of a request.
_NAME_KEYS = re.compile(r".*TableName$")
# Keys whose dict value is keyed by table names (BatchGetItem, BatchWriteItem).
_KEYED_BY_TABLE = frozenset({"RequestItems"})
_SESSION = uuid.uuid4().hex[:6]


def is_loopback(url: str) -> bool:
    """Whether ``url`` points at this machine (so no real account can be reached through it)."""
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def endpoint_from_environment() -> str:
    """``TABLEWRIGHT_ENDPOINT``, refused for a non-loopback host unless explicitly opted in."""
    url = os.environ.get(ENDPOINT_VARIABLE, "")
    if not url:
        raise RuntimeError(f"TABLEWRIGHT_BACKEND=endpoint needs {ENDPOINT_VARIABLE}=URL")
    if not is_loopback(url) and os.environ.get(OPT_IN_VARIABLE) != OPT_IN_VALUE:
        raise RuntimeError(
            f"{ENDPOINT_VARIABLE}={url} is not on this machine: the suite creates and deletes tables there "
            f"(each with a unique prefix). Set {OPT_IN_VARIABLE}={OPT_IN_VALUE} to run it anyway."
        )
    return url


class ServedProcess:
    """``tablewright serve`` on 127.0.0.1, a free port, in memory: one per test session (per worker)."""

    def __init__(self, log_path: Path) -> None:
        self._log_path = log_path
        self._log = open(log_path, "w", encoding="utf-8")  # noqa: SIM115 - closed in stop()
        command = [sys.executable, "-c", "from tablewright.cli import main; main()", "serve"]
        self.process = subprocess.Popen(
            [*command, "--host", "127.0.0.1", "--port", "0"],
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        self.url = self._wait_for_url()

    def _wait_for_url(self, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            match = re.search(r"DynamoDB API at (http://\S+)", self._log_path.read_text(encoding="utf-8"))
            if match:
                return match.group(1)
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"tablewright serve did not start: {self._log_path.read_text(encoding='utf-8')}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)
        self._log.close()


class Namespace:
    """A table-name prefix applied to every request of the clients attached, and taken off replies."""

    _count = 0

    def __init__(self) -> None:
        Namespace._count += 1
        self.prefix = f"twc{_SESSION}{Namespace._count:04d}-"
        self.created: set[str] = set()  # the names as sent, prefixed or not
        self._token_space = uuid.uuid5(uuid.NAMESPACE_URL, self.prefix)

    # ------------------------------------------------------------------ requests

    def _table(self, name: Any) -> Any:
        if not isinstance(name, str) or name.startswith(self.prefix):
            return name
        if name.startswith("arn:"):  # TableName takes a table ARN too
            return self._arn(name)
        prefixed = self.prefix + name
        return prefixed if _VALID_TABLE_NAME.fullmatch(name) and len(prefixed) <= 255 else name

    def _statement(self, text: str) -> str:
        # PartiQL names tables inside the statement: FROM/INTO/UPDATE "name" or an unquoted name.
        def swap(match: re.Match[str]) -> str:
            keyword, quote, name = match.group(1), match.group(2), match.group(3)
            return f"{keyword}{quote}{self._table(name)}{quote}"

        return re.sub(
            r'(\b(?:FROM|INTO|UPDATE|from|into|update)\s+)("?)([A-Za-z0-9_.-]+?)\2(?=[\s.;"]|$)', swap, text
        )

    def _arn(self, text: str) -> str:
        return _TABLE_IN_ARN.sub(lambda m: m.group(1) + self._table(m.group(2)), text)

    def rewrite_request(self, value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            if key in _KEYED_BY_TABLE:
                return {self._table(k): copy.deepcopy(v) for k, v in value.items()}
            if key in ("Item", "Key", "ExpressionAttributeValues", "ExclusiveStartKey"):
                return copy.deepcopy(value)  # user data: never rewritten
            return {k: self.rewrite_request(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self.rewrite_request(v, key) for v in value]
        if isinstance(value, str):
            if _NAME_KEYS.match(key):
                return self._table(value)
            if key == "Statement":
                return self._statement(value)
            if key == "ClientRequestToken" and 1 <= len(value) <= 36:
                # Tokens are the account's for 10 minutes: one per namespace, as long as DynamoDB allows.
                return str(uuid.uuid5(self._token_space, value))
            if key.endswith("Arn"):
                return self._arn(value)
        return value

    # ------------------------------------------------------------------- replies

    def strip(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {self.strip(k): self.strip(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.strip(v) for v in value]
        if isinstance(value, str):
            return value.replace(self.prefix, "")
        return value

    # ------------------------------------------------------------- botocore hooks

    def attach(self, client: Any) -> Any:
        """Register the rewriting on ``client``'s events; returns ``client``."""
        client.meta.events.register("provide-client-params.dynamodb.*", self._on_params)
        client.meta.events.register("after-call.dynamodb.*", self._on_reply)
        return client

    def _on_params(self, params: dict[str, Any], model: Any, **_: Any) -> dict[str, Any]:
        rewritten = self.rewrite_request(params)
        if model.name == "CreateTable" and isinstance(rewritten.get("TableName"), str):
            self.created.add(rewritten["TableName"])
        return rewritten

    def _on_reply(self, parsed: dict[str, Any], model: Any, **_: Any) -> None:
        if model.name == "ListTables" and "TableNames" in parsed:
            # Only this namespace's tables: on a shared endpoint the others are not the test's.
            parsed["TableNames"] = [name for name in parsed["TableNames"] if name.startswith(self.prefix)]
        if model.name == "ListBackups" and "BackupSummaries" in parsed:
            # Backups outlive their tables: another test's on the same server are not this test's.
            parsed["BackupSummaries"] = [
                b for b in parsed["BackupSummaries"] if str(b.get("TableName", "")).startswith(self.prefix)
            ]
        clean = self.strip({k: v for k, v in parsed.items() if k != "ResponseMetadata"})
        parsed.update(clean)

    # ---------------------------------------------------------------- clean-up

    def delete_tables(self, raw_client: Any) -> None:
        """Delete every table of this namespace (``raw_client`` has no namespace attached)."""
        names = set(self.created)
        for page in raw_client.get_paginator("list_tables").paginate():
            names.update(name for name in page["TableNames"] if name.startswith(self.prefix))
        for name in sorted(names):
            _delete_table(raw_client, name)
        # Backups outlive their tables (and cost money on a real account): the next test on this
        # endpoint must not find them in ListBackups.
        for page in raw_client.get_paginator("list_backups").paginate(BackupType="ALL"):
            for backup in page["BackupSummaries"]:
                if str(backup.get("TableName", "")).startswith(self.prefix):
                    _delete_backup(raw_client, backup["BackupArn"])


def _delete_backup(client: Any, arn: str) -> None:
    try:
        client.delete_backup(BackupArn=arn)
    except ClientError as error:
        if error.response["Error"]["Code"] not in ("BackupNotFoundException", "BackupInUseException"):
            raise


def _delete_table(client: Any, name: str) -> None:
    for _ in range(60):
        try:
            client.delete_table(TableName=name)
            return
        except ClientError as error:
            code = error.response["Error"]["Code"]
            if code == "ResourceNotFoundException":
                return
            message = error.response["Error"].get("Message", "")
            if code == "ResourceInUseException" or "deletion protection" in message.lower():
                # Still creating or updating (a real account), or protected by the test itself.
                if "deletion protection" in message.lower():
                    client.update_table(TableName=name, DeletionProtectionEnabled=False)
                time.sleep(1)
                continue
            raise


@contextmanager
def namespaced(client: Any, raw_client: Any) -> Iterator[Namespace]:
    """Attach a fresh namespace to ``client``; at the end delete its tables through ``raw_client``
    (a client of the same endpoint without the namespace)."""
    namespace = Namespace()
    namespace.attach(client)
    try:
        yield namespace
    finally:
        namespace.delete_tables(raw_client)


def remote_client(url: str, region: str | None) -> Any:
    """A boto3 client for ``url`` with credentials and region from the standard AWS environment."""
    return boto3.client("dynamodb", endpoint_url=url, region_name=region, config=NO_RETRY)


@functools.cache
def cleanup_client(url: str, region: str | None) -> Any:
    """The client :func:`namespaced` deletes tables through: one per endpoint for the whole session
    (it never gets a namespace, and a client costs 15-25 ms to make, a tenth of a served test)."""
    return remote_client(url, region)


def remote_resource(url: str, region: str | None) -> Any:
    return boto3.resource("dynamodb", endpoint_url=url, region_name=region, config=NO_RETRY)
