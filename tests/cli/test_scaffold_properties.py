"""Property: whatever entities and attributes ``init`` is given, the design it writes loads and
``check`` runs every pattern of it and agrees both ways."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tablewright.design import loads
from tablewright.design.scaffold import KEY_ATTRIBUTES, EntityAnswer, from_answers, to_yaml
from tablewright.runtime import Runtime
from tablewright.runtime.verify import verify_pattern

entity_names = st.from_regex(r"[A-Z][a-z]{1,6}[A-Z]?[a-z0-9]{0,3}", fullmatch=True)
attribute_names = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,7}", fullmatch=True)
attributes = st.dictionaries(attribute_names, st.sampled_from(["string", "number", "boolean"]), max_size=4)


@st.composite
def answers(draw) -> list[EntityAnswer]:
    names = draw(st.lists(entity_names, min_size=1, max_size=3, unique_by=str.lower))
    result = []
    for name in names:
        ids = {f"{n.lower()}_id" for n in names}
        attrs = {k: v for k, v in draw(attributes).items() if k not in ids | KEY_ATTRIBUTES}
        result.append(EntityAnswer(name, attrs))
    return result


@settings(max_examples=60, deadline=None)
@given(answers(), st.integers(1, 4))
def test_every_scaffold_loads_and_checks(entities: list[EntityAnswer], samples: int) -> None:
    data = from_answers("prop", entities, samples)
    design = loads(to_yaml(data, "property test"), "prop.yaml")
    rt = Runtime(design)
    rt.create_tables()
    records = []
    for entity, items in design.samples.items():
        records += rt.put_many(entity, items).records
    assert len(records) == samples * (1 + 2 * (len(entities) - 1))
    for name, pattern in design.patterns.items():
        assert pattern.examples, name
        for params in pattern.examples:
            verdict = verify_pattern(rt, name, params, records)
            assert verdict.ok and verdict.returned > 0, (name, params, verdict.summary())
