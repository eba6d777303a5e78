"""Excerpts of the five seed documents expressed in the design format, run through the model."""

from datetime import UTC, datetime

import pytest

from tablewright.design import DesignError, loads
from tablewright.design.patterns import greatest_key_with_prefix

NEXUS = """\
entity_type_attribute: entityType
conventions:
  attribute_case: camelCase
  entity_type_case: UPPERCASE
  key_names: generic
  id_prefix: required
  required_attributes: [entityType, version, createdAt, updatedAt]
  version_on_update: required
  timestamps: rfc3339
tables:
  ProductivityData:
    partition_key: PK
    sort_key: SK
    indexes:
      GSI1: {partition_key: GSI1PK, sort_key: GSI1SK}
      GSI3: {partition_key: GSI3PK, sort_key: GSI3SK}
entities:
  Event:
    table: ProductivityData
    entity_type: EVENT
    version: version
    attributes:
      eventId: {type: string, required: true, prefix: evt_, format: uuid4}
      userId: {type: string, required: true}
      startUtc: {type: string, required: true, format: rfc3339}
      endUtc: {type: string, required: true, format: rfc3339}
      startTzid: {type: string, format: iana_tz, nullable: true}
      version: {type: number, default: 1}
      createdAt: {type: string, format: rfc3339, computed: created_at}
      updatedAt: {type: string, format: rfc3339, computed: updated_at}
    keys:
      table: {pk: "USER#{userId}", sk: "EVENT#{eventId}"}
      GSI1: {pk: "USER#{userId}#{startUtc|year}", sk: "{startUtc}"}
  Task:
    table: ProductivityData
    entity_type: TASK
    version: version
    attributes:
      taskId: {type: string, required: true, prefix: task_, format: uuid4}
      userId: {type: string, required: true}
      dueUtc: {type: string, format: rfc3339}
      status: {type: string, enum: [BACKLOG, TODO, IN_PROGRESS, DONE], default: BACKLOG}
      priority: {type: number, min: 1, max: 5}
      version: {type: number, default: 1}
      createdAt: {type: string, format: rfc3339, computed: created_at}
      updatedAt: {type: string, format: rfc3339, computed: updated_at}
    keys:
      table: {pk: "USER#{userId}", sk: "TASK#{taskId}"}
      GSI1: {pk: "USER#{userId}#{dueUtc|year}", sk: "{dueUtc}", when: "dueUtc exists"}
      GSI3: {pk: "USER#{userId}", sk: "TASK#{status}#{priority}", when: "status <> 'BACKLOG'"}
patterns:
  agenda_week:
    params: {userId: string, from: {type: string, format: rfc3339}, to: {type: string, format: rfc3339}}
    returns: [Event, Task]
    means:
      where: "userId = :userId AND startUtc BETWEEN :from AND :to"
      order: startUtc asc
    served:
      op: query
      index: GSI1
      via: Event
      partition: {startUtc: ":from"}
      sort: {between: [{startUtc: ":from"}, {startUtc: ":to"}]}
      buckets: {attribute: startUtc, from: ":from", to: ":to"}
  kanban_column:
    params: {userId: string, status: string}
    returns: Task
    means: {where: "userId = :userId AND status = :status", order: priority asc}
    served: {op: query, index: GSI3, sort: {begins_with: {status: ":status"}}}
"""

NOW = datetime(2025, 12, 30, 12, 0, tzinfo=UTC)
TASK_ID = "task_550e8400-e29b-41d4-a716-446655440000"


@pytest.fixture(scope="module")
def nexus():
    return loads(NEXUS, "nexus.yaml")


def test_nexus_loads_clean_under_its_conventions(nexus):
    assert nexus.warnings == []
    assert nexus.conventions.requires_version_check
    assert nexus.entities["Task"].version_attribute == "version"


