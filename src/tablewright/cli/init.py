"""``tablewright init [FOLDER]``: write a first design.yaml that ``tablewright check`` runs at once.

From answers (a short dialogue, or ``--entity`` flags) through ``tablewright.design.scaffold``, or
from live tables (``--from-endpoint URL`` / ``--db FILE``) through ``tablewright.imports.sampled``.
Exit status: 0 written, 2 bad answers, input that ends before the dialogue does, or a design.yaml
already there, 3 the endpoint cannot be read.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

import click

_DEFAULT_ENTITIES = ("Customer:name,email", "Order:status,total=number")


def _fail(message: str, code: int) -> NoReturn:
    click.echo(f"tablewright init: error: {message}", err=True)
    sys.exit(code)


def _ask(name: str | None, folder: Path) -> tuple[str, list[str]]:
    """The dialogue: a name, then entities one by one (the first one owns the others)."""
    click.echo("A design: entities stored in one table. The first entity owns the others (e.g. a")
    click.echo("Customer owns Orders). Attributes: name[=string|number|boolean], comma separated.")
    name = name or click.prompt("Design name", default=folder.resolve().name or "design").strip()
    entities: list[str] = []
    defaults = list(_DEFAULT_ENTITIES)
    while True:
        default = defaults.pop(0).split(":") if defaults else ["", ""]
        prompt = (
            ("First entity (the owner)", "Second entity (owned by the first)")[len(entities)]
            if len(entities) < 2
            else "Next entity (empty to finish)"
        )
        entity = click.prompt(prompt, default=default[0], show_default=bool(default[0])).strip()
        if not entity:
            break
        attributes = click.prompt(
            f"  attributes of {entity}", default=default[1] if default[0] == entity else ""
        )
        entities.append(f"{entity}:{attributes}")
    return name, entities


def _dialogue(name: str | None, folder: Path) -> tuple[str, list[str]]:
    """The dialogue, with its input running out (stdin at its end: a pipe, a CI job with no
    terminal) said as unusable input, status 2: click's own "Aborted!" exits 1, which is "findings"
    to this command's callers (docs/cli.md). An interrupt (Ctrl-C) stays click's abort."""
    try:
        return _ask(name, folder)
    except click.Abort as exc:
        # click raises Abort "from None" for both; the EOFError or KeyboardInterrupt stays its context.
        if isinstance(exc.__context__, KeyboardInterrupt):
            raise
        click.echo()  # end the unanswered prompt's line before the error
        _fail(
            "the input ended before the questions were answered; nothing was written (answer them on "
            "a terminal, or give --entity NAME:ATTRS (repeatable) or --yes for the defaults)",
            2,
        )


@click.command()
@click.argument("folder", default=".", type=click.Path(file_okay=False, path_type=Path))
@click.option("--name", default=None, help="The design's name (default: the folder's name).")
@click.option(
    "--entity",
    "entities",
    multiple=True,
    metavar="NAME:ATTR[=TYPE],...",
    help="An entity and its attributes, e.g. 'Order:status,total=number'; repeat; the first owns the rest.",
)
@click.option(
    "--samples", default=3, show_default=True, type=click.IntRange(1, 1000), help="Sample items per entity."
)
@click.option(
    "--from-endpoint", "endpoint", metavar="URL", help="Read the tables of this DynamoDB endpoint instead."
)
@click.option(
    "--db", type=click.Path(dir_okay=False), help="Read the tables of this embedded engine file instead."
)
@click.option(
    "--table", "tables", multiple=True, help="With --from-endpoint/--db: only these tables (repeatable)."
)
@click.option("-y", "--yes", is_flag=True, help="Do not ask; take the defaults for what flags do not say.")
@click.option("--force", is_flag=True, help="Overwrite an existing design.yaml.")
def init(
    folder: Path,
    name: str | None,
    entities: tuple[str, ...],
    samples: int,
    endpoint: str | None,
    db: str | None,
    tables: tuple[str, ...],
    yes: bool,
    force: bool,
) -> None:
    """Write FOLDER/design.yaml (default: here) with sample items and parameter sets, ready for check."""
    from tablewright.design import DesignError, loads
    from tablewright.design.scaffold import EntityAnswer, from_answers, parse_entity, to_yaml

    target = folder / "design.yaml"
    if target.exists() and not force:
        _fail(f"{target} already exists (pass --force to overwrite it)", 2)
    if endpoint and db:
        raise click.UsageError("give --from-endpoint or --db, not both")
    if (endpoint or db) and entities:
        raise click.UsageError("--entity describes a new design; --from-endpoint/--db read existing tables")
    default_name = (name or "").strip() or folder.resolve().name or "design"
    if endpoint or db:
        data, how = _from_tables(endpoint, db, list(tables), default_name, samples)
    else:
        if not entities:
            default_name, entities = (
                (default_name, _DEFAULT_ENTITIES) if yes else _dialogue(name, folder)  # type: ignore[assignment]
            )
        try:
            answers: list[EntityAnswer] = [parse_entity(e) for e in entities]
            data = from_answers(default_name, answers, samples)
        except ValueError as exc:
            _fail(str(exc), 2)
        how = "from " + ", ".join(entities)
    text = to_yaml(data, how, str(folder))
    try:
        loads(text, str(target))  # never leave a design behind that does not load
    except DesignError as exc:
        _fail(f"the written design would not load (a bug: please report it):\n{exc}", 2)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        _fail(f"cannot write {target}: {exc.strerror or exc}", 3)
    patterns = len(data.get("patterns", {}))
    items = sum(len(v) for v in data.get("samples", {}).values())
    click.echo(f"wrote {target}: {len(data['entities'])} entities, {patterns} patterns, {items} sample items")
    click.echo(f"next: tablewright check {folder}")


def _from_tables(
    endpoint: str | None, db: str | None, tables: list[str], name: str, samples: int
) -> tuple[dict, str]:
    import tablewright
    from tablewright.imports.sampled import design_from_endpoint

    source = endpoint or db
    # What goes wrong goes to the command's error rules (docs/cli.md): a missing file, a URL that is
    # not one or a table that does not exist is 2, an unreachable endpoint or a refused call 3. The
    # file is only read, so it is opened read-only: a file others may read but not write is enough.
    client = tablewright.connect(db, endpoint_url=endpoint, read_only=db is not None)
    data = design_from_endpoint(client, tables or None, name, samples)
    if not data["tables"]:
        _fail(f"{source} has no tables to start from", 2)
    return data, f"from the tables of {source}"
