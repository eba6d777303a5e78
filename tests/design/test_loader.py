import json
from importlib import resources

import jsonschema
import pytest
import yaml

from tablewright.design import DesignError, load, loads


def test_van_example_loads_and_validates_against_schema(van_yaml):
    design = loads(van_yaml, "van.yaml")
    table = design.tables["telemetry"]
    assert table.table_name == "van-telemetry" and table.ttl == "ttl" and table.stream == "NEW_IMAGE"
    assert table.indexes["MessageTypeIndex"].sort_key.type == "N"
    assert design.volumes.entities["Message"].writes_per_second == pytest.approx(1 / 30)
    assert design.volumes.patterns["device_status"].reads_per_second == pytest.approx(1 / 60)
    schema = json.loads(resources.files("tablewright.design").joinpath("schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(yaml.safe_load(van_yaml))


def test_load_from_path(tmp_path, van_yaml):
    path = tmp_path / "van.yaml"
    path.write_text(van_yaml)
    assert load(path).name == "van-telemetry"


BROKEN = """\
version: 1
tables:
  main:
    partition_key: {name: PK, type: S}
    sort_key: {name: SK, type: S}
    billing: {mode: provisioned, read: 5}
    indexes:
      GSI1: {partition_key: GSI1PK, sort_key: GSI1SK, projection: SOME}
entities:
  Task:
    table: mian
    attributes:
      status: {type: string, enum: [BACKLOG, "off", off]}
      dueUtc: {type: strng}
    keys:
      table: {pk: "USER#{userId}", sk: "TASK#{taskId"}
patterns:
  board:
    returns: Task
    served: {op: query, idx: GSI1}
"""


def _problems(text):
    with pytest.raises(DesignError) as info:
        loads(text, "broken.yaml")
    return info.value.problems


def test_every_shape_error_reported_at_once_with_lines():
    problems = _problems(BROKEN)
    by_line = {(p.line, p.message.split(" ")[0]) for p in problems}
    messages = "\n".join(str(p) for p in problems)
    assert any(p.line == 6 and "'write' is a required property" in p.message for p in problems), messages
    assert any(p.line == 8 and "'SOME'" in p.message for p in problems), messages  # projection
    assert any(p.line == 14 and "'strng'" in p.message and "string" in p.hint for p in problems), messages
    assert any(p.line == 16 and "not closed" in p.message for p in problems), messages  # template syntax
    assert any(p.line == 20 and "unknown key 'idx'" in p.message and "index" in p.hint for p in problems), (
        messages
    )
    assert len(by_line) >= 5
    assert all(p.file == "broken.yaml" for p in problems)
    assert "broken.yaml:6:" in str(DesignError(problems))


SEMANTIC = """\
tables:
  main:
    partition_key: PK
    sort_key: SK
    indexes:
      GSI1: {partition_key: GSI1PK, sort_key: GSI1SK}
      LSI1: {kind: local, partition_key: OTHER, sort_key: LSK}
entities:
  Task:
    table: main
    attributes:
      userId: string
      taskId: string
      status: {type: string, enum: [BACKLOG, TODO, "off", off]}
      dueUtc: {type: string, format: rfc3339}
      ttl: {type: number, computed: {ttl: {from: createdMs, retention: 30d}}}
    keys:
      table: {pk: "USER#{userId}", sk: "TASK#{taskId}"}
      GSI1: {pk: "USER#{userId}#{dueUtc|year}", sk: "{dueUtc}", when: "status <> BACKLOG"}
      GSI9: {pk: "X#{userId}"}
  Note:
    table: mian
patterns:
  board:
    params: {userId: string}
    returns: [Task, Ghost]
    means: {where: "userId = :user"}
    served: {op: query, index: GSI1}
volumes:
  entities: {Tsk: {items: 3}}
"""


def test_semantic_errors_with_lines_and_hints():
    problems = _problems(SEMANTIC)
    text = "\n".join(str(p) for p in problems)

    def at(line, fragment):
        return any(p.line == line and fragment in str(p) for p in problems)

    assert at(7, "must use the table's partition key"), text
    assert at(14, "contains a boolean") and at(14, "quote them"), text
    assert at(16, "'createdMs' is not an attribute"), text
    assert at(19, "unknown attribute 'BACKLOG'") and at(19, "quote string literals"), text
    assert at(20, "no index 'GSI9'"), text
    assert at(22, "unknown table 'mian'") and at(22, "did you mean 'main'"), text
    assert at(26, "unknown entity 'Ghost'"), text
    assert at(27, "parameter :user is not declared"), text
    assert at(30, "unknown entity 'Tsk'") and at(30, "did you mean 'Task'"), text
    assert problems == sorted(problems, key=lambda p: (p.file, p.line, p.column))


def test_key_type_mismatch():
    text = """\
tables:
  t: {partition_key: {name: id, type: S}, sort_key: {name: ts, type: N}}
entities:
  E:
    table: t
    attributes: {id: string, ts: {type: number, format: epoch_ms}}
    keys:
      table: {pk: "{id}", sk: "T#{ts}"}
"""
    [problem] = _problems(text)
    assert problem.line == 8 and "type N" in problem.message and "composes type S" in problem.message


def test_sparse_condition_on_natural_key_attribute_is_rejected():
    text = """\
tables:
  t:
    partition_key: thing_name
    indexes: {ByType: {partition_key: message_type}}
entities:
  M:
    table: t
    attributes: {thing_name: string, message_type: string}
    keys:
      ByType: {pk: "{message_type}", when: "message_type <> 'telemetry'"}
"""
    [problem] = _problems(text)
    assert problem.line == 10 and "stored on every item" in problem.message


def test_yaml_syntax_and_duplicate_keys():
    [problem] = _problems("tables:\n  t: [unclosed\n")
    assert "YAML syntax" in problem.message and problem.line >= 2
    dup = "tables:\n  t: {partition_key: PK}\n  t: {partition_key: PK}\n"
    [problem] = _problems(dup)
    assert problem.line == 3 and "duplicate key 't'" in problem.message


def test_schema_ships_and_is_valid_2020_12():
    from tablewright.design import schema

    jsonschema.Draft202012Validator.check_schema(schema())
    assert schema()["$schema"].endswith("2020-12/schema")


def test_schema_rejects_what_the_loader_rejects():
    validator = jsonschema.Draft202012Validator(
        json.loads(resources.files("tablewright.design").joinpath("schema.json").read_text())
    )
    assert list(validator.iter_errors(yaml.safe_load(BROKEN)))


def test_design_package_imports_no_engine_or_client():
    # Static: the top-level tablewright package may import the engine, but no design module may.
    import ast
    from pathlib import Path

    import tablewright.design

    forbidden = ("boto3", "botocore", "tablewright.engine", "tablewright.client", "tablewright.runtime")
    root = Path(tablewright.design.__file__).parent
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            if isinstance(node, ast.ImportFrom) and node.level >= 3:
                names = ["tablewright." + (node.module or "")]
            assert not [n for n in names if n.startswith(forbidden)], f"{path.name} imports {names}"


PATTERNS = """\
tables:
  things: {partition_key: PK}
entities:
  Doc:
    table: things
    attributes:
      id: {type: string, required: true, pattern: "^[a-z"}
      code: {type: string, pattern: 7}
      when: {type: string, pattern: '^(?<year>\\d{4})-\\k<year>$'}
      meta:
        type: map
        attributes:
          tag: {type: string, pattern: "(unclosed"}
    keys:
      table: {pk: "D#{id}"}
"""


def test_a_pattern_that_is_not_a_regular_expression_is_refused_where_it_is_written():
    problems = _problems(PATTERNS)
    text = "\n".join(str(p) for p in problems)
    assert [p.line for p in problems] == [7, 8, 13], text  # line 8: the schema's, a number is no pattern
    assert "pattern '^[a-z' is not a valid regular expression: unterminated character set" in text
    assert "'pattern': 7} does not have a valid form" in text
    assert "missing ), unterminated subpattern" in text


def test_ecma_named_groups_in_a_pattern_work_as_json_schema_reads_them():
    design = loads(
        PATTERNS.replace('"^[a-z"', '"^[a-z]+$"')
        .replace("pattern: 7", "pattern: '7'")
        .replace("(unclosed", "x")
    )
    when = design.entities["Doc"].attributes["when"]
    assert when.validate("2020-2020") == []
    assert [rule for _, rule, _ in when.validate("2020-2021")] == ["pattern"]


def _set(data: dict, path: tuple, value: object) -> None:
    for key in path[:-1]:
        data = data.setdefault(key, {})
    data[path[-1]] = value


HOSTILE = {
    "unique a number": (("entities", "Message", "unique"), 0),
    "unique empty": (("entities", "Message", "unique"), None),
    "unique true": (("entities", "Message", "unique"), True),
    "returns empty": (("patterns", "device_status", "returns"), None),
    "returns a number": (("patterns", "device_status", "returns"), 1),
    "returns infinite": (("patterns", "device_status", "returns"), float("inf")),
    "served index a list": (("patterns", "device_status", "served", "index"), [1]),
    "served index a mapping": (("patterns", "device_status", "served", "index"), {"a": None}),
    "items infinite": (("volumes", "entities", "Message", "items"), float("inf")),
    "growth infinite": (("volumes", "entities", "Message", "growth_per_month"), float("inf")),
    "writes infinite": (("volumes", "entities", "Message", "writes"), float("inf")),
    "reads not a number": (("volumes", "patterns", "device_status", "reads"), float("nan")),
    "reads negative": (("volumes", "patterns", "device_status", "reads"), -1),
    "peak infinite": (("volumes", "peak_factor"), float("inf")),
    "peak not a number": (("volumes", "peak_factor"), float("nan")),
}


@pytest.mark.parametrize(("path", "value"), HOSTILE.values(), ids=HOSTILE)
def test_values_of_the_wrong_kind_are_problems_at_their_place_not_crashes(van_yaml, path, value):
    data = yaml.safe_load(van_yaml)
    _set(data, path, value)
    with pytest.raises(DesignError) as info:
        loads(yaml.safe_dump(data, sort_keys=False), "van.yaml")
    assert info.value.problems
    assert any(
        path[-1] in problem.message or "/".join(path) in problem.message for problem in info.value.problems
    ) or all(problem.line > 1 for problem in info.value.problems)


HOSTILE_YAML = {
    "alias holding itself": ("a: &a [*a]\n", "an alias that contains itself"),
    "billion laughs": (
        "name: x\nl0: &l0 [x, x, x, x, x, x, x, x, x]\n"
        + "".join(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]\n" for i in range(1, 8)),
        "too large to be a design",
    ),
    "nested thousands deep": ("description: " + "[" * 3000 + "]" * 3000 + "\n", "nested too deeply"),
}


@pytest.mark.parametrize(("text", "said"), HOSTILE_YAML.values(), ids=HOSTILE_YAML)
def test_yaml_that_expands_without_end_is_a_problem_not_a_hang(text, said):
    with pytest.raises(DesignError) as info:
        loads(text, "hostile.yaml")
    assert said in str(info.value)
