"""ExportTableToPointInTime, DescribeExport, ListExports, ImportTable, DescribeImport, ListImports.

A local folder stands for Amazon S3: bucket ``B`` is the folder ``<root>/B`` and an object key is a path
below it. ``<root>`` is ``$TABLEWRIGHT_S3_ROOT`` when set, else the folder ``s3`` beside the database
file (an in-memory engine: ``tablewright-s3`` in the system's temporary folder). Exports are written
as DynamoDB writes them (``<prefix>/AWSDynamoDB/<ExportId>/`` with ``_started``,
``manifest-summary.json``, ``manifest-files.json``, their ``.checksum`` files and ``data/*.json.gz`` or
``data/*.ion.gz``), so that tools reading real exports read these; ImportTable reads such data files
(DYNAMODB_JSON, ION or CSV; GZIP, ZSTD or uncompressed) into a new table. Both run to completion
before the request returns. See docs/backups.md.
"""

from __future__ import annotations

import base64
import csv
import datetime
import gzip
import hashlib
import io
import os
import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from .. import snapshots
from ..bulk import load_items
from ..errors import (
    ExportConflictException,
    ExportNotFoundException,
    ImportConflictException,
    ImportNotFoundException,
    InvalidExportTimeException,
    PointInTimeRecoveryUnavailableException,
    ValidationException,
)
from ..types import item_size
from .backups import source_table
from .pitr import restore_window
from .tables import create_table, table_name_from_arn

if TYPE_CHECKING:
    from ..engine import Engine

ION_SET_ANNOTATIONS = {"SS": "$dynamodb_SS", "NS": "$dynamodb_NS", "BS": "$dynamodb_BS"}
_ION_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
_ION_KEYWORDS = frozenset({"true", "false", "null", "nan"})


# --------------------------------------------------------------------------------------- the bucket


def s3_root(engine: Engine) -> Path:
    """The folder standing for S3: each bucket is a folder in it."""
    configured = os.environ.get("TABLEWRIGHT_S3_ROOT")
    if configured:
        return Path(configured)
    if engine.store.path:
        return Path(engine.store.path).resolve().parent / "s3"
    return Path(tempfile.gettempdir()) / "tablewright-s3"


def _bucket(engine: Engine, bucket: str) -> Path:
    if not bucket or "/" in bucket or bucket in (".", ".."):
        raise ValidationException(f"Invalid S3Bucket: {bucket!r} is not a bucket name")
    return s3_root(engine) / bucket


def _key_path(folder: Path, key: str) -> Path:
    parts = [p for p in key.split("/") if p]
    if any(p in (".", "..") for p in parts):
        raise ValidationException(f"Invalid S3 key prefix: {key!r}")
    return folder.joinpath(*parts)


