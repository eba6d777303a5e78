"""Loading a plan: a Python module exposing ``PLAN = Plan([...])``, or YAML for the simple steps.

YAML names functions as ``module:function`` (the plan's folder is importable) and designs by a path
relative to the plan file::

    name: rename-registry
    steps:
      - create_table: {design: ../design.yaml, table: devices}
      - copy: {source: device-registry, target: evse-devices, transform: "transforms:registry"}
      - rename: {old: daily-aggregates, new: evse-daily-stats, delete_old: true}
      - delete_table: {table: sidewalk-v1-device_config}
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..design.yamlsource import read_yaml
from .steps import Backfill, Copy, CreateIndex, CreateTable, DeleteTable, Plan, Rename


def _module(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(f"_tw_plan_{path.stem}_{abs(hash(str(path)))}", path)
    if spec is None or spec.loader is None:
        raise ValueError(f"{path}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))  # plans import helpers beside them
    try:
        spec.loader.exec_module(module)
    except SyntaxError:
        raise  # its message already names the file and line
    except Exception as error:  # noqa: BLE001 - the plan's own code may raise anything while it loads
        raise ValueError(f"{path}: the plan does not load: {type(error).__name__}: {error}") from None
    return module


def _function(ref: str | None, base: Path) -> Callable | None:
    if ref is None:
        return None
    module_name, sep, name = ref.partition(":")
    if not sep:
        raise ValueError(f"function {ref!r}: write module:function")
    if str(base) not in sys.path:
        sys.path.insert(0, str(base))
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name != module_name and not module_name.startswith(f"{error.name}."):
            # The module exists, but something it imports does not.
            raise ValueError(f"function {ref!r}: module {module_name} does not load: {error}") from None
        raise ValueError(
            f"function {ref!r}: no module {module_name!r} beside the plan ({base}) or installed"
        ) from None
    except Exception as error:  # noqa: BLE001 - the plan's module may raise anything while it loads
        raise ValueError(
            f"function {ref!r}: module {module_name} does not load: {type(error).__name__}: {error}"
        ) from None
    function = getattr(module, name, None)
    if not callable(function):
        raise ValueError(f"function {ref!r}: module {module_name} has no function {name}")
    return function


def _create_table(spec: dict[str, Any], base: Path) -> CreateTable:
    if "design" in spec:
        design, table = base / spec["design"], spec["table"]
        if not design.is_file():
            said = "is not a file" if design.exists() else "does not exist"
            raise ValueError(f"design {spec['design']!r}: {design} {said}")
        try:
            return CreateTable.from_design(design, table)
        except KeyError as unknown:  # the design has no such table: said, not a missing field
            raise ValueError(unknown.args[0]) from None
        except OSError as error:
            raise ValueError(f"design {spec['design']!r}: {error.strerror or error}") from None
    if "like" in spec:
        return CreateTable(like=spec["like"], name=spec["name"], ttl=spec.get("ttl"))
    return CreateTable(spec=spec["spec"], ttl=spec.get("ttl"))


# YAML step name -> builder (the spec under the name, the plan's folder).
STEP_BUILDERS: dict[str, Callable[[dict[str, Any], Path], Any]] = {
    "create_table": _create_table,
    "create_index": lambda s, b: CreateIndex(s["table"], s["index"], s.get("attribute_definitions", [])),
    "copy": lambda s, b: Copy(
        s["source"],
        s["target"],
        _function(s.get("transform"), b),
        s.get("delete_source", False),
        s.get("name"),
    ),
    "backfill": lambda s, b: Backfill(
        s["table"], s["attribute"], _function(s["function"], b), s.get("only_missing", True)
    ),  # type: ignore[arg-type]
    "rename": lambda s, b: Rename(
        s["old"], s["new"], transform=_function(s.get("transform"), b), delete_old=s.get("delete_old", False)
    ),
    "delete_table": lambda s, b: DeleteTable(s["table"]),
}

# What each YAML step's fields hold. A plan deletes tables, so a value of the wrong kind is refused
# before anything runs: YAML's "false" in quotes is a string, which Python would take as true.
_TEXT, _FLAG, _MAPPING, _LIST = (str, "text"), (bool, "true or false"), (dict, "a mapping"), (list, "a list")
STEP_FIELDS: dict[str, dict[str, tuple[type, str]]] = {
    "create_table": {
        "design": _TEXT,
        "table": _TEXT,
        "like": _TEXT,
        "name": _TEXT,
        "spec": _MAPPING,
        "ttl": _TEXT,
    },
    "create_index": {"table": _TEXT, "index": _MAPPING, "attribute_definitions": _LIST},
    "copy": {"source": _TEXT, "target": _TEXT, "transform": _TEXT, "delete_source": _FLAG, "name": _TEXT},
    "backfill": {"table": _TEXT, "attribute": _TEXT, "function": _TEXT, "only_missing": _FLAG},
    "rename": {"old": _TEXT, "new": _TEXT, "transform": _TEXT, "delete_old": _FLAG},
    "delete_table": {"table": _TEXT},
}


def _checked_fields(kind: str, spec: Any) -> dict[str, Any]:
    """The step's fields, each of the kind it must be (ValueError naming the first that is not)."""
    if spec is None:
        return {}
    if not isinstance(spec, dict):
        raise ValueError(f"its fields must be a mapping, e.g. `- {kind}: {{...}}`, not {spec!r}")
    known = STEP_FIELDS[kind]
    for field, value in spec.items():
        if field not in known:
            raise ValueError(f"unknown field {field!r} (known: {', '.join(known)})")
        kind_of, text = known[field]
        if not isinstance(value, kind_of) or (kind_of is str and not value.strip()):
            raise ValueError(f"{field} must be {text}, not {value!r}")
    return spec


