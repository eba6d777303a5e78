"""examples/sensor-api against hostile or unlucky requests, over HTTP on the real service: a batch the
table refuses leaves its batch_id free for the corrected batch and names the reading at fault; a
retry spelling its times otherwise is a duplicate; stored numbers come back digit for digit; a
5,000-digit query number and capabilities nested hundreds deep get JSON answers, never a 500."""

from __future__ import annotations

import hashlib
import json
import re
import sys
from decimal import Decimal
from pathlib import Path

import httpx
import pytest

from tablewright.runtime import Runtime

sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_sensor_api_service as served  # noqa: E402
from test_sensor_api_service import BOOT, EXAMPLE, MAC, NOW_MS, batch, fields  # noqa: E402

# The service tests' fixtures: serve.py started the same way, a process of this module's own (their
# scope is the module that uses them).
service, admin, key, api = served.service, served.admin, served.key, served.api

SEVEN_HUGE_SENSORS = {f"s{n}_" + "x" * 60_000: 1 for n in range(7)}  # one reading over 400 KB
TIME = re.compile(r'"timestamp_ms": (\d+)')


def readings_in(api: httpx.Client, first_ms: int, last_ms: int) -> list[dict]:
    window = {"from_ms": first_ms, "to_ms": last_ms, "limit": 100}
    answer = api.get(f"/v1/devices/{MAC}/readings", params=window)
    assert answer.status_code == 200, answer.text
    return answer.json()["items"]


def exact(answer: httpx.Response) -> object:
    """The answer's JSON with its numbers as written (a float would round them on our side)."""
    assert answer.headers["content-type"].startswith("application/json"), answer.text
    return json.loads(answer.text, parse_float=Decimal)


# ------------------------------------------------------------------------ batches the table refuses
def test_a_refused_100_reading_batch_leaves_its_batch_id_to_the_corrected_batch(api):
    first = NOW_MS - 40_000_000
    times = [first + n * 1000 for n in range(100)]
    corrected = batch(f"{MAC}_refused100", *times)
    refused = json.loads(json.dumps(corrected))
    refused["readings"][49]["sensors"] = SEVEN_HUGE_SENSORS
    answer = api.post("/v1/batches", json=refused)
    assert answer.status_code == 422, answer.text
    assert fields(answer) == {"readings[49].(item)"}
    assert readings_in(api, times[0], times[-1]) == []  # "422: nothing written"
    accepted = api.post("/v1/batches", json=corrected)
    assert accepted.status_code == 201 and accepted.json()["status"] == "accepted", accepted.text
    assert len(readings_in(api, times[0], times[-1])) == 100
    again = api.post("/v1/batches", json=corrected)
    assert again.status_code == 200 and again.json()["status"] == "duplicate"


@pytest.mark.parametrize(("count", "refused_at"), [(1, 0), (3, 1), (99, 98)])
def test_the_reading_the_table_refuses_is_named_at_its_own_index(api, count, refused_at):
    first = NOW_MS - 50_000_000 - count * 200_000
    sent = batch(f"{MAC}_refused{count}", *(first + n * 1000 for n in range(count)))
    sent["readings"][refused_at]["sensors"] = SEVEN_HUGE_SENSORS
    answer = api.post("/v1/batches", json=sent)
    assert answer.status_code == 422, answer.text
    assert fields(answer) == {f"readings[{refused_at}].(item)"}
    assert readings_in(api, first, first + count * 1000) == []


# ------------------------------------------------------------------------ one batch, many spellings
def previous_digest(times: list[int]) -> str:
    """The digest markers stored so far hold for ``batch``'s readings (integer times as text):
    written out here, so a change of the formula that would turn every stored batch's retry into a
    409 shows."""
    rows = sorted([str(ts), BOOT, "1.0.16", {"bme280_temp_c": "21.5"}, {"bme280": "ok"}] for ts in times)
    return hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()


SPELLINGS = {  # how a client's JSON library may write the whole number 1795804599000
    "point-zero": lambda ms: f"{ms}.0",
    "exponent": lambda ms: f"{ms // 1000}e3",
    "zeros-and-exponent": lambda ms: f"{ms}.000E0",
}


