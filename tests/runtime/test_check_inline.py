"""``tablewright check`` on designs without Python: ``samples:`` and per-pattern ``examples:`` in the
design, a pattern without parameter sets failing, ``unchecked:`` skipping, and output people read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from tablewright.cli import main
from tablewright.design import DesignError, load, loads

DESIGN = """\
version: 1
name: clinic
tables:
  clinic:
    partition_key: PK
    sort_key: SK
    indexes:
      ByDoctor: {partition_key: doctor, sort_key: starts}
entities:
  Patient:
    table: clinic
    attributes:
      patient_id: {type: string, required: true}
      name: {type: string, required: true}
      weight_kg: number
    keys:
      table: {pk: "PATIENT#{patient_id}", sk: "PROFILE"}
  Visit:
    table: clinic
    attributes:
      patient_id: {type: string, required: true}
      starts: {type: string, required: true, format: rfc3339}
      doctor: {type: string, required: true}
    keys:
      table: {pk: "PATIENT#{patient_id}", sk: "VISIT#{starts}"}
patterns:
  patient:
    params: {patient_id: string}
    returns: Patient
    means: {where: "patient_id = :patient_id"}
    served: {op: get}
    examples:
      - {patient_id: p1}
      - {patient_id: "  p2"}      # nobody has this id: the pattern must return nothing, both ways
  visits_of_patient:
    params: {patient_id: string, since: {type: string, format: rfc3339}}
    returns: Visit
    means: {where: "patient_id = :patient_id AND starts >= :since", order: starts desc}
    served: {op: query, sort: {ge: {starts: ":since"}}, forward: false}
    examples:
      - {patient_id: p1, since: 2025-01-01T00:00:00Z}   # unquoted: YAML reads a timestamp
      - {patient_id: p1, since: "2025-03-01T00:00:00.000Z"}
  day_of_doctor:
    params: {doctor: string}
    returns: Visit
    means: {where: "doctor = :doctor", order: starts asc}
    served: {op: query, index: ByDoctor}
    examples: [{doctor: house}]
samples:
  Patient:
    - {patient_id: p1, name: Ada, weight_kg: 61.5}
    - {patient_id: p3, name: Bo, weight_kg: 100}
  Visit:
    - {patient_id: p1, starts: "2025-02-01T09:00:00Z", doctor: house}
    - {patient_id: p1, starts: "2025-03-04T10:30:00Z", doctor: wilson}
    - {patient_id: p3, starts: "2025-03-05T08:00:00Z", doctor: house}