def test_nexus_sparse_gsi1_and_gsi3(nexus):
    task = nexus.entities["Task"]
    backlog = task.to_item({"taskId": TASK_ID, "userId": "u1"}, now=NOW)
    assert backlog["status"] == "BACKLOG" and backlog["entityType"] == "TASK"
    assert backlog["PK"] == "USER#u1" and backlog["SK"] == f"TASK#{TASK_ID}"
    assert backlog["createdAt"] == backlog["updatedAt"] == "2025-12-30T12:00:00Z"
    assert not {"GSI1PK", "GSI1SK", "GSI3PK", "GSI3SK"} & set(backlog)  # undated backlog task: in no GSI
    dated = task.to_item(
        {
            "taskId": TASK_ID,
            "userId": "u1",
            "dueUtc": "2026-01-02T09:00:00Z",
            "status": "TODO",
            "priority": 2,
        },
        now=NOW,
    )
    assert (dated["GSI1PK"], dated["GSI1SK"]) == ("USER#u1#2026", "2026-01-02T09:00:00Z")
    assert (dated["GSI3PK"], dated["GSI3SK"]) == ("USER#u1", "TASK#TODO#2")
    assert task.key(dated, "GSI3") == {"GSI3PK": "USER#u1", "GSI3SK": "TASK#TODO#2"}
    assert task.key({**dated, "status": "BACKLOG"}, "GSI3") is None


def test_created_at_kept_on_update(nexus):
    task = nexus.entities["Task"]
    item = task.to_item(
        {"taskId": TASK_ID, "userId": "u1", "createdAt": "2025-01-01T00:00:00Z"}, now=NOW, created=False
    )
    assert item["createdAt"] == "2025-01-01T00:00:00Z" and item["updatedAt"] == "2025-12-30T12:00:00Z"


def test_week_across_new_year_fans_out_to_two_year_buckets(nexus):
    pattern = nexus.patterns["agenda_week"]
    params = {"userId": "u1", "from": "2025-12-29T00:00:00Z", "to": "2026-01-04T23:59:59Z"}
    buckets = pattern.buckets(params)
    assert [b["from"] for b in buckets] == ["2025-12-29T00:00:00Z", "2026-01-01T00:00:00Z"]
    assert all(b["to"] == params["to"] and b["userId"] == "u1" for b in buckets)
    keys = [pattern.key_condition(b) for b in buckets]
    assert [k.partition_value for k in keys] == ["USER#u1#2025", "USER#u1#2026"]
    assert keys[1].index == "GSI1" and keys[1].sort_op == "between"
    assert keys[1].sort_values == ("2026-01-01T00:00:00Z", "2026-01-04T23:59:59Z")
    inside = {"userId": "u1", "from": "2026-03-02T00:00:00Z", "to": "2026-03-08T00:00:00Z"}
    assert len(pattern.buckets(inside)) == 1


def test_buckets_with_datetimes_and_descending_order(nexus):
    pattern = nexus.patterns["agenda_week"]
    pattern.served.forward = False
    try:
        params = {
            "userId": "u",
            "from": datetime(2024, 12, 30, tzinfo=UTC),
            "to": datetime(2026, 1, 2, tzinfo=UTC),
        }
        buckets = pattern.buckets(params)
    finally:
        pattern.served.forward = True
    assert [pattern.key_condition(b).partition_value for b in buckets] == [
        "USER#u#2026",
        "USER#u#2025",
        "USER#u#2024",
    ]


def test_kanban_begins_with_prefix(nexus):
    condition = nexus.patterns["kanban_column"].key_condition({"userId": "u1", "status": "IN_PROGRESS"})
    assert (condition.partition_value, condition.sort_op, condition.sort_values) == (
        "USER#u1",
        "begins_with",
        ("TASK#IN_PROGRESS#",),
    )


