"""Control plane: CreateTable, DescribeTable, ListTables, UpdateTable, DeleteTable, TTL and tags."""

from __future__ import annotations

import copy
import datetime
import json
import uuid
from typing import TYPE_CHECKING, Any

from ..catalog import TableMeta
from ..errors import (
    LimitExceededException,
    ResourceInUseException,
    ResourceNotFoundException,
    ValidationException,
)
from ..tags import check_tags
from ..types import invalid
from ..validation.messages import NOT_NULL, validation_error
from .streams import close_stream, open_stream

if TYPE_CHECKING:
    from ..engine import Engine

MAX_GSIS = 20  # the default quota; DynamoDB lets an account raise it
MAX_LSIS = 5
MAX_PROJECTED_ATTRIBUTES = 100  # INCLUDE NonKeyAttributes summed over every index of the table

# DynamoDB's wording for the index quotas. CreateTable reports them as ValidationException; adding a
# 21st GSI with UpdateTable is a LimitExceededException with its own wording.
QUOTA_MESSAGES = {
    "gsi_count": f"GlobalSecondaryIndex count exceeds the per-table limit of {MAX_GSIS}",
    "lsi_count": f"Number of LocalSecondaryIndexes exceeds per-table limit of {MAX_LSIS}",
    "projected": f"Number of projected attributes in all indexes exceeds limit of {MAX_PROJECTED_ATTRIBUTES}",
    "gsi_count_update": (
        f"Subscriber limit exceeded: Number of global secondary indexes exceeds per-table limit of {MAX_GSIS}"
    ),
    "one_index_per_update": (
        "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table"
    ),
}


def table_name(engine: Engine, name_or_arn: Any) -> Any:
    """The name a ``TableName`` member means: DynamoDB takes a table's ARN there as well as its name.
    Anything else (another account's or region's ARN, an index's or a stream's) stays as it is, to be
    found by no table."""
    if name_or_arn.__class__ is str and name_or_arn.startswith("arn:"):
        prefix = engine.arn("")
        if name_or_arn.startswith(prefix) and "/" not in name_or_arn[len(prefix) :]:
            return name_or_arn[len(prefix) :]
    return name_or_arn


def require_table(engine: Engine, name: str) -> TableMeta:
    meta = engine.store.table(table_name(engine, name)) if isinstance(name, str) else None
    if meta is None:
        raise ResourceNotFoundException(f"Requested resource not found: Table: {name} not found")
    return meta


def table_name_from_arn(engine: Engine, arn: str) -> str:
    prefix = engine.arn("")
    if not isinstance(arn, str) or not arn.startswith("arn:"):
        raise ValidationException(f"ARNs must start with 'arn:': {arn}")
    parts = arn[len(prefix) :].split("/")
    # Tags belong to tables (and streams): an index's ARN, .../table/T/index/I, is not a resource here.
    if not arn.startswith(prefix) or (len(parts) > 1 and parts[1] != "stream"):
        raise ValidationException(f"Invalid TableArn: Invalid ResourceArn provided as input {arn}")
    return parts[0]


# ------------------------------------------------------------------------------------------- definitions


MAX_KEY_ATTRIBUTES = 4  # HASH, and separately RANGE, attributes of a GSI's multi-attribute key

# DynamoDB's wording for a KeySchema that is not of the accepted shape (the multi-attribute ones as
# catalogued from live DynamoDB responses in public material; which of two applicable errors DynamoDB
# reports first is not documented: we check order, then counts, then duplicates, then definitions).
KEY_SCHEMA_MESSAGES = {
    "first_not_hash": "Invalid KeySchema: The first KeySchemaElement is not a HASH key type",
    "second_not_range": "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type",
    "same_name": "Both the Hash Key and the Range Key element in the KeySchema have the same name",
    "duplicate_names": "The KeySchema contains multiple key attributes with the same name",
    "hash_after_range": (
        "One or more parameter values were invalid: All HASH key attributes must precede RANGE key "
        "attributes in the KeySchema"
    ),
    "too_many_HASH": (
        "One or more parameter values were invalid: The KeySchema exceeds the maximum allowed number of "
        "HASH key attributes"
    ),
    "too_many_RANGE": (
        "One or more parameter values were invalid: The KeySchema exceeds the maximum allowed number of "
        "RANGE key attributes"
    ),
}


