"""The in-process client relies on botocore internals (client.py); pyproject.toml bounds botocore to the
versions they are tested with. This fails loudly on a botocore that changes them."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import botocore
from packaging.requirements import Requirement

from tablewright.client import botocore_contract_problems

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_botocore_still_provides_what_the_in_process_client_uses() -> None:
    problems = botocore_contract_problems()
    assert not problems, (
        f"botocore {botocore.__version__} changed internals tablewright.client relies on: {problems}. "
        "Adapt client.py, or bound botocore below this version in pyproject.toml."
    )


def test_pyproject_bounds_botocore_to_tested_versions_and_this_one_is_inside() -> None:
    dependencies = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["dependencies"]
    (botocore_requirement,) = [Requirement(d) for d in dependencies if re.match(r"botocore\b", d)]
    assert any(spec.operator in ("<", "<=", "~=", "==") for spec in botocore_requirement.specifier), (
        "botocore needs an upper bound: client.py relies on its internals"
    )
    assert botocore_requirement.specifier.contains(botocore.__version__), (
        f"the installed botocore {botocore.__version__} is outside {botocore_requirement}"
    )