def test_nexus_conventions_catch_breaches():
    broken = (
        NEXUS.replace("entity_type: TASK", "entity_type: Task")
        .replace("      priority:", "      Priority:")
        .replace(
            "GSI3: {partition_key: GSI3PK, sort_key: GSI3SK}",
            "StatusIndex: {partition_key: statusPk, sort_key: GSI3SK}",
        )
    )
    broken = broken.replace("GSI3: {pk:", "StatusIndex: {pk:").replace("index: GSI3,", "index: StatusIndex,")
    broken = broken.replace("TASK#{status}#{priority}", "TASK#{status}#{Priority}")
    with pytest.raises(DesignError) as info:
        loads(broken, "nexus.yaml")
    text = str(info.value)
    assert "entity type 'Task' of Task is not UPPERCASE" in text and "write 'TASK'" in text
    assert "attribute Priority of Task is not camelCase" in text
    assert "index key statusPk of StatusIndex is not named GSI<N>PK" in text
    lines = {p.message.split(":")[0]: p.line for p in info.value.problems}
    assert lines["convention entity_type_case"] == 36  # the "entity_type: Task" line


def test_conventions_as_warnings_do_not_fail():
    relaxed = (
        NEXUS.replace(
            "  timestamps: rfc3339\n", "  timestamps: rfc3339\n  severity: {attribute_case: warning}\n"
        )
        .replace("      priority:", "      Priority:")
        .replace("TASK#{status}#{priority}", "TASK#{status}#{Priority}")
    )
    design = loads(relaxed, "nexus.yaml")
    assert len(design.warnings) == 1 and "Priority" in design.warnings[0] and "warning" in design.warnings[0]


SENSOR = """\
tables:
  device_readings:
    partition_key: hardware_id
    sort_key: ts_batch
    ttl: expiration_time
entities:
  Reading:
    table: device_readings
    additional_attributes: false
    attributes:
      hardware_id: {type: string, required: true, format: mac}
      timestamp_ms: {type: number, required: true, format: epoch_ms}
      batch_id: {type: string, required: true, max_length: 256, charset: "[A-Za-z0-9_:-]"}
      boot_id: {type: string, required: true, format: uuid4}
      sensor_status: {type: map, values: {type: string, enum: [ok, error]}}
      expiration_time: {type: number, computed: {ttl: {from: timestamp_ms, retention: 90d}}}
    keys:
      table: {pk: "{hardware_id}", sk: "{timestamp_ms:013}#{batch_id}"}
patterns:
  time_range:
    params: {hardware_id: string, from_ms: {type: number, format: epoch_ms}, to_ms: {type: number, format: epoch_ms}}
    returns: Reading
    means: {where: "hardware_id = :hardware_id AND timestamp_ms BETWEEN :from_ms AND :to_ms", order: timestamp_ms asc}
    served:
      op: query
      sort: {between: [{timestamp_ms: ":from_ms"}, {timestamp_ms: ":to_ms"}]}
"""


def test_sensor_sort_key_range_and_ttl_in_seconds():
    design = loads(SENSOR, "sensor.yaml")
    reading = design.entities["Reading"]
    values = {
        "hardware_id": "AA:BB:CC:DD:EE:FF",
        "timestamp_ms": 1704067800000,
        "batch_id": "AA:BB:CC:DD:EE:FF_7c9e6679-7425-40de-944b-e07fc1f90ae7_1704067200000_1704067800000",
        "boot_id": "7c9e6679-7425-40de-944b-e07fc1f90ae7",
    }
    assert reading.validate(values) == []
    item = reading.to_item(values, now=NOW)
    assert item["ts_batch"] == "1704067800000#" + values["batch_id"]
    assert item["expiration_time"] == 1704067800 + 90 * 86400  # epoch SECONDS from a millisecond source
    condition = design.patterns["time_range"].key_condition(
        {"hardware_id": "AA:BB:CC:DD:EE:FF", "from_ms": 1704067200000, "to_ms": 1704067800000}
    )
    assert condition.sort_values == ("1704067200000#", greatest_key_with_prefix("1704067800000#"))
    assert condition.sort_values[0] <= item["ts_batch"] <= condition.sort_values[1]


