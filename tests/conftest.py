"""Suite-wide: which tests are ``slow`` (left out of ``pytest -m "not slow"``, the fast subset).

Kept here as one table rather than as markers spread over the files, so the fast subset is decided
in one place: a test that kills processes, drives load, runs a property search for seconds, or runs
the README as a newcomer would, is slow. A test may also mark itself with ``@pytest.mark.slow``.
Measured figures and the rule are in README.md ("Tests").
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# Where the environment says PYTHONDONTWRITEBYTECODE (this project's CI machine does), every process a
# test starts (`tablewright`, the examples' services, hundreds of them) compiled the package from
# source again, 0.3-0.8 s each, and so did pytest's assertion rewriting in every worker. The suite
# keeps compiled files in a cache of its own in the user's cache folder: nothing is written beside
# the sources, and the environment outside the test run is left as it was.
_PYCACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tablewright-tests" / "pycache"
os.environ["PYTHONPYCACHEPREFIX"] = str(_PYCACHE)
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.pycache_prefix = str(_PYCACHE)
sys.dont_write_bytecode = False

# Node id prefixes (path relative to the repository, then optionally ::test name prefix).
SLOW = (
    "tests/migrate/test_resume.py::test_killed_run_resumes",  # SIGKILL mid-migration, then resume
    "tests/engine/test_differential.py::test_engine_matches_reference_model",  # long property search
    "tests/engine/test_expressions_properties.py",  # hypothesis, 200 examples per property
    "tests/engine/test_crash.py::test_sigkill",  # SIGKILL of writers
    "tests/engine/test_concurrency.py::test_processes_",  # contending processes
    "tests/streams/test_consumer_crash.py",  # SIGKILL of a stream consumer
    "tests/server/test_server_js.py",  # Node.js and the AWS SDK for JavaScript
    "tests/server/test_server_load.py",  # concurrent clients against a served engine
    "tests/server/test_server_fuzz.py::test_slowloris",  # waits out the server's request timeout
    "tests/docs/test_readme_quickstart.py::test_the_quick_start_runs_as_written",  # six processes
    "tests/export/test_exports.py::test_cloudformation_passes_cfn_lint",  # cfn-lint, seconds per template
    "tests/export/test_exports.py::test_cfn_lint_does_fail",
    "tests/server/test_server_cli.py::test_aws_cli_",  # the AWS CLI, one process per call
    "tests/engine/test_hot_paths.py::test_sized_validation_measures_like_item_size",  # item-size sweep
    "tests/export/test_corpus.py::test_terraform_validate",  # terraform init + validate, seconds each
    "tests/export/test_exports.py::test_terraform_validate",
    "tests/export/test_pipelines_export.py::test_terraform_parses_and_validates",
    "tests/examples/test_evse_system.py::test_the_commands_run_a_simulated_day_end_to_end",  # processes
    "tests/examples/test_woms_jobs.py::test_concurrent_vendor_syncs",  # three sync processes and a server
    "tests/engine/test_client_answers.py",  # hypothesis: the in-process decoding against botocore's parser
    "tests/engine/test_bulk_differential.py",  # hypothesis: fast write paths against the general path
    "tests/engine/test_encoded_results.py::test_pass_through_answers_like",  # hypothesis over every index kind
    "tests/engine/test_write_gate.py::test_eight_processes",  # contending processes
    "tests/engine/test_write_gate.py::test_lock_timeout_at_the_gate",  # waits out a lock timeout
    "tests/server/test_server_deadlines.py::test_requests_spread_over_both_timeouts",  # waits out timeouts
    "tests/server/test_server_locking.py::test_reads_are_served_while_a_write_waits",  # waits out a lock
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.nodeid.startswith(SLOW):
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def unwritable_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory this process cannot write: chmod where it bites (not root); as root (CI runs as
    root, where chmod does not stop a write) the immutable attribute, which binds root too and is
    removed again after the test; else a read-only mount."""
    locked = tmp_path / "locked"
    locked.mkdir()
    if os.geteuid() != 0:
        locked.chmod(0o555)
        yield locked
        return
    chattr = shutil.which("chattr")
    if chattr and subprocess.run([chattr, "+i", str(locked)], capture_output=True).returncode == 0:
        try:
            yield locked
        finally:
            subprocess.run([chattr, "-i", str(locked)], check=True)
        return
    with open("/proc/mounts", encoding="utf-8") as mounts:
        for line in mounts:
            _, point, _, options, *_ = line.split()
            read_only_mount = "ro" in options.split(",") and not point.startswith("/mnt/")
            if read_only_mount and Path(point).is_dir() and not os.access(point, os.W_OK):
                yield Path(point)
                return
    if Path("/proc/sys").is_dir() and not os.access("/proc/sys", os.W_OK):
        yield Path("/proc/sys")
        return
    pytest.skip("no directory this process cannot write (root, no chattr, no read-only mount)")
