"""NoSQL Workbench models written here in the published format (model format 3.0, as Workbench
exports it), each imported, loaded, checked with its sample items, linted, priced, exported to every
format and re-imported: nothing the model says is lost without a named warning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewright.cli import main
from tablewright.design import load
from tablewright.export import FORMATS, export, losses
from tablewright.export.wire import WIRE_TO_DESIGN
from tablewright.imports import read, result

CORPUS = sorted((Path(__file__).parent / "workbench_models").glob("*.json"))
IDS = [p.stem for p in CORPUS]


def _imported(model: Path, folder: Path) -> tuple[Path, list[str]]:
    """Import ``model`` as the CLI does with --out: the design and its sample generator."""
    done = result(read(model, "nosql-workbench"))
    design = folder / f"{model.stem}.yaml"
    design.write_text(done.design, encoding="utf-8")
    if done.generator:
        design.with_name(f"{model.stem}.generate.py").write_text(done.generator, encoding="utf-8")
    return design, done.warnings


def _model_attributes(entry: dict) -> dict[str, str]:
    found = {a["AttributeName"]: a["AttributeType"] for a in entry.get("NonKeyAttributes", [])}
    keys = [entry["KeyAttributes"], *(i["KeyAttributes"] for i in entry.get("GlobalSecondaryIndexes", []))]
    for key in keys:
        for role in ("PartitionKey", "SortKey"):
            if key.get(role):
                found[key[role]["AttributeName"]] = key[role]["AttributeType"]
    return found


def _sample_count(entry: dict) -> int:
    return len(entry.get("TableData", [])) + sum(len(f.get("TableData", [])) for f in entry["TableFacets"])


@pytest.mark.parametrize("model", CORPUS, ids=IDS)
def test_import_keeps_every_attribute_with_its_type(model: Path, tmp_path: Path) -> None:
    path, _ = _imported(model, tmp_path)
    design = load(path)
    for entry in json.loads(model.read_text())["DataModel"]:
        table = next(t for t in design.tables.values() if t.table_name == entry["TableName"])
        held = {
            name: attr.type
            for e in design.entities.values()
            if e.table == table.name
            for name, attr in e.attributes.items()
        }
        for name, wire in _model_attributes(entry).items():
            assert held.get(name) == WIRE_TO_DESIGN[wire], f"{entry['TableName']}.{name}"


@pytest.mark.parametrize("model", CORPUS, ids=IDS)
def test_every_later_command_works_on_the_import(model: Path, tmp_path: Path) -> None:
    path, _ = _imported(model, tmp_path)
    runner = CliRunner()
    for args, accepted in (
        (["check", str(path)], {0}),  # the sample items load and satisfy the design
        (["lint", str(path)], {0, 1}),
        (["cost", str(path)], {0}),
        *((["export", str(path), "--to", fmt], {0}) for fmt in FORMATS),
    ):
        run = runner.invoke(main, args)
        assert run.exception is None or isinstance(run.exception, SystemExit), (args, run.output)
        assert run.exit_code in accepted, (args, run.output)


@pytest.mark.parametrize("model", CORPUS, ids=IDS)
def test_sample_items_are_kept_and_sized(model: Path, tmp_path: Path) -> None:
    path, warnings = _imported(model, tmp_path)
    design = load(path)
    generator = path.with_name(f"{model.stem}.generate.py")
    expected = sum(_sample_count(e) for e in json.loads(model.read_text())["DataModel"])
    kept = 0
    if generator.exists():
        namespace: dict = {}
        exec(compile(generator.read_text(), str(generator), "exec"), namespace)  # noqa: S102
        samples = namespace["generate"]()
        kept = sum(len(v) for v in samples.values())
        for entity, items in samples.items():
            assert design.volumes.entities[entity].item_size > 0
            for values in items:
                design.entities[entity].to_item(values)  # every kept item is a valid item
    dropped = sum(int(w.split(": ")[1].split()[0]) for w in warnings if "fit no facet" in w)
    assert kept + dropped == expected


@pytest.mark.parametrize("model", CORPUS, ids=IDS)
def test_workbench_round_trip_is_lossless_or_warned(model: Path, tmp_path: Path) -> None:
    path, _ = _imported(model, tmp_path)
    design = load(path)
    again_model = tmp_path / "again.json"
    again_model.write_text(export(design, "nosql-workbench", design_path=path))
    again_path, _ = _imported(again_model, tmp_path)
    again = load(again_path)
    first, second = (read(m, "nosql-workbench").samples for m in (model, again_model))
    assert {e: len(v) for e, v in second.items()} == {e: len(v) for e, v in first.items()}
    assert {t.table_name for t in again.tables.values()} == {t.table_name for t in design.tables.values()}
    assert set(again.entities) == set(design.entities)
    for name, entity in design.entities.items():
        assert {a: x.type for a, x in again.entities[name].attributes.items()} == {
            a: x.type for a, x in entity.attributes.items()
        }
        assert set(again.entities[name].keys) == set(entity.keys)  # the same indexes
    for table in design.tables.values():
        twin = next(t for t in again.tables.values() if t.table_name == table.table_name)
        assert (twin.billing, set(twin.indexes)) == (table.billing, set(table.indexes))
    # The one thing an imported model carries that Workbench cannot: declared item sizes.
    assert all("volumes" in w for w in losses(design, "nosql-workbench"))


def _social(tmp_path: Path):
    model = next(p for p in CORPUS if p.stem == "social_single_table")
    path, warnings = _imported(model, tmp_path)
    return load(path), path.read_text(), warnings


def test_facets_appear_only_in_the_indexes_their_items_populate(tmp_path: Path) -> None:
    design, _, _ = _social(tmp_path)
    assert set(design.entities["Post"].keys) == {"table", "GSI1"}
    assert set(design.entities["User"].keys) == {"table"}
    assert set(design.entities["Follow"].keys) == {"table"}
    assert design.entities["User"].keys["table"].pk.source == "USER#{userId}"
    assert design.entities["User"].keys["table"].sk.source == "PROFILE"


def test_stated_billing_is_kept_and_what_cannot_be_is_named(tmp_path: Path) -> None:
    design, _, warnings = _social(tmp_path)
    billing = design.tables["social"].billing
    assert (billing.mode, billing.read, billing.write) == ("provisioned", 10, 4)
    assert any("AutoScalingRead is not carried" in w for w in warnings)
    assert any("AutoScalingWrite is not carried" in w for w in warnings)


def test_missing_billing_takes_workbench_default_and_says_so(tmp_path: Path) -> None:
    model = next(p for p in CORPUS if p.stem == "weather_stations")
    path, _ = _imported(model, tmp_path)
    assert load(path).tables["readings"].billing.mode == "on_demand"
    text = path.read_text()
    assert "Assumptions made by the import" in text and "on-demand, is assumed" in text
    assert "provisioned" not in text  # no invented 5/5


def test_composite_named_sort_key_is_written_quoted_and_loads(tmp_path: Path) -> None:
    model = next(p for p in CORPUS if p.stem == "weather_stations")
    path, _ = _imported(model, tmp_path)
    design = load(path)
    entity = design.entities["Readings"]
    assert entity.keys["table"].sk.source == '{"State#Date"}'
    item = entity.to_item({"StationId": "S1", "State#Date": "WA#2024-03-01"})
    assert item["State#Date"] == "WA#2024-03-01"


def test_a_model_that_is_not_json_or_not_a_model_is_a_located_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"ModelName": "x",\n "DataModel": [}')
    run = CliRunner().invoke(main, ["import", str(broken), "--from", "nosql-workbench"])
    assert run.exit_code == 2 and "broken.json:2:" in run.output
    other = tmp_path / "other.json"
    other.write_text('{"DataModel": [{"TableName": "t"}]}')
    run = CliRunner().invoke(main, ["import", str(other), "--from", "nosql-workbench"])
    assert run.exit_code == 2 and "DataModel[0] (t)" in run.output and "KeyAttributes" in run.output


def test_live_table_import_keeps_non_key_attributes_and_sample_items(tmp_path: Path) -> None:
    import tablewright

    client = tablewright.connect(tmp_path / "live.db")
    client.create_table(
        TableName="Readings-Live",
        AttributeDefinitions=[
            {"AttributeName": "StationId", "AttributeType": "S"},
            {"AttributeName": "State#Date", "AttributeType": "S"},
        ],
        KeySchema=[
            {"AttributeName": "StationId", "KeyType": "HASH"},
            {"AttributeName": "State#Date", "KeyType": "RANGE"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    items = [
        {
            "StationId": {"S": "S1"},
            "State#Date": {"S": "WA#1"},
            "temp c": {"N": "9.5"},
            "raw": {"B": b"\x00\x01"},
        },
        {
            "StationId": {"S": "S1"},
            "State#Date": {"S": "WA#2"},
            "flags": {"SS": ["late"]},
            "ok": {"BOOL": True},
        },
    ]
    for item in items:
        client.put_item(TableName="Readings-Live", Item=item)
    from tablewright.imports.endpoint import import_tables

    done = result(import_tables(client, name="live"))
    path = tmp_path / "live.yaml"
    path.write_text(done.design)
    path.with_name("live.generate.py").write_text(done.generator or "")
    design = load(path)
    types = {n: a.type for n, a in design.entities["ReadingsLive"].attributes.items()}
    assert types == {
        "StationId": "string",
        "State#Date": "string",
        "temp c": "number",
        "raw": "binary",
        "flags": "string_set",
        "ok": "boolean",
    }
    assert design.volumes.entities["ReadingsLive"].item_size > 0
    run = CliRunner().invoke(main, ["check", str(path)])
    assert run.exit_code == 0, run.output


def _social_model() -> dict:
    return json.loads(next(p for p in CORPUS if p.stem == "social_single_table").read_text())


def _broken(change) -> dict:
    model = _social_model()
    change(model)
    return model


HOSTILE = {
    "entry is not a table": (lambda m: m.__setitem__("DataModel", ["x"]), "DataModel[0] is a str"),
    "no partition key": (
        lambda m: m["DataModel"][0]["KeyAttributes"].pop("PartitionKey"),
        "'PartitionKey' is missing",
    ),
    "key of a non-key type": (
        lambda m: m["DataModel"][0]["KeyAttributes"]["PartitionKey"].__setitem__("AttributeType", "BOOL"),
        "keys are S, N or B",
    ),
    "unknown billing": (lambda m: m["DataModel"][0].__setitem__("BillingMode", "FREE"), "BillingMode 'FREE'"),
    "units as words": (
        lambda m: m["DataModel"][0]["ProvisionedCapacitySettings"]["ProvisionedThroughput"].__setitem__(
            "ReadCapacityUnits", "ten"
        ),
        "whole numbers of units",
    ),
    "two tables of one name": (lambda m: m["DataModel"].append(m["DataModel"][0]), "two tables are named"),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_malformed_model_is_a_located_error_never_a_traceback(case: str, tmp_path: Path) -> None:
    change, message = HOSTILE[case]
    path = tmp_path / "model.json"
    path.write_text(json.dumps(_broken(change)))
    run = CliRunner().invoke(main, ["import", str(path), "--from", "nosql-workbench"])
    assert isinstance(run.exception, SystemExit) and run.exit_code == 2, run.output
    assert message in run.output


SALVAGED = {
    "unknown attribute type": (
        lambda m: m["DataModel"][0]["NonKeyAttributes"].append({"AttributeName": "q", "AttributeType": "ZZ"}),
        "'q' has type 'ZZ'",
    ),
    "sample item not DynamoDB JSON": (
        lambda m: m["DataModel"][0]["TableData"].append({"PK": {"S": "USER#x"}, "SK": "plain"}),
        "not DynamoDB JSON",
    ),
    "two facets of one name": (
        lambda m: m["DataModel"][0]["TableFacets"].append(dict(m["DataModel"][0]["TableFacets"][0])),
        "imported as 'User_2'",
    ),
}


@pytest.mark.parametrize("case", list(SALVAGED))
def test_what_can_be_salvaged_is_imported_with_a_named_warning(case: str, tmp_path: Path) -> None:
    change, message = SALVAGED[case]
    path = tmp_path / "model.json"
    path.write_text(json.dumps(_broken(change)))
    done = result(read(path, "nosql-workbench"))
    assert any(message in w for w in done.warnings), done.warnings


def test_keys_the_importer_does_not_read_are_named_not_dropped(tmp_path: Path) -> None:
    model = _social_model()
    model["AccessPatterns"] = [{"Name": "posts of a user"}]
    model["DataModel"][0]["Tags"] = [{"Key": "team", "Value": "feed"}]
    path = tmp_path / "model.json"
    path.write_text(json.dumps(model))
    warnings = result(read(path, "nosql-workbench")).warnings
    assert any("model: AccessPatterns is not read" in w for w in warnings)
    assert any("table social: Tags is not read" in w for w in warnings)
    assert not any("DataAccess" in w for w in warnings)