def _iso(moment: float) -> str:
    return datetime.datetime.fromtimestamp(moment, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _job_arn(engine: Engine, table: str, kind: str) -> str:
    return f"{engine.arn(table)}/{kind}/{int(engine.clock() * 1000):014d}-{os.urandom(4).hex()}"


# ---------------------------------------------------------------------------------------- Ion text


def ion_text(value: dict) -> str:
    """A DynamoDB attribute value as the Ion text DynamoDB exports write (sets annotated, numbers decimal)."""
    ((kind, payload),) = value.items()
    if kind == "S":
        return orjson.dumps(payload).decode()
    if kind == "N":
        return _ion_decimal(payload)
    if kind == "B":
        return "{{" + payload + "}}"
    if kind == "BOOL":
        return "true" if payload else "false"
    if kind == "NULL":
        return "null"
    if kind in ION_SET_ANNOTATIONS:
        members = [ion_text({kind[0]: member}) for member in payload]
        return f"{ION_SET_ANNOTATIONS[kind]}::[{','.join(members)}]"
    if kind == "L":
        return "[" + ",".join(ion_text(v) for v in payload) + "]"
    return ion_struct(payload)


def ion_struct(attributes: dict) -> str:
    fields = []
    for name, value in attributes.items():
        label = (
            name if _ION_IDENTIFIER.match(name) and name not in _ION_KEYWORDS else orjson.dumps(name).decode()
        )
        fields.append(f"{label}:{ion_text(value)}")
    return "{" + ",".join(fields) + "}"


def _ion_decimal(number: str) -> str:
    mantissa, _, exponent = number.lower().partition("e")
    if "." not in mantissa:
        mantissa += "."
    return f"{mantissa}d{exponent}" if exponent else mantissa


def _from_ion(value: Any) -> dict:
    """An amazon-ion value read from an ION export, as a DynamoDB attribute value."""
    annotations = [a.text for a in getattr(value, "ion_annotations", ())]
    for kind, annotation in ION_SET_ANNOTATIONS.items():
        if annotation in annotations:
            return {kind: [next(iter(_from_ion(v).values())) for v in value]}
    ion_type = getattr(getattr(value, "ion_type", None), "name", "NULL" if value is None else "")
    convert = _FROM_ION.get(ion_type)
    if convert is None:
        raise ValueError(f"an Ion {ion_type or type(value).__name__} value has no DynamoDB type")
    return convert(value)


_FROM_ION: dict[str, Any] = {
    "NULL": lambda v: {"NULL": True},
    "BOOL": lambda v: {"BOOL": bool(v)},
    "STRING": lambda v: {"S": str(v)},
    "SYMBOL": lambda v: {"S": v.text},
    "INT": lambda v: {"N": _number_text(v)},
    "DECIMAL": lambda v: {"N": _number_text(v)},
    "FLOAT": lambda v: {"N": _number_text(v)},
    "BLOB": lambda v: {"B": base64.b64encode(bytes(v)).decode()},
    "LIST": lambda v: {"L": [_from_ion(m) for m in v]},
    "STRUCT": lambda v: {"M": {str(k): _from_ion(m) for k, m in v.items()}},
}


def _number_text(value: Any) -> str:
    import decimal

    number = decimal.Decimal(str(value)) if not isinstance(value, decimal.Decimal) else value
    text = format(number, "f") if -30 < number.adjusted() < 30 else str(number)
    return text.rstrip("0").rstrip(".") if "." in text and "E" not in text.upper() else text


# -------------------------------------------------------------------------------------------- export


def _earlier_job(engine: Engine, kind: str, request: dict) -> dict | None:
    """The job an earlier request with the same ClientToken started (DynamoDB keeps tokens 8 hours;
    here for good), or None. The same token with other parameters is a conflict."""
    token = request.get("ClientToken")
    if token is None:
        return None
    with engine.store.read() as conn:
        found = snapshots.job(conn, f"{kind}-token:{token}", f"{kind}-token")
        if found is None:
            return None
        if found["digest"] != _digest(request):
            conflict = ExportConflictException if kind == "export" else ImportConflictException
            raise conflict(
                f"The ClientToken {token} was used by another {kind} request with other parameters"
            )
        return snapshots.job(conn, found["arn"], kind)


def _digest(request: dict) -> str:
    return hashlib.sha256(orjson.dumps(request, option=orjson.OPT_SORT_KEYS)).hexdigest()


def _save_job(engine: Engine, kind: str, request: dict, arn: str, started: float, description: dict) -> None:
    with engine.store.write() as conn:
        snapshots.save_job(conn, arn, kind, started, description)
        if "ClientToken" in request:
            token = f"{kind}-token:{request['ClientToken']}"
            snapshots.save_job(
                conn, token, f"{kind}-token", started, {"arn": arn, "digest": _digest(request)}
            )


def export_table_to_point_in_time(engine: Engine, request: dict) -> dict:
    earlier = _earlier_job(engine, "export", request)
    if earlier is not None:
        return {"ExportDescription": earlier}
    export_type = request.get("ExportType", "FULL_EXPORT")
    incremental = request.get("IncrementalExportSpecification") or {}
    if export_type == "INCREMENTAL_EXPORT" and "ExportFromTime" not in incremental:
        raise ValidationException(
            "IncrementalExportSpecification.ExportFromTime is required for INCREMENTAL_EXPORT"
        )
    name = table_name_from_arn(engine, request["TableArn"])
    export_format = request.get("ExportFormat", "DYNAMODB_JSON")
    bucket = _bucket(engine, request["S3Bucket"])
    prefix = request.get("S3Prefix", "")
    with engine.store.read() as conn:
        meta = source_table(engine, name)
        window = restore_window(engine, meta)
        if window is None:
            raise PointInTimeRecoveryUnavailableException(
                f"Point in time recovery is not enabled for table '{name}'"
            )
        moment = float(request.get("ExportTime", window[1]))
        start = float(incremental.get("ExportFromTime", moment))
        if export_type == "INCREMENTAL_EXPORT":
            moment = float(incremental.get("ExportToTime", window[1]))
        if not window[0] <= start <= moment <= window[1]:
            raise InvalidExportTimeException(
                f"Export time is not within the point-in-time recovery window of table '{name}'"
            )
        if export_type == "INCREMENTAL_EXPORT":
            view = incremental.get("ExportViewType", "NEW_AND_OLD_IMAGES")
            changes = _change_lines(snapshots.changes_between(conn, meta, start, moment), meta, view)
            rows = [(item_size(c.get("NewImage") or c.get("OldImage") or {}), c) for c in changes]
        else:
            rows = snapshots.rows_at(conn, meta, moment)
        table_id = meta.description["TableId"]
    started = engine.clock()
    arn = _job_arn(engine, name, "export")
    export_id = arn.rsplit("/", 1)[1]
    base = "/".join(p for p in (prefix.strip("/"), "AWSDynamoDB", export_id) if p)
    folder = _key_path(bucket, base)
    (folder / "data").mkdir(parents=True, exist_ok=True)
    (folder / "_started").write_bytes(b"")
    suffix, lines = _export_lines(export_format, rows, export_type == "INCREMENTAL_EXPORT")
    data_key = f"{base}/data/{os.urandom(8).hex()}.{suffix}.gz"
    payload = gzip.compress("".join(lines).encode())
    _key_path(bucket, data_key).write_bytes(payload)
    md5 = hashlib.md5(payload, usedforsecurity=False)
    billed = sum(size for size, _ in rows)
    files = {
        "itemCount": len(rows),
        "md5Checksum": base64.b64encode(md5.digest()).decode(),
        "etag": md5.hexdigest(),
        "dataFileS3Key": data_key,
    }
    ended = engine.clock()
    summary = {
        "version": "2020-06-30",
        "exportArn": arn,
        "startTime": _iso(started),
        "endTime": _iso(ended),
        "tableArn": engine.arn(name),
        "tableId": table_id,
        "exportTime": _iso(moment),
        "s3Bucket": request["S3Bucket"],
        "s3Prefix": prefix or None,
        "s3SseAlgorithm": request.get("S3SseAlgorithm", "AES256"),
        "s3SseKmsKeyId": request.get("S3SseKmsKeyId"),
        "manifestFilesS3Key": f"{base}/manifest-files.json",
        "billedSizeBytes": billed,
        "itemCount": len(rows),
        "outputFormat": export_format,
        "exportType": export_type,
    }
    for file_name, content in (
        ("manifest-files.json", orjson.dumps(files) + b"\n"),
        ("manifest-summary.json", orjson.dumps(summary)),
    ):
        (folder / file_name).write_bytes(content)
        checksum = hashlib.md5(content, usedforsecurity=False).hexdigest()
        (folder / file_name.replace(".json", ".checksum")).write_text(checksum)
    description = {
        "ExportArn": arn,
        "ExportStatus": "COMPLETED",
        "StartTime": started,
        "EndTime": ended,
        "ExportManifest": f"{base}/manifest-summary.json",
        "TableArn": engine.arn(name),
        "TableId": table_id,
        "ExportTime": moment,
        "S3Bucket": request["S3Bucket"],
        "S3SseAlgorithm": summary["s3SseAlgorithm"],
        "ItemCount": len(rows),
        "BilledSizeBytes": billed,
        "ExportFormat": export_format,
        "ExportType": export_type,
    }
    if export_type == "INCREMENTAL_EXPORT":
        description["IncrementalExportSpecification"] = {
            "ExportFromTime": start,
            "ExportToTime": moment,
            "ExportViewType": incremental.get("ExportViewType", "NEW_AND_OLD_IMAGES"),
        }
        del description["ExportTime"]
    for member in ("ClientToken", "S3BucketOwner", "S3Prefix", "S3SseKmsKeyId"):
        if member in request:
            description[member] = request[member]
    _save_job(engine, "export", request, arn, started, description)
    # DynamoDB answers IN_PROGRESS and completes later; here the files are already written.
    return {"ExportDescription": {**description, "ExportStatus": "IN_PROGRESS"}}


def _export_lines(
    export_format: str, rows: list[tuple[int, dict]], incremental: bool
) -> tuple[str, list[str]]:
    lines = [line if incremental else {"Item": line} for _, line in rows]
    if export_format == "ION":
        return "ion", ["$ion_1_0 " + "".join(_ion_line(line) + "\n" for line in lines)]
    return "json", [orjson.dumps(line).decode() + "\n" for line in lines]


def _ion_line(line: dict) -> str:
    """One export line as Ion: each top-level member is an item map (or Metadata's numbers)."""
    return "{" + ",".join(f"{name}:{ion_struct(value)}" for name, value in line.items()) + "}"


def _change_lines(changes: list, meta: Any, view: str) -> list[dict]:
    """Incremental export lines: Metadata.WriteTimestampMicros, Keys, NewImage (absent for a delete)
    and, for NEW_AND_OLD_IMAGES, OldImage (absent for an insert)."""
    lines = []
    for last, old, new in changes:
        line: dict[str, Any] = {
            "Metadata": {"WriteTimestampMicros": {"N": str(int(last * 1_000_000))}},
            "Keys": meta.key_of(new or old),
        }
        if new is not None:
            line["NewImage"] = new
        if old is not None and view == "NEW_AND_OLD_IMAGES":
            line["OldImage"] = old
        lines.append(line)
    return lines


def describe_export(engine: Engine, request: dict) -> dict:
    arn = request["ExportArn"]
    with engine.store.read() as conn:
        found = snapshots.job(conn, arn, "export")
    if found is None:
        raise ExportNotFoundException(f"Export not found: {arn}")
    return {"ExportDescription": found}


def _page(summaries: list[dict], request: dict, arn_field: str, list_name: str, page_size: int) -> dict:
    """One page of a List* answer: the summaries after the NextToken (an ARN), and the next token."""
    token = request.get("NextToken")
    start = 0
    if token is not None:
        arns = [s[arn_field] for s in summaries]
        if token not in arns:
            raise ValidationException(f"Invalid NextToken: {token}")
        start = arns.index(token) + 1
    page = summaries[start : start + page_size]
    response: dict[str, Any] = {list_name: page}
    if start + page_size < len(summaries) and page:
        response["NextToken"] = page[-1][arn_field]
    return response


def list_exports(engine: Engine, request: dict) -> dict:
    with engine.store.read() as conn:
        found = snapshots.jobs(conn, "export")
    table = request.get("TableArn")
    summaries = [
        {k: d[k] for k in ("ExportArn", "ExportStatus", "ExportType")}
        for d in found
        if table is None or d["TableArn"] == table
    ]
    return _page(summaries, request, "ExportArn", "ExportSummaries", request.get("MaxResults", 25))


# -------------------------------------------------------------------------------------------- import


def _source_files(engine: Engine, source: dict) -> list[Path]:
    bucket = _bucket(engine, source["S3Bucket"])
    prefix = source.get("S3KeyPrefix", "")
    if not bucket.is_dir():
        raise FileNotFoundError(f"bucket {source['S3Bucket']} does not exist (no folder {bucket})")
    files = [
        p
        for p in sorted(bucket.rglob("*"))
        if p.is_file() and p.relative_to(bucket).as_posix().startswith(prefix)
    ]
    manifests = {"_started", "manifest-summary.json", "manifest-files.json"}
    return [p for p in files if p.name not in manifests and p.suffix not in (".checksum", ".md5")]


def _decompress(path: Path, compression: str) -> str:
    raw = path.read_bytes()
    if compression == "GZIP":
        raw = gzip.decompress(raw)
    elif compression == "ZSTD":
        import zstandard  # only imports of ZSTD files need it

        # Streamed: frames written without their content size (as streaming compressors write them)
        # cannot be decompressed in one call.
        with zstandard.ZstdDecompressor().stream_reader(raw) as reader:
            raw = reader.read()
    return raw.decode("utf-8")


def _items_of(text: str, request: dict) -> list[Any]:
    """Each item of one data file (a malformed one as the exception that reading it raised)."""
    input_format = request["InputFormat"]
    if input_format == "DYNAMODB_JSON":
        out: list[Any] = []
        for line in text.splitlines():
            if line.strip():
                try:
                    out.append(orjson.loads(line)["Item"])
                except (orjson.JSONDecodeError, KeyError, TypeError) as error:
                    out.append(ValueError(f"not a DynamoDB JSON item line: {error}"))
        return out
    if input_format == "ION":
        try:
            import amazon.ion.simpleion as ion
        except ImportError:  # optional: pip install 'tablewright[ion]'
            raise ValueError(
                "reading ION needs the amazon-ion package (pip install 'tablewright[ion]')"
            ) from None
        try:
            values = ion.loads(text, single_value=False) if text.strip() else []
        except Exception as error:  # noqa: BLE001 - amazon-ion raises bare exceptions for bad text
            raise ValueError(f"not Amazon Ion text: {error}") from None
        return [_ion_item(value) for value in values]
    return _csv_items(text, request)


def _ion_item(value: Any) -> Any:
    try:
        return _from_ion(value["Item"])["M"]
    except (KeyError, TypeError, ValueError) as error:
        return ValueError(f"not an Ion item value: {error}")


def _csv_items(text: str, request: dict) -> list[Any]:
    options = (request.get("InputFormatOptions") or {}).get("Csv") or {}
    reader = csv.reader(io.StringIO(text), delimiter=options.get("Delimiter", ","))
    rows = list(reader)
    header = options.get("HeaderList") or (rows.pop(0) if rows else [])
    types = {
        d["AttributeName"]: d["AttributeType"]
        for d in request["TableCreationParameters"]["AttributeDefinitions"]
    }
    return [
        {name: {types.get(name, "S"): value} for name, value in zip(header, row, strict=False) if value != ""}
        for row in rows
    ]


def import_table(engine: Engine, request: dict) -> dict:
    earlier = _earlier_job(engine, "import", request)
    if earlier is not None:
        return {"ImportTableDescription": earlier}
    parameters = request["TableCreationParameters"]
    compression = request.get("InputCompressionType", "NONE")
    created = create_table(engine, parameters)["TableDescription"]
    started = engine.clock()
    arn = _job_arn(engine, parameters["TableName"], "import")
    processed = imported = errors = processed_bytes = 0
    failure: tuple[str, str] | None = None
    try:
        for path in _source_files(engine, request["S3BucketSource"]):
            processed_bytes += path.stat().st_size
            items = _items_of(_decompress(path, compression), request)
            processed += len(items)
            unreadable = sum(isinstance(item, Exception) for item in items)
            # One bulk load per file: every item as PutItem would store it, many per transaction.
            loaded = load_items(
                engine,
                parameters["TableName"],
                (item for item in items if not isinstance(item, Exception)),
                on_error=lambda *_: None,
            )
            imported += loaded.loaded
            errors += unreadable + loaded.rejected
    except (OSError, ValueError, UnicodeDecodeError) as error:
        failure = ("InvalidInput" if not isinstance(error, OSError) else "S3NoSuchBucket", str(error))
    description: dict[str, Any] = {
        "ImportArn": arn,
        "ImportStatus": "FAILED" if failure else "COMPLETED",
        "TableArn": created["TableArn"],
        "TableId": created["TableId"],
        "S3BucketSource": request["S3BucketSource"],
        "ErrorCount": errors,
        "InputFormat": request["InputFormat"],
        "InputCompressionType": compression,
        "TableCreationParameters": parameters,
        "StartTime": started,
        "EndTime": engine.clock(),
        "ProcessedSizeBytes": processed_bytes,
        "ProcessedItemCount": processed,
        "ImportedItemCount": imported,
    }
    for member in ("ClientToken", "InputFormatOptions"):
        if member in request:
            description[member] = request[member]
    if failure:
        description["FailureCode"], description["FailureMessage"] = failure
    _save_job(engine, "import", request, arn, started, description)
    return {"ImportTableDescription": {**description, "ImportStatus": "IN_PROGRESS"}}


def describe_import(engine: Engine, request: dict) -> dict:
    arn = request["ImportArn"]
    with engine.store.read() as conn:
        found = snapshots.job(conn, arn, "import")
    if found is None:
        raise ImportNotFoundException(f"Import not found: {arn}")
    return {"ImportTableDescription": found}


def list_imports(engine: Engine, request: dict) -> dict:
    with engine.store.read() as conn:
        found = snapshots.jobs(conn, "import")
    table = request.get("TableArn")
    summaries = [
        {
            "ImportArn": d["ImportArn"],
            "ImportStatus": d["ImportStatus"],
            "TableArn": d["TableArn"],
            "S3BucketSource": d["S3BucketSource"],
            "InputFormat": d["InputFormat"],
            "StartTime": d["StartTime"],
            "EndTime": d["EndTime"],
        }
        for d in found
        if table is None or d["TableArn"] == table
    ]
    return _page(summaries, request, "ImportArn", "ImportSummaryList", request.get("PageSize", 25))


OPERATIONS = {
    "ExportTableToPointInTime": export_table_to_point_in_time,
    "DescribeExport": describe_export,
    "ListExports": list_exports,
    "ImportTable": import_table,
    "DescribeImport": describe_import,
    "ListImports": list_imports,
}