def _check_key_schema(
    key_schema: list[dict], definitions: dict[str, str], path: str, *, multi: bool = False
) -> None:
    """DynamoDB's rules for a KeySchema: one HASH then optionally one RANGE element (tables, LSIs), or
    for a GSI (``multi``) 1-4 HASH elements then 0-4 RANGE elements. ``path`` names it in messages."""
    kinds = [k.get("KeyType") for k in key_schema]
    names = [k["AttributeName"] for k in key_schema]
    if kinds[0] != "HASH":
        raise ValidationException(KEY_SCHEMA_MESSAGES["first_not_hash"])
    if not multi:
        if len(key_schema) > 2:
            elements = ", ".join(
                f"KeySchemaElement(attributeName={k['AttributeName']}, keyType={k.get('KeyType')})"
                for k in key_schema
            )
            raise ValidationException(
                f"1 validation error detected: Value '[{elements}]' at '{path}' failed to satisfy "
                "constraint: Member must have length less than or equal to 2"
            )
        if len(key_schema) == 2 and names[0] == names[1]:
            raise ValidationException(KEY_SCHEMA_MESSAGES["same_name"])
        if len(key_schema) == 2 and kinds[1] != "RANGE":
            raise ValidationException(KEY_SCHEMA_MESSAGES["second_not_range"])
    else:
        if "RANGE" in kinds and "HASH" in kinds[kinds.index("RANGE") :]:
            raise ValidationException(KEY_SCHEMA_MESSAGES["hash_after_range"])
        for kind in ("HASH", "RANGE"):
            if kinds.count(kind) > MAX_KEY_ATTRIBUTES:
                raise ValidationException(KEY_SCHEMA_MESSAGES[f"too_many_{kind}"])
        if len(set(names)) != len(names):
            same_pair = len(names) == 2 and kinds == ["HASH", "RANGE"]
            raise ValidationException(KEY_SCHEMA_MESSAGES["same_name" if same_pair else "duplicate_names"])
    for name in names:
        if name not in definitions:
            raise invalid(
                f"Some index key attributes are not defined in AttributeDefinitions. Keys: [{name}], "
                f"AttributeDefinitions: [{', '.join(definitions)}]"
            )


def _check_projection(projection: dict, index_name: str) -> int:
    kind = projection.get("ProjectionType")
    if kind is None:
        raise invalid("Unknown ProjectionType: null")
    non_key = projection.get("NonKeyAttributes")
    if non_key and len(set(non_key)) != len(non_key):
        twice = sorted({name for name in non_key if non_key.count(name) > 1})
        raise invalid(f"Duplicate NonKeyAttributes in Projection of index {index_name}: {', '.join(twice)}")
    if kind != "INCLUDE" and non_key:
        raise invalid(f"ProjectionType is {kind}, but NonKeyAttributes is specified (index {index_name})")
    if kind == "INCLUDE" and not non_key:
        raise invalid(
            f"ProjectionType is INCLUDE, but NonKeyAttributes is not specified (index {index_name})"
        )
    return len(non_key or ())


def _throughput(billing: str, throughput: dict | None, what: str) -> dict[str, Any]:
    if billing == "PAY_PER_REQUEST":
        if throughput:
            raise invalid(
                "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST"
            )
        return {"NumberOfDecreasesToday": 0, "ReadCapacityUnits": 0, "WriteCapacityUnits": 0}
    if not throughput:
        raise invalid(
            f"ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED ({what})"
        )
    return {
        "NumberOfDecreasesToday": 0,
        "ReadCapacityUnits": throughput["ReadCapacityUnits"],
        "WriteCapacityUnits": throughput["WriteCapacityUnits"],
    }


