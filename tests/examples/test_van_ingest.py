"""examples/van-telemetry running: the IoT topic rules as data (iot_rules.yaml), applied by the local
ingester to MQTT-shaped messages; messages in, items and TTLs (epoch seconds) out, on the engine."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from tablewright.runtime import Runtime, ValidationError

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "van-telemetry"
sys.path.insert(0, str(EXAMPLE))
import iot_rules  # noqa: E402
import van_telemetry  # noqa: E402
from ingest import Ingester, sample_lines  # noqa: E402
from iot_rules import Message, RuleError, load_rules, parse_rule  # noqa: E402

T = 1_733_529_600_718
THIRTY_DAYS_S = 30 * 24 * 3600


@pytest.fixture
def ingester() -> Ingester:
    rt = Runtime.open(van_telemetry.DESIGN)
    rt.create_tables()
    return Ingester(rt, load_rules())


def message(topic: str, payload: object, at: int = T) -> Message:
    raw = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
    return Message(topic, raw, at)


@pytest.mark.parametrize("kind", ["telemetry", "status", "alert"])
def test_each_rule_writes_what_the_documented_rule_function_writes(ingester, kind):
    payload = {"battery_voltage": 12.6, "hvac_mode": "heat", "pdm1": {"1": True}}
    written = ingester.receive(message(f"van/storyteller-van-01/{kind}", payload))
    expected = van_telemetry.rule_output(f"van/storyteller-van-01/{kind}", json.dumps(payload), T)
    assert written == [expected]
    stored = ingester.rt.get("Message", thing_name="storyteller-van-01", timestamp=T)
    assert stored["message_type"] == kind
    assert stored["ttl"] == T // 1000 + THIRTY_DAYS_S  # seconds, 30 days after the broker's receive time
    raw = ingester.rt.client.get_item(
        TableName="van-telemetry", Key={"thing_name": {"S": "storyteller-van-01"}, "timestamp": {"N": str(T)}}
    )["Item"]
    assert raw["ttl"] == {"N": str(T // 1000 + THIRTY_DAYS_S)}  # a whole number, as DynamoDB TTL reads it


def test_sample_traffic_in_items_and_ttls_out(ingester):
    lines = [json.loads(line) for line in sample_lines(3)]
    for line in lines:
        ingester.receive(message(line["topic"], line["payload"], line["timestamp"]))
    per_van = Counter(line["topic"].split("/")[1] for line in lines)
    for van, count in per_van.items():
        items = ingester.rt.run(
            "time_range", thing_name=van, start=946_684_800_000, end=4_102_444_799_999
        ).items
        # same-millisecond messages of one van overwrite each other (IoT's PutItem; README D6)
        assert len(items) == len({line["timestamp"] for line in lines if f"/{van}/" in line["topic"]})
        assert count >= len(items)
        for item in items:
            assert item["ttl"] == int(item["timestamp"]) // 1000 + THIRTY_DAYS_S
    alerts = {(line["topic"], line["timestamp"]) for line in lines if line["topic"].endswith("/alert")}
    assert len(ingester.rt.run("recent_alerts", since=946_684_800_000).items) == len(alerts) > 0


def test_the_rule_fields_win_over_payload_fields_of_the_same_name(ingester):
    hostile = {"thing_name": "other-van", "ttl": 1, "message_type": "alert", "timestamp": 5}
    [item] = ingester.receive(message("van/storyteller-van-02/telemetry", hostile))
    assert (item["thing_name"], item["message_type"], item["timestamp"]) == (
        "storyteller-van-02",
        "telemetry",
        T,
    )
    assert item["ttl"] == T // 1000 + THIRTY_DAYS_S


@pytest.mark.parametrize(
    "topic",
    [
        "van/storyteller-van-01/debug",
        "van/storyteller-van-01/telemetry/extra",
        "car/x/telemetry",
        "Van/x/telemetry",
    ],
)
def test_messages_no_rule_subscribes_to_are_not_written(ingester, topic):
    assert ingester.receive(message(topic, {"battery_voltage": 12})) == []
    assert ingester.rt.run("recent_alerts", since=946_684_800_000).items == []


@pytest.mark.parametrize(
    ("payload", "error"),
    [
        ("{not json", RuleError),
        ("[1, 2]", RuleError),
        ({"battery_voltage": 61}, ValidationError),
        ({"hvac_mode": "auto"}, ValidationError),
    ],
)
def test_a_message_a_rule_cannot_store_writes_nothing(ingester, payload, error):
    with pytest.raises(error):
        ingester.receive(message("van/storyteller-van-01/telemetry", payload))
    assert ingester.rt.get("Message", thing_name="storyteller-van-01", timestamp=T) is None


def test_an_empty_topic_level_is_routed_as_mqtt_does_and_refused_by_the_key_rule(ingester):
    # MQTT's + matches an empty level, so IoT routes van//telemetry; the empty thing_name is no key.
    with pytest.raises(ValidationError, match="thing_name"):
        ingester.receive(message("van//telemetry", {"battery_voltage": 12}))


def test_the_documents_rule_through_the_same_evaluator_writes_milliseconds():
    rule = parse_rule("document", van_telemetry.DOCUMENT_RULE_SQL, "van-telemetry")
    item = rule.apply(message("van/storyteller-van-01/telemetry", {"battery_voltage": 12}))
    assert item["ttl"] == T + 2_592_000_000  # ~54,000 years ahead as epoch seconds: never expires (D1)


@pytest.mark.parametrize(
    ("sql", "named"),
    [
        ("SELECT * FROM 'van/+/telemetry' WHERE battery_voltage > 1", "WHERE"),
        ("SELECT *, clientid() AS c FROM 'van/+/telemetry'", "clientid"),
        ("SELECT timestamp() + 1 FROM 'van/+/telemetry'", "AS"),
        ("SELECT * FROM van", "FROM"),
        ("SELECT * FROM 'van/+/telemetry' ;", ";"),
    ],
)
def test_rules_the_ingester_cannot_apply_are_refused_at_load_by_name(sql, named):
    with pytest.raises(RuleError, match="rule r") as raised:
        parse_rule("r", sql, "t")
    assert named in str(raised.value)


def test_rules_file_topic_filter_must_match_its_sql(tmp_path):
    spec = {
        "rules": {
            "x": {
                "topic_filter": "van/+/status",
                "sql": "SELECT * FROM 'van/+/alert'",
                "action": {"dynamodbv2": {"table": "t"}},
            }
        }
    }
    (tmp_path / "rules.yaml").write_text(json.dumps(spec))
    with pytest.raises(RuleError, match="topic_filter"):
        load_rules(tmp_path / "rules.yaml")
    assert [r.topic_filter for r in load_rules(iot_rules.RULES_FILE)] == [
        "van/+/telemetry",
        "van/+/status",
        "van/+/alert",
    ]


def test_the_ingester_command_reads_traffic_and_reports(tmp_path):
    script = str(EXAMPLE / "ingest.py")
    traffic = subprocess.run(
        [sys.executable, script, "--sample", "1"], capture_output=True, text=True, timeout=120
    )
    lines = traffic.stdout.splitlines()
    (tmp_path / "m.jsonl").write_text("\n".join([*lines, '{"topic": "van/a/debug", "payload": {}}', ""]))
    done = subprocess.run(
        [sys.executable, script, "--db", str(tmp_path / "van.db"), str(tmp_path / "m.jsonl")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"stored {len(lines)}, unrouted 1, failed 0"
    (tmp_path / "bad.jsonl").write_text('{"topic": "van/a/alert"}\nnot json\n')
    bad = subprocess.run(
        [sys.executable, script, "--db", str(tmp_path / "van.db"), str(tmp_path / "bad.jsonl")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2 and "line 2" in bad.stderr and "Traceback" not in bad.stderr