def _yaml_plan(path: Path) -> Plan:
    data = read_yaml(path)
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a plan is a mapping with `name:` and `steps:`, not {type(data).__name__}")
    entries = data.get("steps")
    if not isinstance(entries, list) or not entries:
        raise ValueError(f"{path}: `steps:` must be a list of at least one step, not {entries!r}")
    name = data.get("name", path.stem)
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"{path}: `name:` must be text, not {name!r}")
    steps = []
    for number, entry in enumerate(entries, 1):
        if not isinstance(entry, dict) or len(entry) != 1:
            raise ValueError(
                f"{path}: step {number}: write one step name with its fields, e.g. `- copy: {{...}}`"
            )
        ((kind, spec),) = entry.items()
        builder = STEP_BUILDERS.get(kind)
        if builder is None:
            raise ValueError(
                f"{path}: step {number}: unknown step {kind!r} (known: {', '.join(STEP_BUILDERS)})"
            )
        try:
            steps.append(builder(_checked_fields(kind, spec), path.parent))
        except KeyError as missing:
            raise ValueError(f"{path}: step {number} ({kind}): missing field {missing}") from None
        except ValueError as error:
            raise ValueError(f"{path}: step {number} ({kind}): {error}") from None
    return Plan(steps, name=name)


def load_plan(path: str | Path) -> Plan:
    """The plan in a ``.py`` (its ``PLAN``) or ``.yaml``/``.yml`` file."""
    file = Path(path).resolve()
    if file.suffix in (".yaml", ".yml"):
        return _yaml_plan(file)
    if file.suffix != ".py":
        raise ValueError(f"{path}: a plan is a .py file defining PLAN or a .yaml/.yml file")
    plan = getattr(_module(file), "PLAN", None)
    if not isinstance(plan, Plan):
        raise ValueError(f"{path}: defines no PLAN = Plan([...])")
    if plan.name == "plan":
        plan.name = file.stem if file.stem != "plan" else file.parent.name
    return plan