def _index_description(engine: Engine, table: str, index: dict, billing: str | None) -> dict[str, Any]:
    out = {
        "IndexName": index["IndexName"],
        "KeySchema": index["KeySchema"],
        "Projection": index.get("Projection") or {"ProjectionType": "ALL"},
        "IndexArn": f"{engine.arn(table)}/index/{index['IndexName']}",
    }
    if billing is not None:  # GSIs have their own status and throughput
        out["IndexStatus"] = "ACTIVE"
        out["ProvisionedThroughput"] = _throughput(
            billing, index.get("ProvisionedThroughput"), index["IndexName"]
        )
    return out


def _stream_fields(
    engine: Engine, table: str, spec: dict | None, previous: str | None = None
) -> dict[str, Any]:
    if not spec or not spec.get("StreamEnabled"):
        return {}
    if "StreamViewType" not in spec:
        raise invalid("StreamViewType is required when StreamEnabled is true")
    moment = datetime.datetime.fromtimestamp(engine.clock(), datetime.UTC)
    if previous is not None:  # every stream of a table needs its own label (and so ARN), even within 1 ms
        moment = max(
            moment, datetime.datetime.fromisoformat(previous + "+00:00") + datetime.timedelta(milliseconds=1)
        )
    label = moment.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3]
    return {
        "StreamSpecification": {"StreamEnabled": True, "StreamViewType": spec["StreamViewType"]},
        "LatestStreamLabel": label,
        "LatestStreamArn": f"{engine.arn(table)}/stream/{label}",
    }


def create_table(engine: Engine, request: dict) -> dict:
    with engine.store.write() as conn:
        meta = create_table_in(engine, conn, request)
        return {"TableDescription": describe(engine, conn, meta)}


