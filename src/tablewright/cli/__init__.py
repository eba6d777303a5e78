"""The ``tablewright`` command: a thin click layer over the packages."""

from __future__ import annotations

import importlib

import click

# Each subcommand lives in its own module and is imported only when used, so that
# `tablewright serve` does not pay for the linter and vice versa.
_COMMANDS = {
    "demo": "tablewright.cli.demo:demo",
    "serve": "tablewright.cli.serve:serve",
    "check": "tablewright.cli.check:check",
    "lint": "tablewright.cli.lint:lint",
    "cost": "tablewright.cli.cost:cost",
    "export": "tablewright.cli.export:export",
    "import": "tablewright.cli.import_:import_",
    "migrate": "tablewright.cli.migrate:migrate",
}


class _LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(name for name in _COMMANDS if self.get_command(ctx, name) is not None)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = _COMMANDS.get(name)
        if target is None:
            return None
        module_name, attribute = target.split(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:  # command not written yet
                return None
            raise
        return getattr(module, attribute)

    def invoke(self, ctx: click.Context) -> object:
        # Every command's typed errors become one line and the decided exit status (cli/errors.py).
        from .errors import reporting_errors

        with reporting_errors(ctx):
            return super().invoke(ctx)


@click.group(cls=_LazyGroup)
@click.version_option(package_name="tablewright")
def main() -> None:
    """Executable DynamoDB designs."""
