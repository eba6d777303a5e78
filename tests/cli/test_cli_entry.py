"""Every CLI entry alike: ``-h`` everywhere, a suggestion for a mistyped command, and ``serve``'s
copy-paste lines working on a machine with no AWS configuration."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner

from tablewright.cli import main

from ._serve import bare_environment, served

COMMANDS = main.list_commands(None)  # type: ignore[arg-type]


def test_the_commands_a_newcomer_needs_are_there() -> None:
    assert {"init", "check", "lint", "cost", "serve", "demo"} <= set(COMMANDS)


@pytest.mark.parametrize("command", [[], *([c] for c in COMMANDS)])
def test_dash_h_is_help_everywhere(command: list[str]) -> None:
    short = CliRunner().invoke(main, [*command, "-h"], prog_name="tablewright")
    long = CliRunner().invoke(main, [*command, "--help"], prog_name="tablewright")
    assert short.exit_code == 0, short.output
    # stdout alone: CliRunner swaps the process's sys.stderr, where a thread another test left behind
    # (a TTL sweeper, a server) may log during the call.
    assert short.stdout == long.stdout
    assert short.stdout.startswith(f"Usage: tablewright {' '.join(command)}".rstrip())


@pytest.mark.parametrize(("typed", "meant"), [("chek", "check"), ("sevre", "serve"), ("inti", "init")])
def test_a_mistyped_command_gets_a_suggestion(typed: str, meant: str) -> None:
    result = CliRunner().invoke(main, [typed, "x"])
    assert result.exit_code == 2
    assert f"No such command '{typed}'. Did you mean " in result.stderr
    assert f"'{meant}'" in result.stderr.split("Did you mean")[1]


def test_a_command_nothing_resembles_gets_no_guess() -> None:
    result = CliRunner().invoke(main, ["xyzzy"])
    assert result.exit_code == 2
    assert "No such command 'xyzzy'." in result.stderr and "Did you mean" not in result.stderr


def _line(banner: list[str], label: str) -> str:
    return next(line.split(":", 1)[1].strip() for line in banner if line.strip().startswith(label))


def test_serve_lines_work_with_no_aws_configuration(tmp_path) -> None:
    env = bare_environment(tmp_path)
    with served(env=env) as (url, banner):
        boto3_line = _line(banner, "boto3")
        script = f"import boto3\nclient = {boto3_line}\nprint(client.list_tables()['TableNames'])"
        result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == "[]"
        if shutil.which("aws"):
            # The shell line and the AWS CLI line, pasted one after the other.
            shell = f"{_line(banner, 'shell')} && {_line(banner, 'AWS CLI')}"
            result = subprocess.run(["bash", "-c", shell], env=env, capture_output=True, text=True)
            assert result.returncode == 0, result.stderr
            assert '"TableNames": []' in result.stdout
        # The AWS CLI line alone needs credentials from somewhere: the banner gives them first.
        assert banner.index(next(b for b in banner if "shell" in b)) < banner.index(
            next(b for b in banner if "AWS CLI" in b)
        )
    assert url.startswith("http://127.0.0.1:")


def test_demo_twice_on_one_file_writes_into_the_table_the_first_left(tmp_path) -> None:
    db = str(tmp_path / "demo.db")
    first = CliRunner().invoke(main, ["demo", "--db", db, "--items", "20"])
    assert first.exit_code == 0 and "table holds 20 items" in first.output, first.output
    again = CliRunner().invoke(main, ["demo", "--db", db, "--items", "30"])
    assert again.exit_code == 0, again.output
    assert "an earlier demo in this file" in again.output and "table holds 30 items" in again.output


def test_demo_leaves_a_table_of_the_same_name_that_is_not_its_own_alone(tmp_path) -> None:
    import tablewright

    db = str(tmp_path / "mine.db")
    client = tablewright.connect(db)
    client.create_table(
        TableName="demo-events",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    client.put_item(TableName="demo-events", Item={"pk": {"S": "mine"}})
    result = CliRunner().invoke(main, ["demo", "--db", db])
    assert result.exit_code == 2 and "another key schema" in result.stderr, result.output
    assert client.scan(TableName="demo-events")["Items"] == [{"pk": {"S": "mine"}}]