def create_table_in(engine: Engine, conn: Any, request: dict) -> TableMeta:
    """Check a CreateTable request and create the table inside the write transaction ``conn``, so a
    caller that fills it (a restore) commits the table and its items together or not at all."""
    name = request["TableName"]
    # Optional in botocore's model (for other request forms), required by the service.
    missing = [
        (None, path, NOT_NULL)
        for member, path in (("AttributeDefinitions", "attributeDefinitions"), ("KeySchema", "keySchema"))
        if member not in request
    ]
    if missing:
        raise validation_error(missing)
    definitions_list = request["AttributeDefinitions"]
    definitions = {d["AttributeName"]: d["AttributeType"] for d in definitions_list}
    if len(definitions) != len(definitions_list):
        names = [d["AttributeName"] for d in definitions_list]
        twice = next(name for name in names if names.count(name) > 1)
        raise invalid(f"Duplicate AttributeName in AttributeDefinitions: {twice}")
    _check_key_schema(request["KeySchema"], definitions, "keySchema")
    table_hash = next(k["AttributeName"] for k in request["KeySchema"] if k["KeyType"] == "HASH")
    table_has_range = len(request["KeySchema"]) == 2
    billing = request.get("BillingMode", "PROVISIONED")
    gsis = request.get("GlobalSecondaryIndexes") or []
    lsis = request.get("LocalSecondaryIndexes") or []
    if len(gsis) > MAX_GSIS:
        raise invalid(QUOTA_MESSAGES["gsi_count"])
    if len(lsis) > MAX_LSIS:
        raise invalid(QUOTA_MESSAGES["lsi_count"])
    if lsis and not table_has_range:
        raise invalid(
            "Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex"
        )
    index_names: set[str] = set()
    projected = 0
    used = {k["AttributeName"] for k in request["KeySchema"]}
    numbered = [("GSI", n, i) for n, i in enumerate(gsis, 1)] + [("LSI", n, i) for n, i in enumerate(lsis, 1)]
    for kind, number, index in numbered:
        if index["IndexName"] in index_names:
            raise invalid(f"Duplicate index name: {index['IndexName']}")
        index_names.add(index["IndexName"])
        field_path = "globalSecondaryIndexes" if kind == "GSI" else "localSecondaryIndexes"
        _check_key_schema(
            index["KeySchema"], definitions, f"{field_path}.{number}.member.keySchema", multi=kind == "GSI"
        )
        used.update(k["AttributeName"] for k in index["KeySchema"])
        projected += _check_projection(index.get("Projection") or {}, index["IndexName"])
        if kind == "LSI":
            index_hash = next(k["AttributeName"] for k in index["KeySchema"] if k["KeyType"] == "HASH")
            if index_hash != table_hash or len(index["KeySchema"]) != 2:
                raise invalid(
                    f"Index KeySchema does not have the same leading hash key as table KeySchema for index: "
                    f"{index['IndexName']}. index hash key: {index_hash}, table hash key: {table_hash}"
                )
    if projected > MAX_PROJECTED_ATTRIBUTES:
        raise invalid(QUOTA_MESSAGES["projected"])
    if used != set(definitions):
        raise invalid(
            "Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions"
        )
    throughput = _throughput(billing, request.get("ProvisionedThroughput"), "table")
    tags = check_tags(request.get("Tags", []))
    if engine.store.table(name) is not None:
        raise ResourceInUseException(f"Table already exists: {name}")
    table_id = engine.store.next_table_id(conn)
    now = engine.clock()
    description: dict[str, Any] = {
        "AttributeDefinitions": definitions_list,
        "TableName": name,
        "KeySchema": request["KeySchema"],
        "TableStatus": "ACTIVE",
        "CreationDateTime": now,
        "ProvisionedThroughput": throughput,
        "TableArn": engine.arn(name),
        "TableId": str(uuid.uuid4()),
        "BillingModeSummary": {"BillingMode": billing, "LastUpdateToPayPerRequestDateTime": now},
        "DeletionProtectionEnabled": bool(request.get("DeletionProtectionEnabled", False)),
        "TableClassSummary": {"TableClass": request.get("TableClass", "STANDARD")},
    }
    if gsis:
        description["GlobalSecondaryIndexes"] = [_index_description(engine, name, i, billing) for i in gsis]
    if lsis:
        description["LocalSecondaryIndexes"] = [_index_description(engine, name, i, None) for i in lsis]
    description.update(_stream_fields(engine, name, request.get("StreamSpecification")))
    _describe_sse(engine, description, request.get("SSESpecification"))
    document = {
        "Description": description,
        "IndexNumbers": {i["IndexName"]: n for n, i in enumerate(gsis + lsis)},
        "NextIndexNumber": len(gsis) + len(lsis),
        "Tags": tags,
        "TimeToLive": {"TimeToLiveStatus": "DISABLED"},
    }
    if request.get("ResourcePolicy") is not None:
        # As PutResourcePolicy right after the table exists (GetResourcePolicy finds it).
        check_policy(request["ResourcePolicy"])
        revision = str(int(now * 1000))
        document["ResourcePolicies"] = {
            description["TableArn"]: {"Policy": request["ResourcePolicy"], "RevisionId": revision}
        }
    meta = engine.store.save_table(conn, table_id, document)
    engine.store.create_table_storage(conn, meta)
    return meta


def sse_description(engine: Engine, spec: dict | None) -> dict[str, Any] | None:
    """The SSEDescription of an SSESpecification: None for DynamoDB's own key (no SSEDescription
    is shown then), else KMS with the key's ARN (a key id or alias given alone is in the engine's
    account and region; the AWS managed key is ``alias/aws/dynamodb``)."""
    if not spec or not spec.get("Enabled", False):
        return None
    key = spec.get("KMSMasterKeyId") or "alias/aws/dynamodb"
    if not key.startswith("arn:"):
        key = f"arn:aws:kms:{engine.region}:{engine.account}:{key if key.startswith('alias/') else 'key/' + key}"
    return {"Status": "ENABLED", "SSEType": spec.get("SSEType", "KMS"), "KMSMasterKeyArn": key}


