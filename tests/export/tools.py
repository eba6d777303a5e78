"""Running ``terraform validate`` on exported HCL, with the AWS provider from a local mirror."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest


def plugin_dir() -> Path | None:
    """A local mirror of the AWS provider (this machine has one; the registry is unreachable)."""
    for candidate in (os.environ.get("TABLEWRIGHT_TF_PLUGIN_DIR"), "/opt/tf-plugins"):
        if candidate and (Path(candidate) / "registry.terraform.io" / "hashicorp" / "aws").is_dir():
            return Path(candidate)
    return None


def terraform_validate(folder: Path) -> subprocess.CompletedProcess[str]:
    """``terraform init`` (from the local provider mirror) and ``terraform validate`` in ``folder``."""
    if shutil.which("terraform") is None:
        pytest.skip("no terraform binary")
    mirror = plugin_dir()
    if mirror is None:
        pytest.skip("no local AWS provider mirror (set TABLEWRIGHT_TF_PLUGIN_DIR) and no registry access")
    env = {**os.environ, "TF_CLI_CONFIG_FILE": os.devnull, "CHECKPOINT_DISABLE": "1"}
    run = {"cwd": folder, "capture_output": True, "text": True, "timeout": 300, "env": env}
    init = subprocess.run(  # noqa: S603
        ["terraform", "init", "-backend=false", "-input=false", f"-plugin-dir={mirror}"],
        check=False,
        **run,
    )
    assert init.returncode == 0, init.stdout + init.stderr
    return subprocess.run(["terraform", "validate", "-no-color"], check=False, **run)  # noqa: S603
