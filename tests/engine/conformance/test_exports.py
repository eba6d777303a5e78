"""ExportTableToPointInTime and ImportTable against a local folder standing for the S3 bucket.

Reference: API Reference ExportTableToPointInTime, DescribeExport, ListExports, ImportTable,
DescribeImport, ListImports; Developer Guide "DynamoDB table export output format" (manifest-summary,
manifest-files, data files in DynamoDB JSON and Amazon Ion) and "Import from Amazon S3".
"""

from __future__ import annotations

import datetime
import gzip
import json
import time
from pathlib import Path

import pytest

from ._support import engine_only, moto_differs, put_all, raises_dynamodb

ITEMS = [
    {
        "pk": {"S": "a"},
        "sk": {"S": "1"},
        "n": {"N": "101"},
        "f": {"N": "-0.25"},
        "tags": {"SS": ["x", "y"]},
        "nums": {"NS": ["1", "2.5"]},
        "blob": {"B": b"\x00\x01"},
        "ok": {"BOOL": True},
        "nothing": {"NULL": True},
        "list": {"L": [{"S": "one"}, {"N": "2"}]},
        "map": {"M": {"inner name": {"S": "v"}, "true": {"BOOL": False}}},
    },
    {"pk": {"S": "b"}, "sk": {"S": "2"}, "text": {"S": 'quote " and newline \n'}},
]
KEYS = {
    "AttributeDefinitions": [
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "sk", "AttributeType": "S"},
    ],
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
    "BillingMode": "PAY_PER_REQUEST",
}


@pytest.fixture
def bucket_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TABLEWRIGHT_S3_ROOT", str(tmp_path))
    return tmp_path


def _scan(client, table: str) -> list[dict]:
    return sorted(client.scan(TableName=table)["Items"], key=lambda i: i["pk"]["S"])


def _exported_table(client, make_table) -> str:
    table = make_table("hash_range_s", "catalog")
    put_all(client, table, ITEMS)
    client.update_continuous_backups(
        TableName=table, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True}
    )
    return client.describe_table(TableName=table)["Table"]["TableArn"]


@engine_only("reads the folder standing for the S3 bucket")
@pytest.mark.parametrize("export_format", ["DYNAMODB_JSON", "ION"])
def test_export_writes_dynamodb_layout_and_imports_back(client, make_table, bucket_root, export_format):
    arn = _exported_table(client, make_table)
    started = client.export_table_to_point_in_time(
        TableArn=arn, S3Bucket="exports", S3Prefix="nightly", ExportFormat=export_format
    )["ExportDescription"]
    assert started["ExportStatus"] in ("IN_PROGRESS", "COMPLETED")
    found = client.describe_export(ExportArn=started["ExportArn"])["ExportDescription"]
    assert found["ExportStatus"] == "COMPLETED" and found["ItemCount"] == 2
    assert found["ExportFormat"] == export_format

    folder = bucket_root / "exports" / Path(found["ExportManifest"]).parent
    assert folder.parts[-2] == "AWSDynamoDB" and (folder / "_started").exists()
    summary = json.loads((folder / "manifest-summary.json").read_text())
    assert summary["version"] == "2020-06-30" and summary["exportArn"] == found["ExportArn"]
    assert summary["itemCount"] == 2 and summary["outputFormat"] == export_format
    assert summary["manifestFilesS3Key"] == found["ExportManifest"].replace("summary", "files")
    [files] = [json.loads(line) for line in (folder / "manifest-files.json").read_text().splitlines()]
    data = bucket_root / "exports" / files["dataFileS3Key"]
    assert files["itemCount"] == 2 and data.parent.name == "data"
    text = gzip.decompress(data.read_bytes()).decode()
    if export_format == "DYNAMODB_JSON":
        assert data.name.endswith(".json.gz")
        lines = [json.loads(line) for line in text.splitlines()]
        assert {line["Item"]["pk"]["S"] for line in lines} == {"a", "b"}
        assert next(line for line in lines if line["Item"]["pk"]["S"] == "a")["Item"]["tags"] == {
            "SS": ["x", "y"]
        }
    else:
        assert data.name.endswith(".ion.gz") and text.startswith("$ion_1_0 ")
        assert '$dynamodb_SS::["x","y"]' in text and "n:101." in text and "{{AAE=}}" in text

    imported = client.import_table(
        S3BucketSource={"S3Bucket": "exports", "S3KeyPrefix": str(Path(files["dataFileS3Key"]).parent)},
        InputFormat=export_format,
        InputCompressionType="GZIP",
        TableCreationParameters={"TableName": "catalog_copy", **KEYS},
    )["ImportTableDescription"]
    done = client.describe_import(ImportArn=imported["ImportArn"])["ImportTableDescription"]
    assert done["ImportStatus"] == "COMPLETED" and done["ImportedItemCount"] == 2 and done["ErrorCount"] == 0
    assert _scan(client, "catalog_copy") == _scan(client, "catalog")
    assert [s["ExportArn"] for s in client.list_exports(TableArn=arn)["ExportSummaries"]] == [
        found["ExportArn"]
    ]
    assert [s["ImportArn"] for s in client.list_imports()["ImportSummaryList"]] == [done["ImportArn"]]