def _describe_sse(engine: Engine, description: dict[str, Any], spec: dict | None) -> None:
    found = sse_description(engine, spec)
    if found is None:
        description.pop("SSEDescription", None)
    else:
        description["SSEDescription"] = found


def check_policy(text: str) -> None:
    """A resource-based policy DynamoDB would take: JSON with a Statement."""
    try:
        policy = json.loads(text)
    except ValueError:
        raise ValidationException("Invalid policy document: the policy is not valid JSON") from None
    if not isinstance(policy, dict) or "Statement" not in policy:
        raise ValidationException("Invalid policy document: a policy needs a Statement")


def describe(engine: Engine, conn: Any, meta: TableMeta) -> dict[str, Any]:
    """The TableDescription with live ItemCount and sizes for the table and each index."""
    description = copy.deepcopy(meta.description)
    description["ItemCount"], description["TableSizeBytes"] = engine.store.counts(conn, meta)
    for field_name in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        for index in description.get(field_name, []):
            index["ItemCount"], index["IndexSizeBytes"] = engine.store.counts(
                conn, meta, meta.indexes[index["IndexName"]]
            )
    return description


def describe_table(engine: Engine, request: dict) -> dict:
    with engine.store.read() as conn:
        meta = require_table(engine, request["TableName"])
        return {"Table": describe(engine, conn, meta)}


def list_tables(engine: Engine, request: dict) -> dict:
    limit = request.get("Limit", 100)
    start = request.get("ExclusiveStartTableName")
    with engine.store.read():
        names = [n for n in engine.store.tables() if start is None or n > start]
    response: dict[str, Any] = {"TableNames": names[:limit]}
    if len(names) > limit:
        response["LastEvaluatedTableName"] = names[limit - 1]
    return response


_DELETED_TABLE_FIELDS = (
    "TableName",
    "TableStatus",
    "TableId",
    "TableArn",
    "BillingModeSummary",
    "ProvisionedThroughput",
    "TableSizeBytes",
    "ItemCount",
)


def delete_table(engine: Engine, request: dict) -> dict:
    with engine.store.write() as conn:
        meta = require_table(engine, request["TableName"])
        if meta.description.get("DeletionProtectionEnabled"):
            raise ValidationException(
                "Resource cannot be deleted as it is currently protected against deletion. "
                "Disable deletion protection first."
            )
        full = describe(engine, conn, meta)
        # DynamoDB answers DeleteTable with a reduced description: no key schema, dates or indexes.
        description = {name: full[name] for name in _DELETED_TABLE_FIELDS if name in full}
        description["TableStatus"] = "DELETING"
        close_stream(engine, conn, meta.id, meta.description)  # readable for 24 hours more
        engine.store.drop_table(conn, meta)
        return {"TableDescription": description}


# -------------------------------------------------------------------------------------------- UpdateTable


# What UpdateTable can change: a request naming none of them is refused before anything is read.
_TABLE_CHANGES = (
    "ProvisionedThroughput",
    "BillingMode",
    "StreamSpecification",
    "GlobalSecondaryIndexUpdates",
    "SSESpecification",
    "ReplicaUpdates",
    "TableClass",
    "DeletionProtectionEnabled",
    "OnDemandThroughput",
    "WarmThroughput",
    "MultiRegionConsistency",
    "GlobalTableWitnessUpdates",
)
_GSI_ACTIONS = ("Create", "Update", "Delete")