EVSE = """\
tables:
  events:
    name: evse-events
    partition_key: device_id
    sort_key: timestamp_mt
    indexes:
      event-type-index: {partition_key: event_type, sort_key: timestamp_mt, projection: ALL}
entities:
  Event:
    table: events
    attributes:
      wireless_device_id: {type: string, required: true, format: uuid}
      timestamp: {type: number, required: true, format: epoch_ms}
      event_type: string
      device_id: {type: string, computed: {template: "SC-{wireless_device_id|sha256:4|upper}"}}
      timestamp_mt: {type: string, computed: {template: "{timestamp|tz:America/Denver|format:%Y-%m-%d %H:%M:%S.%L}"}}
"""


def test_evse_sc_id_and_mountain_time_keys():
    import hashlib

    design = loads(EVSE, "evse.yaml")
    event = design.entities["Event"]
    uuid = "b319d001-1111-4222-8333-444455556666"
    ms = int(datetime(2026, 2, 21, 21, 30, tzinfo=UTC).timestamp() * 1000)
    item = event.to_item({"wireless_device_id": uuid, "timestamp": ms, "event_type": "ota_start"})
    assert item["device_id"] == "SC-" + hashlib.sha256(uuid.encode()).hexdigest()[:8].upper()
    assert item["timestamp_mt"] == "2026-02-21 14:30:00.000"
    assert event.key(item, "event-type-index") == {
        "event_type": "ota_start",
        "timestamp_mt": "2026-02-21 14:30:00.000",
    }
    assert design.tables["events"].table_name == "evse-events"


WOMS = """\
tables:
  plants:
    partition_key: PK
    sort_key: SK
    indexes:
      GSI1: {partition_key: GSI1PK, sort_key: GSI1SK}
      GSI3: {partition_key: GSI3PK, sort_key: GSI3SK, projection: KEYS_ONLY}
  alerts:
    partition_key: PK
    sort_key: SK
    ttl: ttl
    billing: {mode: provisioned, read: 5, write: 5}
entities:
  Plant:
    table: plants
    unique: [[vendor_id, vendor_plant_id]]
    attributes: {plant_id: string, org_id: string, vendor_id: string, vendor_plant_id: string}
    keys:
      table: {pk: "PLANT#{plant_id}", sk: "PLANT#{plant_id}"}
      GSI1: {pk: "ORG#{org_id}", sk: "PLANT#{plant_id}"}
      GSI3: {pk: "VENDOR#{vendor_id}#PLANT#{vendor_plant_id}", sk: "PLANT#{plant_id}"}
  Alert:
    table: alerts
    attributes:
      plant_id: string
      alert_id: string
      alert_time: {type: string, format: rfc3339}
      ttl: {type: number, computed: {ttl: {from: alert_time, retention: 365d}}}
    keys:
      table: {pk: "PLANT#{plant_id}", sk: "{alert_time}#{alert_id}"}
volumes:
  peak_factor: 2
  entities:
    Alert: {items: 12775000, item_size: 500B, writes: 35K/day}
"""


def test_woms_multi_table_uniqueness_and_ttl_from_rfc3339():
    design = loads(WOMS, "woms.yaml")
    assert design.entities["Plant"].unique == (("vendor_id", "vendor_plant_id"),)
    assert design.tables["alerts"].billing.read == 5
    assert design.tables["plants"].indexes["GSI3"].projection.type == "KEYS_ONLY"
    alert = design.entities["Alert"].to_item(
        {"plant_id": "123", "alert_id": "789", "alert_time": "2025-01-15T14:30:00Z"}
    )
    assert alert["SK"] == "2025-01-15T14:30:00Z#789"
    assert alert["ttl"] == int(datetime(2026, 1, 15, 14, 30, tzinfo=UTC).timestamp())
    assert design.volumes.entities["Alert"].writes_per_second == pytest.approx(35000 / 86400)
    assert design.volumes.peak(1.0) == 2.0
