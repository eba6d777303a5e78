"""One place that turns the toolkit's typed errors into the command's one-line error and exit status.

Every command runs inside :func:`reporting_errors` (the ``tablewright`` group's ``invoke``), so a
problem a user can cause (a wrong path, a corrupt file, an unreachable endpoint, a design that does not
load) ends in one line on stderr, ``tablewright <command>: error: <what is wrong, where>``, and the
exit status decided for the project (docs/cli.md):

* 0 clean, 1 findings (lint findings, check failures, mismatches),
* 2 unusable input (bad arguments, a missing, unreadable or corrupt file, a design that does not load,
  an endpoint that is not a URL),
* 3 environment or operational failure (endpoint unreachable, no credentials, access denied, database
  locked, permission denied on a path that exists).

The packages raise errors where they detect the problem; the rules below map them by class, found
along the exception's MRO by qualified name, so that this module imports neither the engine nor
botocore (``tablewright lint`` must not load them).
"""

from __future__ import annotations

import contextlib
import errno
import traceback
from collections.abc import Callable, Iterator

import click

CLEAN, FINDINGS, INPUT, ENVIRONMENT = 0, 1, 2, 3
INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C


class CommandError(Exception):
    """A command's own error with its exit status (for problems no package detects)."""

    def __init__(self, message: str, status: int = INPUT) -> None:
        super().__init__(message)
        self.status = status


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _said(error: BaseException) -> str:
    return _one_line(str(error)) or type(error).__name__


def _os_error(error: BaseException) -> str:
    assert isinstance(error, OSError)
    if error.filename is not None and error.strerror:
        return f"{error.filename}: {error.strerror}"
    return _said(error)


def _unreachable(error: BaseException) -> str:
    return f"{_said(error)} (is the endpoint running, and is the URL right?)"


def _no_credentials(error: BaseException) -> str:
    return (
        f"{_said(error)}: set AWS_PROFILE or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "
        "(a loopback endpoint needs none)"
    )


def _design(error: BaseException) -> str:
    # A design error lists every problem: the first line is the error, each problem follows on its own.
    lines = [line for line in str(error).splitlines() if line.strip()]
    files = sorted({problem.file for problem in getattr(error, "problems", [])})
    head = f"{', '.join(files)}: {lines[0]}" if files and lines else _said(error)
    return "\n".join([head, *lines[1:]])


def _unicode(error: BaseException) -> str:
    return f"a file is not UTF-8 text ({_said(error)})"


# ClientError codes that mean the request, not the environment, was wrong.
_INPUT_CODES = frozenset({"ResourceNotFoundException", "ValidationException", "TableNotFoundException"})


def _client_error_status(error: BaseException) -> int:
    """A ClientError's (or a package error raised from one) status: 2 for a request that named what
    does not exist or was invalid, else 3 (access denied, throttled, the service failed)."""
    response = getattr(error, "response", None) or getattr(error.__cause__, "response", None) or {}
    code = response.get("Error", {}).get("Code", "")
    return INPUT if code in _INPUT_CODES else ENVIRONMENT


Rule = tuple[int | Callable[[BaseException], int], Callable[[BaseException], str]]