def _check_update_request(request: dict) -> None:
    """DynamoDB's checks of an UpdateTable request's shape: something to change, one action per update."""
    if not any(request.get(field_name) not in (None, []) for field_name in _TABLE_CHANGES):
        raise ValidationException(
            "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates "
            "or SSESpecification or ReplicaUpdates is required in UpdateTable"
        )
    for update in request.get("GlobalSecondaryIndexUpdates") or []:
        actions = [name for name in _GSI_ACTIONS if isinstance(update, dict) and update.get(name) is not None]
        if not actions:
            raise invalid(
                "One of GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Update or "
                "GlobalSecondaryIndexUpdate.Delete must be specified"
            )
        if len(actions) > 1:
            raise invalid(
                "Only one of GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Update or "
                "GlobalSecondaryIndexUpdate.Delete can be specified in one GlobalSecondaryIndexUpdate"
            )
        create = update.get("Create")
        if create is not None:
            # The new index's key attributes must be in this request's AttributeDefinitions, even when
            # the table already defines them.
            given = {d.get("AttributeName") for d in request.get("AttributeDefinitions") or []}
            keys = [k.get("AttributeName") for k in create.get("KeySchema") or []]
            if any(key not in given for key in keys):
                raise invalid(
                    "Some index key attributes are not defined in AttributeDefinitions. "
                    f"Keys: [{', '.join(map(str, keys))}], AttributeDefinitions: [{', '.join(map(str, sorted(given)))}]"
                )


def _redefined(name: str, known: str, new: str) -> ValidationException:
    return invalid(
        "Attributes cannot be redefined. Please check that your attribute has the same type as previously "
        f"defined. Existing schema: {{AttributeName: {name},AttributeType: {known}}}, "
        f"New schema: {{AttributeName: {name},AttributeType: {new}}}"
    )


def update_table(engine: Engine, request: dict) -> dict:
    _check_update_request(request)
    with engine.store.write() as conn:
        meta = require_table(engine, request["TableName"])
        document = copy.deepcopy(meta.extra)
        description = document["Description"]
        definitions = {d["AttributeName"]: d["AttributeType"] for d in description["AttributeDefinitions"]}
        for new in request.get("AttributeDefinitions", []):
            known = definitions.get(new["AttributeName"])
            if known is not None and known != new["AttributeType"]:
                raise _redefined(new["AttributeName"], known, new["AttributeType"])
            definitions[new["AttributeName"]] = new["AttributeType"]
        billing = request.get("BillingMode", description["BillingModeSummary"]["BillingMode"])
        if "BillingMode" in request or "ProvisionedThroughput" in request:
            throughput = request.get("ProvisionedThroughput")
            if (
                billing == "PROVISIONED"
                and throughput is None
                and description["BillingModeSummary"]["BillingMode"] == "PROVISIONED"
            ):
                throughput = {
                    "ReadCapacityUnits": description["ProvisionedThroughput"]["ReadCapacityUnits"],
                    "WriteCapacityUnits": description["ProvisionedThroughput"]["WriteCapacityUnits"],
                }
            description["ProvisionedThroughput"] = _throughput(billing, throughput, "table")
            description["BillingModeSummary"] = {
                "BillingMode": billing,
                "LastUpdateToPayPerRequestDateTime": engine.clock(),
            }
        if "TableClass" in request:
            description["TableClassSummary"] = {"TableClass": request["TableClass"]}
        if "DeletionProtectionEnabled" in request:
            description["DeletionProtectionEnabled"] = bool(request["DeletionProtectionEnabled"])
        if "SSESpecification" in request:
            _describe_sse(engine, description, request["SSESpecification"])
        if "StreamSpecification" in request:
            _update_stream(engine, conn, meta.id, description, request["StreamSpecification"])
        created, deleted = _update_indexes(engine, meta, document, definitions, billing, request)
        description["AttributeDefinitions"] = [
            {"AttributeName": n, "AttributeType": t} for n, t in definitions.items()
        ]
        _prune_definitions(description)
        new_meta = engine.store.save_table(conn, meta.id, document)
        for index in deleted:
            engine.store.drop_index_storage(conn, meta, index)
        for name in created:
            index = new_meta.indexes[name]
            engine.store.create_index_storage(conn, new_meta, index)
            engine.store.backfill_index(conn, new_meta, index)
        return {"TableDescription": describe(engine, conn, new_meta)}