"""


def _write(tmp_path: Path, text: str, name: str = "design.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _json(*args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(main, ["check", *args, "--format", "json"])
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else {}


def test_a_design_without_python_runs_every_example(tmp_path: Path) -> None:
    _write(tmp_path, DESIGN)
    code, out = _json(str(tmp_path))
    report = out["designs"][0]
    assert code == 0, report
    assert report["name"] == "clinic" and report["items_loaded"] == 5
    runs = [(row["pattern"], row["params"], row["returned"]) for row in report["patterns"]]
    assert runs == [
        ("patient", {"patient_id": "p1"}, 1),
        ("patient", {"patient_id": "  p2"}, 0),
        ("visits_of_patient", {"patient_id": "p1", "since": "2025-01-01T00:00:00Z"}, 2),
        ("visits_of_patient", {"patient_id": "p1", "since": "2025-03-01T00:00:00.000Z"}, 1),
        ("day_of_doctor", {"doctor": "house"}, 2),
    ]


def test_samples_and_examples_are_model_data(tmp_path: Path) -> None:
    design = load(_write(tmp_path, DESIGN))
    assert str(design.samples["Patient"][0]["weight_kg"]) == "61.5"  # a Decimal, never a float
    assert design.samples["Patient"][1]["weight_kg"] == 100
    assert design.patterns["visits_of_patient"].examples[0]["since"] == "2025-01-01T00:00:00Z"


def test_a_sample_item_the_design_refuses_is_a_clear_failure(tmp_path: Path) -> None:
    # YAML 1.1 reads 1e2 as text; the validator says so, naming the entity, the item and the attribute.
    _write(tmp_path, DESIGN.replace("weight_kg: 100}", "weight_kg: 1e2}"))
    code, out = _json(str(tmp_path))
    report = out["designs"][0]
    assert code == 1 and report["status"] == "fail"
    assert "Patient.[1].weight_kg: '1e2' (str) is not number" in report["error"]


def test_a_pattern_without_parameter_sets_fails_check(tmp_path: Path) -> None:
    text = DESIGN.replace("    examples: [{doctor: house}]\n", "")
    _write(tmp_path, text)
    code, out = _json(str(tmp_path))
    assert code == 1
    row = next(r for r in out["designs"][0]["patterns"] if r["pattern"] == "day_of_doctor")
    assert row["status"] == "fail" and "examples:" in row["reason"] and "unchecked:" in row["reason"]
    text_run = CliRunner().invoke(main, ["check", str(tmp_path)])
    assert text_run.exit_code == 1 and "1 failure," in text_run.output


def test_unchecked_with_a_reason_skips_the_pattern(tmp_path: Path) -> None:
    text = DESIGN.replace(
        "    examples: [{doctor: house}]\n",
        "    unchecked: the doctors' calendar is filled by another service\n",
    )
    _write(tmp_path, text)
    code, out = _json(str(tmp_path))
    assert code == 0
    row = next(r for r in out["designs"][0]["patterns"] if r["pattern"] == "day_of_doctor")
    assert row == {
        "pattern": "day_of_doctor",
        "status": "skipped",
        "reason": "unchecked: the doctors' calendar is filled by another service",
    }
    result = CliRunner().invoke(main, ["check", str(tmp_path)])
    assert "1 skipped" in result.output and "another service" in result.output


def _problems(text: str) -> tuple[set[tuple[int, str]], str]:
    try:
        loads(text, "clinic.yaml")
    except DesignError as exc:
        return {(p.line, p.message.split(" ")[0]) for p in exc.problems}, str(exc)
    raise AssertionError("loaded")


def test_an_empty_reason_does_not_load(tmp_path: Path) -> None:
    problems, text = _problems(DESIGN.replace("    examples: [{doctor: house}]\n", '    unchecked: ""\n'))
    line = DESIGN.splitlines().index("    examples: [{doctor: house}]") + 1
    assert (line, "patterns/day_of_doctor/unchecked:") in problems, text


def test_examples_and_samples_name_what_exists(tmp_path: Path) -> None:
    bad = DESIGN.replace("      - {patient_id: p1}\n", "      - {patient_id: p1, pateint: x}\n")
    bad = bad.replace("  Visit:\n    - {", "  Vsit:\n    - {")
    problems, text = _problems(bad)
    lines = bad.splitlines()
    unknown_param = next(i for i, line in enumerate(lines, 1) if "pateint" in line)
    unknown_entity = next(i for i, line in enumerate(lines, 1) if line == "  Vsit:")
    assert (unknown_param, "example") in problems, text
    assert (unknown_entity, "samples") in problems and "did you mean 'Visit'?" in text, text


def test_unknown_keys_are_reported_at_their_own_line(tmp_path: Path) -> None:
    text = DESIGN.replace("      weight_kg: number\n", "      weight_kg: number\n    colour: red\n")
    text = text.replace("    sort_key: SK\n", "    sort_key: SK\n    bilings: on_demand\n    ttll: expires\n")
    try:
        loads(text, "clinic.yaml")
    except DesignError as exc:
        found = {p.message: p.line for p in exc.problems}
    else:
        raise AssertionError("loaded")
    lines = text.splitlines()
    for key in ("colour", "bilings", "ttll"):
        line = next(i for i, content in enumerate(lines, 1) if content.strip().startswith(f"{key}:"))
        assert found[next(m for m in found if f"unknown key {key!r}" in m)] == line, found


def test_the_text_output_names_the_design_shows_params_and_sums_up(tmp_path: Path, monkeypatch) -> None:
    _write(tmp_path, DESIGN.replace("name: clinic\n", ""))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "."])
    assert result.exit_code == 0, result.output
    first = result.output.splitlines()[0]
    assert first.startswith(f"{tmp_path.name} (design.yaml): pass")  # the folder's name for `check .`
    assert "patient_id=p1, since=2025-03-01T00:00:00.000Z" in result.output
    last = result.output.strip().splitlines()[-1]
    assert last.startswith("checked 1 design: 3 patterns, 5 runs, 0 failures, 5 items loaded in ")


def test_failure_details_are_whole_when_piped(tmp_path: Path) -> None:
    # A served sort condition that drops the visits of March: the failure names every missing key.
    broken = DESIGN.replace('sort: {ge: {starts: ":since"}}', 'sort: {lt: "2025-03-01"}')
    broken = broken.replace(
        "starts >= :since", "starts >= :since AND patient_id <> 'nobody-has-this-long-identifier-at-all'"
    )
    _write(tmp_path, broken)
    result = subprocess.run(
        [sys.executable, "-c", "from tablewright.cli import main; main()", "check", str(tmp_path)],
        capture_output=True,
        text=True,
        env={"COLUMNS": "40", **{k: v for k, v in __import__("os").environ.items() if k != "COLUMNS"}},
    )
    assert result.returncode == 1
    assert result.stderr == ""  # no progress bars or colour codes in a pipe
    assert "\x1b[" not in result.stdout
    fail_lines = [line for line in result.stdout.splitlines() if line.startswith("FAIL ")]
    assert any(
        line.startswith("FAIL visits_of_patient(patient_id=p1, since=2025-01-01T00:00:00Z): 1 missing")
        for line in fail_lines
    ), result.stdout
    assert (
        '  missing: {"PK":"PATIENT#p1","SK":"VISIT#2025-03-04T10:30:00Z","entity":"Visit"}' in result.stdout
    )


def test_json_output_keeps_its_shape(tmp_path: Path) -> None:
    _write(tmp_path, DESIGN)
    _code, out = _json(str(tmp_path))
    report = out["designs"][0]
    assert set(out) == {"designs"}
    assert {"design", "name", "patterns", "status", "tables", "items_loaded", "seconds"} <= set(report)
    row = report["patterns"][0]
    assert {"pattern", "params", "status", "detail", "expected", "returned", "missing", "extra"} <= set(row)
    assert {"items_read", "items_returned", "consumed_capacity", "latency_ms"} <= set(row)


def test_a_generator_adds_to_the_design_samples_and_examples(tmp_path: Path) -> None:
    _write(tmp_path, DESIGN, "clinic.yaml")
    (tmp_path / "clinic.generate.py").write_text(
        "def generate(seed, scale):\n"
        "    return {'Patient': [{'patient_id': f'g{i}', 'name': 'Gen'} for i in range(int(4 * scale))]}\n"
        "\n"
        "def params():\n"
        "    return {'patient': [{'patient_id': 'g1'}]}\n"
    )
    code, out = _json(str(tmp_path / "clinic.yaml"), "--scale", "2")
    report = out["designs"][0]
    assert code == 0, report
    assert report["items_loaded"] == 5 + 8
    assert [row["params"] for row in report["patterns"] if row["pattern"] == "patient"] == [
        {"patient_id": "p1"},
        {"patient_id": "  p2"},
        {"patient_id": "g1"},
    ]