@pytest.mark.parametrize("count", [2, 100])
@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_a_retry_spelling_its_times_otherwise_is_a_duplicate(service, api, count, spelling):
    case = list(SPELLINGS).index(spelling)
    first = NOW_MS - 60_000_000 - count * 1_000_000 - case * 200_000  # one window per case
    times = [first + n * 1000 for n in range(count)]
    bid = f"{MAC}_spelled{count}_{spelling}"
    plain = json.dumps(batch(bid, *times))
    assert api.post("/v1/batches", content=plain).status_code == 201
    stored = Runtime.open(EXAMPLE / "design.yaml", db=service[1]).get("ProcessedBatch", batch_id=bid)
    assert stored["readings_digest"] == previous_digest(times)
    spell = SPELLINGS[spelling]
    respelled = TIME.sub(lambda found: f'"timestamp_ms": {spell(int(found.group(1)))}', plain)
    assert respelled != plain
    answer = api.post("/v1/batches", content=respelled)
    assert answer.status_code == 200 and answer.json()["status"] == "duplicate", answer.text
    assert len(readings_in(api, times[0], times[-1])) == count


# ------------------------------------------------------------------------ numbers as they were sent
def test_stored_numbers_come_back_digit_for_digit(api):
    numbers = [
        "0.12345678901234567890123",
        "12345678901234567.5",
        "-1E-130",
        "99999999999999999999999999999999999999",
    ]
    mac = "0A:00:00:00:0E:01"
    capabilities = "{" + ",".join(f'"n{i}":{number}' for i, number in enumerate(numbers)) + "}"
    registration = (
        f'{{"hardware_id":"{mac}","boot_id":"{BOOT}","firmware_version":"1.0","capabilities":{capabilities}}}'
    )
    expected = {f"n{i}": Decimal(number) for i, number in enumerate(numbers)}
    registered = api.post("/v1/devices", content=registration)
    assert registered.status_code == 201, registered.text
    assert exact(registered)["capabilities"] == expected
    assert exact(api.get(f"/v1/devices/{mac}"))["capabilities"] == expected
    at = NOW_MS - 70_000_000
    reading = json.dumps(batch(f"{MAC}_exact", at)).replace("21.5", numbers[1])
    assert api.post("/v1/batches", content=reading).status_code == 201
    window = {"from_ms": at, "to_ms": at}
    items = exact(api.get(f"/v1/devices/{MAC}/readings", params=window))["items"]
    assert [item["sensors"]["bme280_temp_c"] for item in items] == [Decimal(numbers[1])]
    assert [item["timestamp_ms"] for item in items] == [at]  # whole numbers stay integers


# ------------------------------------------------------------------------ inputs sized to hurt
@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/v1/devices", "limit"),
        (f"/v1/devices/{MAC}/readings", "from_ms"),
        (f"/v1/devices/{MAC}/readings", "to_ms"),
    ],
)
@pytest.mark.parametrize("number", ["9" * 5000, "-" + "9" * 5000, "0" * 5000 + "5000"])
def test_a_query_number_of_thousands_of_digits_is_refused_naming_it(api, path, name, number):
    params = {"from_ms": NOW_MS - 1000, "to_ms": NOW_MS} if "readings" in path else {}
    answer = api.get(path, params={**params, name: number})
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"] == "validation_failed" and fields(answer) == {name}
    assert len(answer.content) < 1000  # the number is named, not echoed back whole


@pytest.mark.parametrize(("depth", "kind", "mac"), [
    (300, "map", "0A:00:00:00:0D:01"),
    (300, "list", "0A:00:00:00:0D:02"),
    (1000, "map", "0A:00:00:00:0D:03"),
    (1000, "list", "0A:00:00:00:0D:04"),
])  # fmt: skip
def test_capabilities_nested_hundreds_deep_are_a_json_refusal(api, depth, kind, mac):
    nested = '{"n":' * depth + "1" + "}" * depth if kind == "map" else "[" * depth + "1" + "]" * depth
    body = f'{{"hardware_id":"{mac}","boot_id":"{BOOT}","firmware_version":"1.0","capabilities":{{"x":{nested}}}}}'
    answer = api.post("/v1/devices", content=body)
    assert 400 <= answer.status_code < 500, answer.text
    assert answer.headers["content-type"].startswith("application/json"), answer.text
    assert answer.json()["error"] in ("malformed_json", "validation_failed")
    assert api.get(f"/v1/devices/{mac}").status_code == 404  # nothing registered