# Exception class (module.QualifiedName) -> (exit status, how to say it). Most specific class first wins,
# because the MRO is walked from the exception's own class.
RULES: dict[str, Rule] = {
    "tablewright.cli.errors.CommandError": (lambda e: getattr(e, "status", INPUT), _said),
    "tablewright.engine.opening.BadDatabaseFile": (INPUT, _said),
    "tablewright.engine.opening.DatabaseUnavailable": (ENVIRONMENT, _said),
    "tablewright.client.InvalidEndpoint": (INPUT, _said),
    "tablewright.design.files.InputFileError": (INPUT, _os_error),
    "tablewright.design.errors.DesignError": (INPUT, _design),
    "tablewright.design.yamlsource.YAMLFileError": (INPUT, _said),
    "tablewright.cost.prices.PricesError": (INPUT, _said),
    "tablewright.export.samples.SampleDataError": (INPUT, _said),
    "tablewright.imports.endpoint.EndpointImportError": (_client_error_status, _said),
    "tablewright.lint.config.LintConfigError": (INPUT, _said),
    "yaml.error.YAMLError": (INPUT, _said),
    "botocore.exceptions.ConnectionError": (ENVIRONMENT, _unreachable),
    "botocore.exceptions.HTTPClientError": (ENVIRONMENT, _unreachable),
    "botocore.exceptions.NoCredentialsError": (ENVIRONMENT, _no_credentials),
    "botocore.exceptions.PartialCredentialsError": (ENVIRONMENT, _said),
    "botocore.exceptions.NoRegionError": (ENVIRONMENT, _said),
    "botocore.exceptions.ClientError": (_client_error_status, _said),
    "builtins.UnicodeDecodeError": (INPUT, _unicode),
    # Only input nests thousands deep (a YAML or JSON file of nested brackets, an alias that holds
    # itself): the readers recurse, as PyYAML's does, and the input is what is wrong.
    "builtins.RecursionError": (
        INPUT,
        lambda _: (
            "the input nests too deeply to be read (thousands of levels, or a YAML alias that contains itself)"
        ),
    ),
    "builtins.FileNotFoundError": (INPUT, _os_error),
    "builtins.IsADirectoryError": (INPUT, _os_error),
    "builtins.NotADirectoryError": (INPUT, _os_error),
    "builtins.FileExistsError": (INPUT, _os_error),
    "builtins.PermissionError": (ENVIRONMENT, _os_error),
    "builtins.OSError": (ENVIRONMENT, _os_error),
}


def rule_for(error: BaseException) -> Rule | None:
    """The rule of the most specific class of ``error`` that has one, or None (an unexpected error)."""
    for cls in type(error).__mro__:
        rule = RULES.get(f"{cls.__module__}.{cls.__qualname__}")
        if rule is not None:
            return rule
    return None


def describe(error: BaseException) -> tuple[int, str] | None:
    """(exit status, message) for a known error, None for an unexpected one."""
    rule = rule_for(error)
    if rule is None:
        return None
    status, say = rule
    return (status(error) if callable(status) else status), say(error)


def reported(program: str) -> Callable[[Callable[..., int]], Callable[..., int]]:
    """Decorate an application's ``main`` (an example's script, a team's job) so that what a user can
    cause ends as the project's commands end: one line ``<program>: error: <message>`` on stderr and
    the decided exit status, never a traceback. An unexpected exception still raises."""

    def decorate(main: Callable[..., int]) -> Callable[..., int]:
        def wrapped(*args: object, **kwargs: object) -> int:
            try:
                return main(*args, **kwargs)
            except Exception as error:
                known = describe(error)
                if known is None:
                    raise
                status, message = known
                click.echo(f"{program}: error: {message}", err=True)
                return status

        wrapped.__doc__, wrapped.__name__ = main.__doc__, main.__name__
        return wrapped

    return decorate


def report(command: str, message: str) -> None:
    """Write ``tablewright <command>: error: <message>`` to stderr."""
    click.echo(f"tablewright {command}: error: {message}", err=True)


@contextlib.contextmanager
def reporting_errors(ctx: click.Context) -> Iterator[None]:
    """Run a command; a known error becomes its one-line message and exit status.

    click's own exceptions (usage errors, ``Exit``, ``Abort``) and ``SystemExit`` pass through. An
    unexpected exception is a bug: its traceback is printed, then the one line, and the status is 3.
    """
    try:
        yield
    except click.exceptions.ClickException:
        raise
    except (click.exceptions.Exit, click.exceptions.Abort):
        raise
    except KeyboardInterrupt:
        # Ctrl-C: not a finding (1, click's "Aborted!"), the shell's status for SIGINT instead.
        report(ctx.invoked_subcommand or ctx.info_name or "tablewright", "interrupted")
        ctx.exit(INTERRUPTED)
    except Exception as error:
        if isinstance(error, OSError) and error.errno == errno.EPIPE:
            raise  # stdout closed by a pager or `head`: click's main handles it quietly
        command = ctx.invoked_subcommand or ctx.info_name or "tablewright"
        known = describe(error)
        if known is None:
            traceback.print_exc()
            report(command, f"internal error (a bug in tablewright; please report it): {_said(error)}")
            ctx.exit(ENVIRONMENT)
        status, message = known
        report(command, message)
        ctx.exit(status)
