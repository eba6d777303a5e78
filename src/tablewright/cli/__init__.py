"""The ``tablewright`` command: a thin click layer over the packages."""

from __future__ import annotations

import difflib
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
    "explore": "tablewright.cli.explore:explore",
    "init": "tablewright.cli.init:init",
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

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple:
        # A mistyped command gets the closest known one as a suggestion (exit 2, like any usage error).
        if args and not args[0].startswith("-") and self.get_command(ctx, args[0]) is None:
            close = difflib.get_close_matches(args[0], self.list_commands(ctx), n=2, cutoff=0.6)
            hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
            ctx.fail(f"No such command {args[0]!r}.{hint}")
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context) -> object:
        # Every command's typed errors become one line and the decided exit status (cli/errors.py).
        from .errors import reporting_errors

        with reporting_errors(ctx):
            return super().invoke(ctx)


# -h works everywhere: subcommands inherit the group's context settings.
@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tablewright")
def main() -> None:
    """Executable DynamoDB designs."""