def _update_stream(engine: Engine, conn: Any, table_id: int, description: dict, spec: dict) -> None:
    """Enable or disable the table's stream. Disabling closes it (readable for 24 hours more); enabling
    starts a new, empty stream with its own ARN (see ops/streams.py on stream generations)."""
    current = description.get("StreamSpecification", {}).get("StreamEnabled", False)
    if spec.get("StreamEnabled") and current:
        raise invalid("Table already has an enabled stream")
    if not spec.get("StreamEnabled") and not current:
        raise invalid("Table does not have an enabled stream to disable")
    # Also on re-enabling: a stream disabled by an older engine gets its end recorded only now.
    close_stream(engine, conn, table_id, description)
    if not spec.get("StreamEnabled"):
        description["StreamSpecification"] = {"StreamEnabled": False}
        return
    description.update(
        _stream_fields(engine, description["TableName"], spec, description.get("LatestStreamLabel"))
    )
    open_stream(engine, conn, table_id, description)


def _update_indexes(
    engine: Engine, meta: TableMeta, document: dict, definitions: dict, billing: str, request: dict
):
    description = document["Description"]
    updates = request.get("GlobalSecondaryIndexUpdates") or []
    structural = [u for u in updates if "Create" in u or "Delete" in u]
    if len(structural) > 1:
        raise LimitExceededException(QUOTA_MESSAGES["one_index_per_update"])
    gsis = description.setdefault("GlobalSecondaryIndexes", [])
    created: list[str] = []
    deleted = []
    for update in updates:
        if "Create" in update:
            index = update["Create"]
            if index["IndexName"] in meta.indexes:
                raise invalid(f"Index already exists: {index['IndexName']}")
            if len(gsis) >= MAX_GSIS:
                raise LimitExceededException(QUOTA_MESSAGES["gsi_count_update"])
            _check_key_schema(
                index["KeySchema"], definitions, "globalSecondaryIndexUpdates.create.keySchema", multi=True
            )
            added = _check_projection(index.get("Projection") or {}, index["IndexName"])
            if added + _projected_count(description) > MAX_PROJECTED_ATTRIBUTES:
                raise invalid(QUOTA_MESSAGES["projected"])
            gsis.append(_index_description(engine, meta.name, index, billing))
            document["IndexNumbers"][index["IndexName"]] = document["NextIndexNumber"]
            document["NextIndexNumber"] += 1
            created.append(index["IndexName"])
        elif "Delete" in update:
            name = update["Delete"]["IndexName"]
            if name not in meta.indexes or meta.indexes[name].kind != "GSI":
                raise ResourceNotFoundException(f"Requested resource not found: Index: {name} not found")
            gsis[:] = [g for g in gsis if g["IndexName"] != name]
            del document["IndexNumbers"][name]
            deleted.append(meta.indexes[name])
        elif "Update" in update:
            name = update["Update"]["IndexName"]
            target = next((g for g in gsis if g["IndexName"] == name), None)
            if target is None:
                raise ResourceNotFoundException(f"Requested resource not found: Index: {name} not found")
            target["ProvisionedThroughput"] = _throughput(
                billing, update["Update"].get("ProvisionedThroughput"), name
            )
    if not gsis:
        description.pop("GlobalSecondaryIndexes")
    return created, deleted


def _projected_count(description: dict) -> int:
    """INCLUDE attributes already projected by the table's indexes (the quota spans all of them)."""
    return sum(
        len(index.get("Projection", {}).get("NonKeyAttributes") or ())
        for field_name in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes")
        for index in description.get(field_name, [])
    )


def _prune_definitions(description: dict) -> None:
    """Keep only attribute definitions some key still uses, as DynamoDB does after an index is deleted."""
    used = {k["AttributeName"] for k in description["KeySchema"]}
    for field_name in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        for index in description.get(field_name, []):
            used.update(k["AttributeName"] for k in index["KeySchema"])
    description["AttributeDefinitions"] = [
        d for d in description["AttributeDefinitions"] if d["AttributeName"] in used
    ]


OPERATIONS = {
    "CreateTable": create_table,
    "DescribeTable": describe_table,
    "ListTables": list_tables,
    "UpdateTable": update_table,
    "DeleteTable": delete_table,
}
