"""YAML -> plain data plus the line and column of every node, using PyYAML's node API.

``marks[path]`` is the 1-based ``(line, column)`` of the value at ``path`` (a tuple of mapping keys
and list indexes); ``key_marks[path]`` is where the mapping key itself is written. Duplicate keys,
which PyYAML would silently overwrite, are reported. Merge keys (``<<: *defaults``) are applied.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

import yaml

from .files import read_text

Path = tuple[object, ...]


@dataclass
class Source:
    """Loaded YAML data with positions."""

    file: str
    data: object
    marks: dict[Path, tuple[int, int]] = field(default_factory=dict)
    key_marks: dict[Path, tuple[int, int]] = field(default_factory=dict)
    duplicates: list[tuple[Path, int, int]] = field(default_factory=list)
    # Where a number with a fraction is data to be kept digit for digit (a design's sample items),
    # read as a Decimal from its text rather than as a float, which keeps about 17 digits.
    exact_numbers_at: Callable[[Path], bool] | None = field(default=None, repr=False, compare=False)

    def where(self, path: Path, *, key: bool = False) -> tuple[int, int]:
        """Position of ``path``, or of its nearest written ancestor when it is absent."""
        probe = tuple(path)
        while probe:
            table = self.key_marks if key and probe in self.key_marks else self.marks
            if probe in table:
                return table[probe]
            probe = probe[:-1]
        return self.marks.get((), (1, 1))


# A design is a few hundred values, nested a dozen levels. Far beyond either, the text is a hostile or
# broken one: aliases of aliases that expand exponentially ("billion laughs"), or an alias that holds
# itself, which would expand forever.
MAX_VALUES = 200_000
MAX_DEPTH = 100


def load_source(text: str, file: str, exact_numbers_at: Callable[[Path], bool] | None = None) -> Source:
    """Compose YAML text into data and marks; raises ``yaml.YAMLError`` (with a mark where there is
    one) on syntax errors and on documents too deep or too large to be a design.

    A number with a fraction at a path ``exact_numbers_at`` accepts is a ``Decimal`` of the digits
    written (``1234567890.123456789`` stays so); elsewhere YAML's float, as configuration wants."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except RecursionError:  # PyYAML composes recursively: thousands of levels exhaust the stack
        raise yaml.constructor.ConstructorError(
            None, None, f"nested too deeply to be a design (more than {MAX_DEPTH} levels)", None
        ) from None
    except yaml.reader.ReaderError as exc:  # PyYAML says where as an offset, without file or line
        raise _marked(exc, text, file) from None
    source = Source(file, None, exact_numbers_at=exact_numbers_at)
    if node is None:
        source.data = {}
        return source
    constructor = yaml.SafeLoader("")
    source.data = _convert(node, (), source, constructor)
    return source


def _marked(error: yaml.reader.ReaderError, text: str, file: str) -> yaml.MarkedYAMLError:
    """A character YAML refuses (a NUL, a control character), marked at its line and column."""
    line = text.count("\n", 0, error.position)
    column = error.position - (text.rfind("\n", 0, error.position) + 1)
    character = error.character if isinstance(error.character, str) else chr(error.character)
    problem = f"the character U+{ord(character):04X} is not allowed in YAML"
    return yaml.MarkedYAMLError(
        problem=problem, problem_mark=yaml.Mark(file, error.position, line, column, None, None)
    )


class YAMLFileError(ValueError):
    """A YAML input file (a plan, a price list, a lint sidecar) that does not parse; the message
    names the file, and the line and column where PyYAML says."""


def read_yaml(path: str | os.PathLike) -> object:
    """The data of a small YAML input file (read with :func:`tablewright.design.files.read_text`)."""
    text = read_text(path)
    try:
        return yaml.safe_load(text)
    except yaml.reader.ReaderError as exc:
        error: yaml.YAMLError = _marked(exc, text, str(path))
    except RecursionError:
        raise YAMLFileError(f"{path}: nested too deeply to be read") from None
    except yaml.YAMLError as exc:
        error = exc
    mark = getattr(error, "problem_mark", None)
    where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
    problem = getattr(error, "problem", None) or error
    raise YAMLFileError(f"{where}: not YAML: {' '.join(str(problem).split())}") from None