@engine_only("reads the folder standing for the S3 bucket")
def test_export_at_an_earlier_time_holds_the_items_of_then(client, make_table, bucket_root):
    arn = _exported_table(client, make_table)
    time.sleep(1.05)
    moment = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    time.sleep(1.05)
    client.delete_item(TableName="catalog", Key={"pk": {"S": "a"}, "sk": {"S": "1"}})
    found = client.export_table_to_point_in_time(TableArn=arn, S3Bucket="exports", ExportTime=moment)
    assert (
        client.describe_export(ExportArn=found["ExportDescription"]["ExportArn"])["ExportDescription"][
            "ItemCount"
        ]
        == 2
    )


@engine_only("writes the folder standing for the S3 bucket")
def test_import_counts_bad_lines_and_reads_csv(client, bucket_root):
    data = bucket_root / "incoming" / "batch1"
    data.mkdir(parents=True)
    (data / "part-0.json").write_text(
        json.dumps({"Item": {"pk": {"S": "a"}, "sk": {"S": "1"}}})
        + "\n{not json\n"
        + json.dumps({"Item": {"pk": {"N": "1"}, "sk": {"S": "1"}}})  # wrong key type
        + "\n"
    )
    done = client.import_table(
        S3BucketSource={"S3Bucket": "incoming", "S3KeyPrefix": "batch1/"},
        InputFormat="DYNAMODB_JSON",
        TableCreationParameters={"TableName": "imported_json", **KEYS},
    )["ImportTableDescription"]
    found = client.describe_import(ImportArn=done["ImportArn"])["ImportTableDescription"]
    assert (found["ImportedItemCount"], found["ErrorCount"], found["ProcessedItemCount"]) == (1, 2, 3)

    (bucket_root / "incoming" / "people.csv").write_text("pk,sk,name\np1,s1,Ann\np2,s2,\n")
    done = client.import_table(
        S3BucketSource={"S3Bucket": "incoming", "S3KeyPrefix": "people"},
        InputFormat="CSV",
        TableCreationParameters={"TableName": "imported_csv", **KEYS},
    )["ImportTableDescription"]
    assert [i.get("name") for i in _scan(client, "imported_csv")] == [{"S": "Ann"}, None]

    missing = client.import_table(
        S3BucketSource={"S3Bucket": "no-such-bucket"},
        InputFormat="DYNAMODB_JSON",
        TableCreationParameters={"TableName": "imported_none", **KEYS},
    )["ImportTableDescription"]
    failed = client.describe_import(ImportArn=missing["ImportArn"])["ImportTableDescription"]
    assert failed["ImportStatus"] == "FAILED" and "no-such-bucket" in failed["FailureMessage"]


@engine_only("writes the folder standing for the S3 bucket")
@pytest.mark.parametrize("sized", [True, False], ids=["one-shot frame", "streamed frame"])
def test_import_reads_zstd_data_files(client, bucket_root, sized):
    import zstandard

    data = bucket_root / "incoming" / "zstd"
    data.mkdir(parents=True)
    lines = "".join(json.dumps({"Item": {"pk": {"S": f"k{n}"}, "sk": {"S": "1"}}}) + "\n" for n in range(50))
    compressor = zstandard.ZstdCompressor(level=3)
    if sized:
        packed = compressor.compress(lines.encode())
    else:  # no content size in the frame header, as a streaming writer leaves it
        packed = b"".join([(c := compressor.compressobj()).compress(lines.encode()), c.flush()])
    (data / "part-0.json.zst").write_bytes(packed)
    done = client.import_table(
        S3BucketSource={"S3Bucket": "incoming", "S3KeyPrefix": "zstd/"},
        InputFormat="DYNAMODB_JSON",
        InputCompressionType="ZSTD",
        TableCreationParameters={"TableName": "imported_zstd", **KEYS},
    )["ImportTableDescription"]
    found = client.describe_import(ImportArn=done["ImportArn"])["ImportTableDescription"]
    assert (found["ImportStatus"], found["ImportedItemCount"], found["ErrorCount"]) == ("COMPLETED", 50, 0)
    assert len(_scan(client, "imported_zstd")) == 50


@moto_differs("moto exports without PITR and fails without S3Prefix")
def test_export_needs_point_in_time_recovery(client, make_table):
    table = make_table("hash_s", "plain")
    arn = client.describe_table(TableName=table)["Table"]["TableArn"]
    with raises_dynamodb("PointInTimeRecoveryUnavailableException", table):
        client.export_table_to_point_in_time(TableArn=arn, S3Bucket="exports")


