"""YAML -> plain data plus the line and column of every node, using PyYAML's node API.

``marks[path]`` is the 1-based ``(line, column)`` of the value at ``path`` (a tuple of mapping keys
and list indexes); ``key_marks[path]`` is where the mapping key itself is written. Duplicate keys,
which PyYAML would silently overwrite, are reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import yaml

Path = tuple[object, ...]


@dataclass
class Source:
    """Loaded YAML data with positions."""

    file: str
    data: object
    marks: dict[Path, tuple[int, int]] = field(default_factory=dict)
    key_marks: dict[Path, tuple[int, int]] = field(default_factory=dict)
    duplicates: list[tuple[Path, int, int]] = field(default_factory=list)

    def where(self, path: Path, *, key: bool = False) -> tuple[int, int]:
        """Position of ``path``, or of its nearest written ancestor when it is absent."""
        probe = tuple(path)
        while probe:
            table = self.key_marks if key and probe in self.key_marks else self.marks
            if probe in table:
                return table[probe]
            probe = probe[:-1]
        return self.marks.get((), (1, 1))


def load_source(text: str, file: str) -> Source:
    """Compose YAML text into data and marks; raises ``yaml.YAMLError`` (with a mark) on syntax errors."""
    node = yaml.compose(text, Loader=yaml.SafeLoader)
    source = Source(file, None)
    if node is None:
        source.data = {}
        return source
    constructor = yaml.SafeLoader("")
    source.data = _convert(node, (), source, constructor)
    return source


def _mark(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


def _convert(node: yaml.Node, path: Path, source: Source, constructor: yaml.SafeLoader) -> object:
    source.marks[path] = _mark(node)
    if isinstance(node, yaml.MappingNode):
        result: dict[str, object] = {}
        for key_node, value_node in node.value:
            key = constructor.construct_object(key_node, deep=True)
            # JSON-style string keys: a map attribute named 1 (PDM channel) is the string "1".
            key = key if isinstance(key, str) else str(key)
            if key in result:
                source.duplicates.append(((*path, key), *_mark(key_node)))
            source.key_marks[(*path, key)] = _mark(key_node)
            result[key] = _convert(value_node, (*path, key), source, constructor)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [_convert(child, (*path, i), source, constructor) for i, child in enumerate(node.value)]
    return constructor.construct_object(node, deep=True)