def _mark(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


_MERGE = "tag:yaml.org,2002:merge"  # the `<<` key: YAML's merge of an anchored mapping


def _convert(node: yaml.Node, path: Path, source: Source, constructor: yaml.SafeLoader) -> object:
    if len(path) > MAX_DEPTH:
        raise yaml.constructor.ConstructorError(
            None,
            None,
            f"nested more than {MAX_DEPTH} levels deep (an alias that contains itself?)",
            node.start_mark,
        )
    if len(source.marks) >= MAX_VALUES:
        raise yaml.constructor.ConstructorError(
            None,
            None,
            f"expands to more than {MAX_VALUES:,} values (aliases of aliases?): too large to be a design",
            node.start_mark,
        )
    source.marks[path] = _mark(node)
    if isinstance(node, yaml.MappingNode):
        return _convert_mapping(node, path, source, constructor)
    if isinstance(node, yaml.SequenceNode):
        return [_convert(child, (*path, i), source, constructor) for i, child in enumerate(node.value)]
    if node.tag == _FLOAT and source.exact_numbers_at is not None and source.exact_numbers_at(path):
        exact = exact_decimal(node.value)
        if exact is not None:
            return exact
    return constructor.construct_object(node, deep=True)


_FLOAT = "tag:yaml.org,2002:float"


def exact_decimal(text: str) -> Decimal | None:
    """The Decimal a YAML float scalar spells (``1_000.5``, ``.5``, ``-1.5e+3``), digit for digit, or
    None for what has no exact decimal (``.inf``, ``.nan``, YAML 1.1's base-60 ``1:30.5``): those are
    left to YAML's own float, and the design's checks say what they say of a float."""
    spelled = text.replace("_", "")
    if ":" in spelled:
        return None
    try:
        number = Decimal(spelled)
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


# Beyond these exponents a number is written as d.ddd e+N rather than with all its zeros.
_POSITIONAL_EXPONENTS = range(-12, 28)


def decimal_text(number: Decimal) -> str:
    """A finite Decimal as a YAML float scalar that ``exact_decimal`` reads back to the same number:
    positional where short, else a mantissa with a dot and a signed exponent, as YAML 1.1 needs to
    take it for a number (``1e-7`` is text to YAML; ``1.0e-7`` is a number)."""
    if number.adjusted() in _POSITIONAL_EXPONENTS:
        text = f"{number:f}"
        return text if "." in text else f"{text}.0"
    sign, digits, _ = number.as_tuple()
    shown = "".join(map(str, digits)).rstrip("0") or "0"
    mantissa = f"{shown[0]}.{shown[1:] or '0'}"
    return f"{'-' if sign else ''}{mantissa}e{number.adjusted():+d}"


def _convert_mapping(
    node: yaml.MappingNode, path: Path, source: Source, constructor: yaml.SafeLoader
) -> dict[str, object]:
    """A mapping, with merge keys (``<<: *anchor`` or ``<<: [*a, *b]``) as YAML 1.1 defines them: the
    mapping's own keys win over merged ones, an earlier merged mapping over a later one. Merged values
    keep the marks of where they are written (under the anchor), so errors point there."""
    result: dict[str, object] = {}
    merged: list[yaml.Node] = []
    for key_node, value_node in node.value:
        if key_node.tag == _MERGE:
            merged += value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
    # Converted last to first, so that the winning mapping's values and marks are the ones kept.
    for mapping in reversed(merged):
        if not isinstance(mapping, yaml.MappingNode):
            raise yaml.constructor.ConstructorError(
                "while merging a mapping (<<)",
                node.start_mark,
                f"expected a mapping or a list of mappings to merge, found {mapping.id}",
                mapping.start_mark,
            )
        result.update(_convert_mapping(mapping, path, source, constructor))
    source.marks[path] = _mark(node)
    written: set[str] = set()
    for key_node, value_node in node.value:
        if key_node.tag == _MERGE:
            continue
        key = _key_text(key_node, constructor)
        if key in written:
            source.duplicates.append(((*path, key), *_mark(key_node)))
        written.add(key)
        source.key_marks[(*path, key)] = _mark(key_node)
        result[key] = _convert(value_node, (*path, key), source, constructor)
    return result


_CORE_TAG = "tag:yaml.org,2002:"  # YAML's own types (str, int, float, bool, null, timestamp, binary)


def _key_text(key_node: yaml.Node, constructor: yaml.SafeLoader) -> str:
    """A mapping key as the text written. Every name in a design (attribute, table, map key) is text,
    as in JSON: YAML 1.1 would read ``on:``/``off:``/``yes:``/``no:`` as booleans and ``0x1F:`` as 31,
    and ``str()`` of those made attributes named "True" and "31". ``200:`` stays "200", ``on:`` "on".
    A key that is a mapping or a list cannot name anything and is refused where it is written."""
    if isinstance(key_node, yaml.ScalarNode):
        if not key_node.tag.startswith(_CORE_TAG):
            constructor.construct_object(key_node)  # another tool's tag (!Ref) is refused here
        return key_node.value
    found = "a mapping" if isinstance(key_node, yaml.MappingNode) else "a list"
    raise yaml.constructor.ConstructorError(
        None, None, f"a mapping key must be text, not {found}: write the key as a name", key_node.start_mark
    )