@moto_differs("moto raises an internal KeyError for an unknown export")
def test_unknown_exports_and_imports(client):
    arn = "arn:aws:dynamodb:us-east-1:000000000000:table/none/export/01700000000000-abcdef12"
    with raises_dynamodb("ExportNotFoundException"):
        client.describe_export(ExportArn=arn)
    with raises_dynamodb("ImportNotFoundException"):
        client.describe_import(ImportArn=arn.replace("export", "import"))
    assert client.list_exports()["ExportSummaries"] == []
    assert client.list_imports()["ImportSummaryList"] == []


@engine_only("reads the folder standing for the S3 bucket")
def test_incremental_export_holds_the_changes_of_the_period(client, make_table, bucket_root):
    arn = _exported_table(client, make_table)
    time.sleep(1.05)
    start = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    time.sleep(1.05)
    client.delete_item(TableName="catalog", Key={"pk": {"S": "a"}, "sk": {"S": "1"}})
    client.put_item(TableName="catalog", Item={"pk": {"S": "c"}, "sk": {"S": "3"}})
    client.update_item(
        TableName="catalog",
        Key={"pk": {"S": "b"}, "sk": {"S": "2"}},
        UpdateExpression="SET #text = :t",
        ExpressionAttributeNames={"#text": "text"},
        ExpressionAttributeValues={":t": {"S": "changed"}},
    )
    time.sleep(1.05)
    end = datetime.datetime.now(datetime.UTC).replace(microsecond=0) + datetime.timedelta(seconds=1)
    time.sleep(1.05)
    client.put_item(TableName="catalog", Item={"pk": {"S": "d"}, "sk": {"S": "4"}})  # after the period
    found = client.export_table_to_point_in_time(
        TableArn=arn,
        S3Bucket="exports",
        ExportType="INCREMENTAL_EXPORT",
        IncrementalExportSpecification={"ExportFromTime": start, "ExportToTime": end},
    )["ExportDescription"]
    described = client.describe_export(ExportArn=found["ExportArn"])["ExportDescription"]
    assert described["ExportType"] == "INCREMENTAL_EXPORT" and described["ItemCount"] == 3
    folder = bucket_root / "exports" / Path(described["ExportManifest"]).parent
    [files] = [json.loads(line) for line in (folder / "manifest-files.json").read_text().splitlines()]
    lines = (
        gzip.decompress((bucket_root / "exports" / files["dataFileS3Key"]).read_bytes()).decode().splitlines()
    )
    by_key = {json.loads(line)["Keys"]["pk"]["S"]: json.loads(line) for line in lines}
    assert set(by_key) == {"a", "b", "c"}
    assert "NewImage" not in by_key["a"] and by_key["a"]["OldImage"]["n"] == {"N": "101"}
    assert "OldImage" not in by_key["c"] and by_key["c"]["NewImage"]["pk"] == {"S": "c"}
    assert by_key["b"]["NewImage"]["text"] == {"S": "changed"} and by_key["b"]["OldImage"]["text"] != {
        "S": "changed"
    }
    assert int(by_key["b"]["Metadata"]["WriteTimestampMicros"]["N"]) >= start.timestamp() * 1_000_000


@engine_only("the folder standing for the S3 bucket")
@pytest.mark.parametrize("prefix", ["../outside", "a/../../outside", "./here/.."])
def test_a_prefix_cannot_leave_the_bucket(client, make_table, bucket_root, prefix):
    arn = _exported_table(client, make_table)
    with raises_dynamodb("ValidationException", "prefix"):
        client.export_table_to_point_in_time(TableArn=arn, S3Bucket="exports", S3Prefix=prefix)
    assert not (bucket_root.parent / "outside").exists()


@engine_only("writes the folder standing for the S3 bucket")
def test_client_token_makes_export_and_import_idempotent(client, make_table, bucket_root):
    arn = _exported_table(client, make_table)
    first = client.export_table_to_point_in_time(TableArn=arn, S3Bucket="exports", ClientToken="nightly-1")
    again = client.export_table_to_point_in_time(TableArn=arn, S3Bucket="exports", ClientToken="nightly-1")
    assert again["ExportDescription"]["ExportArn"] == first["ExportDescription"]["ExportArn"]
    assert len(client.list_exports()["ExportSummaries"]) == 1
    with raises_dynamodb("ExportConflictException", "nightly-1"):
        client.export_table_to_point_in_time(TableArn=arn, S3Bucket="other", ClientToken="nightly-1")
    (bucket_root / "incoming").mkdir()
    (bucket_root / "incoming" / "one.json").write_text(
        json.dumps({"Item": {"pk": {"S": "a"}, "sk": {"S": "1"}}})
    )
    request = {
        "S3BucketSource": {"S3Bucket": "incoming"},
        "InputFormat": "DYNAMODB_JSON",
        "TableCreationParameters": {"TableName": "loaded", **KEYS},
        "ClientToken": "load-1",
    }
    loaded = client.import_table(**request)["ImportTableDescription"]["ImportArn"]
    assert client.import_table(**request)["ImportTableDescription"]["ImportArn"] == loaded
    with raises_dynamodb("ImportConflictException"):
        client.import_table(**{**request, "InputFormat": "CSV"})
