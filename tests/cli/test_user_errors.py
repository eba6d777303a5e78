"""Mistakes in what a user gives the commands (a broken generate.py, a plan that raises or names what is
not there, a quoted number, a unit of time that is not one, --out under a file) end in a message that
says what is wrong and where, status 2 (docs/cli.md), never a traceback. Real command, real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from ._support import one_line_error, run

DESIGN = """\
version: 1
name: shop
tables:
  shop:
    partition_key: PK
    sort_key: SK
    billing: {mode: provisioned, read: %(read)s, write: 5}
entities:
  Order:
    table: shop
    attributes:
      order_id: {type: string, required: true}
      total: {type: number, min: %(min)s}
    keys:
      table: {pk: "ORDER#{order_id}", sk: "ORDER"}
patterns:
  order:
    params: {order_id: string}
    returns: Order
    means: {where: "order_id = :order_id"}
    served: {op: get}
volumes:
  entities:
    Order: {items: 1000, item_size: 300, writes: %(writes)s}
"""


def _design(folder: Path, read: str = "5", minimum: str = "0", writes: str = "2/min") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "design.yaml"
    path.write_text(DESIGN % {"read": read, "min": minimum, "writes": writes}, encoding="utf-8")
    return path


def _design_problems(result, *said: str) -> str:
    """A design that does not load: status 2, no traceback, each of ``said`` in the report."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    for words in said:
        assert words in result.stderr, (words, result.stderr)
    return result.stderr


# --- rates: a unit of time that is not minutes is not read as minutes -------------------------------


@pytest.mark.parametrize(
    ("writes", "said"),
    [
        ("10/ms", "'10/ms': milliseconds are not a unit here"),
        ("1000/M", "'1000/M': 'M' is not a unit of time"),
        ("100/0min", "'100/0min' is not a rate: its period '0min' must be longer than zero"),
    ],
)
def test_cost_refuses_a_rate_whose_period_is_not_a_time(tmp_path: Path, writes: str, said: str) -> None:
    _design(tmp_path, writes=writes)
    _design_problems(run("cost", str(tmp_path)), "design.yaml:24:", said)


# --- cost --measure: the sample generator is the user's code --------------------------------------

BROKEN_GENERATORS = {
    "raises while it loads": ('raise RuntimeError("boom")\n', "failed: RuntimeError: boom"),
    "a syntax error": ("def generate(:\n", "failed: SyntaxError"),
    "generate returns a list": (
        "def generate(seed, scale):\n    return [1]\n\ndef params(seed, scale):\n    return {}\n",
        "generate() must return {entity name: [values, ...]}, not list",
    ),
    "generate raises": (
        "def generate(seed, scale):\n    raise KeyError('order_id')\n\ndef params(seed, scale):\n    return {}\n",
        "generate() failed: KeyError: 'order_id'",
    ),
    "params returns a number": (
        "def generate(seed, scale):\n    return {}\n\ndef params(seed, scale):\n    return 5\n",
        "params() must return {pattern name: [params, ...]}, not int",
    ),
}


@pytest.mark.parametrize("case", list(BROKEN_GENERATORS))
def test_cost_measure_names_a_generator_that_does_not_work(tmp_path: Path, case: str) -> None:
    source, said = BROKEN_GENERATORS[case]
    _design(tmp_path)
    (tmp_path / "generate.py").write_text(source, encoding="utf-8")
    result = run("cost", str(tmp_path), "--measure")
    one_line_error(result, "cost", 2, "generate.py", said)


# --- migrate: a plan that raises or names what is not there ---------------------------------------


def test_migrate_refuses_a_plan_module_that_raises_while_it_loads(tmp_path: Path) -> None:
    plan = tmp_path / "bad.py"
    plan.write_text('raise RuntimeError("boom")\n', encoding="utf-8")
    result = run("migrate", str(plan), "--dry-run")
    one_line_error(result, "migrate", 2, "bad.py: the plan does not load: RuntimeError: boom")


@pytest.mark.parametrize(
    ("step", "said"),
    [
        (
            "create_table: {design: design.yaml, table: nosuch}",
            "step 1 (create_table): design 'shop' has no table 'nosuch' (tables: shop)",
        ),
        ("create_table: {design: nope.yaml, table: shop}", "step 1 (create_table): design 'nope.yaml':"),
        (
            'copy: {source: a, target: b, transform: "nomod:fn"}',
            "step 1 (copy): function 'nomod:fn': no module 'nomod'",
        ),
        (
            'copy: {source: a, target: b, transform: "raising:fn"}',
            "step 1 (copy): function 'raising:fn': module raising does not load: RuntimeError: at import",
        ),
    ],
)
def test_migrate_names_the_step_and_what_it_names_that_is_not_there(
    tmp_path: Path, step: str, said: str
) -> None:
    _design(tmp_path)
    (tmp_path / "raising.py").write_text('raise RuntimeError("at import")\n', encoding="utf-8")
    plan = tmp_path / "plan.yaml"
    plan.write_text(f"name: x\nsteps:\n  - {step}\n", encoding="utf-8")
    line = one_line_error(run("migrate", str(plan), "--dry-run"), "migrate", 2, "plan.yaml", said)
    assert "missing field" not in line and "[Errno" not in line


# --- design shapes: a quoted number names its field and what it should be -------------------------


def test_a_quoted_capacity_names_the_field_and_the_type_it_needs(tmp_path: Path) -> None:
    _design(tmp_path, read='"5"')
    _design_problems(
        run("cost", str(tmp_path)),
        "design.yaml:7:",
        "tables/shop/billing/read: '5' is a string; expected a whole number",
        "write the number without quotes: 5",
    )


@pytest.mark.parametrize(("minimum", "hint"), [('"0"', "without quotes: 0"), ("1e3", "write 1000")])
def test_a_bound_that_yaml_reads_as_text_names_the_field(tmp_path: Path, minimum: str, hint: str) -> None:
    _design(tmp_path, minimum=minimum)
    _design_problems(
        run("cost", str(tmp_path)),
        "design.yaml:13:",
        f"entities/Order/attributes/total/min: {minimum.strip(chr(34))!r} is a string; expected a number",
        hint,
    )


# --- export --out: a file where a folder must be --------------------------------------------------


@pytest.mark.parametrize(("fmt", "out"), [("terraform", "afile/x.tf"), ("create-table", "afile/requests")])
def test_export_says_the_parent_of_out_is_a_file(tmp_path: Path, fmt: str, out: str) -> None:
    _design(tmp_path)
    (tmp_path / "afile").write_text("", encoding="utf-8")
    result = run("export", "design.yaml", "--to", fmt, "--out", out, cwd=tmp_path)
    one_line_error(result, "export", 2, "afile: is a file, not a folder", f"--out {out}")
    assert (tmp_path / "afile").read_text(encoding="utf-8") == ""


def test_export_says_out_is_a_folder_when_it_names_one(tmp_path: Path) -> None:
    _design(tmp_path)
    (tmp_path / "here").mkdir()
    result = run("export", "design.yaml", "--to", "terraform", "--out", "here", cwd=tmp_path)
    one_line_error(result, "export", 2, "here: is a folder; --out names the file to write")
