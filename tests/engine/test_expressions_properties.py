"""Property tests: random update sequences and comparisons against a tiny Python reference model."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from tablewright.engine.errors import ValidationException
from tablewright.engine.expressions import apply_update, evaluate_condition, parse_condition, parse_update

NAMES = ("a", "b", "c")
numbers = st.integers(min_value=-1000, max_value=1000)
string_sets = st.frozensets(st.sampled_from("wxyz"), min_size=1, max_size=3)

# An action: (kind, attribute, operand). The model holds ints (N) or frozensets (SS).
actions = st.one_of(
    st.tuples(st.just("set"), st.sampled_from(NAMES), numbers),
    st.tuples(st.just("set_plus"), st.sampled_from(NAMES), numbers),
    st.tuples(st.just("add_n"), st.sampled_from(NAMES), numbers),
    st.tuples(st.just("add_ss"), st.sampled_from(NAMES), string_sets),
    st.tuples(st.just("delete_ss"), st.sampled_from(NAMES), string_sets),
    st.tuples(st.just("remove"), st.sampled_from(NAMES), st.none()),
)

TEXTS = {
    "set": "SET {0} = :v",
    "set_plus": "SET {0} = {0} + :v",
    "add_n": "ADD {0} :v",
    "add_ss": "ADD {0} :v",
    "delete_ss": "DELETE {0} :v",
    "remove": "REMOVE {0}",
}


def reference(model: dict, kind: str, name: str, operand: object) -> dict:
    """What DynamoDB does, in plain Python; raises ValueError where DynamoDB rejects the update."""
    model = dict(model)
    current = model.get(name)
    if kind == "set":
        model[name] = operand
    elif kind == "set_plus":
        if not isinstance(current, int):
            raise ValueError
        model[name] = current + operand
    elif kind == "add_n":
        if current is not None and not isinstance(current, int):
            raise ValueError
        model[name] = (current or 0) + operand
    elif kind == "add_ss":
        if current is not None and not isinstance(current, frozenset):
            raise ValueError
        model[name] = (current or frozenset()) | operand
    elif kind == "delete_ss":
        if current is not None and not isinstance(current, frozenset):
            raise ValueError
        if current is not None:
            model[name] = current - operand
            if not model[name]:
                del model[name]
    else:
        model.pop(name, None)
    return model


def to_wire(value: object) -> dict:
    return {"N": str(value)} if isinstance(value, int) else {"SS": sorted(value)}  # type: ignore[arg-type]


def from_wire(item: dict) -> dict:
    return {k: int(v["N"]) if "N" in v else frozenset(v["SS"]) for k, v in item.items()}


@settings(max_examples=200, deadline=None)
@given(st.lists(actions, max_size=12))
def test_update_sequences_match_the_reference(steps: list) -> None:
    model: dict = {}
    item: dict = {}
    for kind, name, operand in steps:
        expr = parse_update(TEXTS[kind].format(name))
        values = {":v": to_wire(operand)} if operand is not None else None
        try:
            expected = reference(model, kind, name, operand)
        except ValueError:
            try:
                apply_update(expr, item, None, values)
            except ValidationException:
                continue
            raise AssertionError(f"{kind} {name} {operand} should fail on {item}") from None
        item = apply_update(expr, item, None, values)
        model = expected
        assert from_wire(item) == model


operators = st.sampled_from(["=", "<>", "<", "<=", ">", ">="])
decimals = st.decimals(min_value=-(10**6), max_value=10**6, places=3, allow_nan=False, allow_infinity=False)
PYTHON = {
    "=": lambda a, b: a == b,
    "<>": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


@settings(max_examples=200, deadline=None)
@given(operators, st.one_of(st.none(), decimals), decimals, st.booleans())
def test_number_comparisons_match_python(
    op: str, stored: Decimal | None, given_: Decimal, as_string: bool
) -> None:
    item = {} if stored is None else {"x": {"N": str(stored)}}
    value = {"S": str(given_)} if as_string else {"N": str(given_)}
    result = evaluate_condition(parse_condition(f"x {op} :v"), item, None, {":v": value})
    if stored is None or as_string:
        # A missing attribute, or a value of another type, satisfies only "<>".
        assert result is (op == "<>")
    else:
        assert result is PYTHON[op](stored, given_)
