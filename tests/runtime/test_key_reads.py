"""Patterns served by keys: get, batch_get (chunks of 100, request order, paging) and transact_get.

Each read composes its keys the way ``rt.get`` does and returns records in the order the caller
asked for them, once each; batch_get pages by key offset, so its pages followed by cursor are the
whole answer.
"""

from __future__ import annotations

import pytest

from tablewright import connect
from tablewright.design import loads
from tablewright.runtime import PatternError, Runtime

DESIGN = """
version: 1
name: keyreads
entity_type_attribute: kind
tables:
  main: {name: Main, partition_key: {name: PK, type: S}, sort_key: {name: SK, type: S}}
entities:
  Account:
    table: main
    entity_type: ACCOUNT
    attributes:
      region: {type: string, required: true}
      id: {type: number, required: true}
      owner: string
    keys:
      table: {pk: "ACCOUNT#{region}", sk: "ID#{id:06}"}
  Profile:
    table: main
    entity_type: PROFILE
    attributes:
      owner: {type: string, required: true}
      name: string
    keys:
      table: {pk: "OWNER#{owner}", sk: "PROFILE"}
patterns:
  account:
    params: {region: string, id: number}
    returns: Account
    means: {where: "region = :region AND id = :id"}
    served: {op: get, consistent: true}
  account_eventually:
    params: {region: string, id: number}
    returns: Account
    means: {where: "region = :region AND id = :id"}
    served: {op: get}
  accounts_between:
    params: {region: string, low: number, high: number}
    returns: Account
    means: {where: "region = :region AND id BETWEEN :low AND :high"}
    served: {op: query, consistent: true, sort: {between: [{id: ":low"}, {id: ":high"}]}}
  accounts:
    params: {region: string, ids: list}
    returns: Account
    means: {where: "region = :region AND contains(:ids, id)"}
    served: {op: batch_get, keys: ":ids"}
  anywhere:
    params: {ids: list}
    returns: Account
    means: {where: "contains(:ids, id)"}
    served: {op: batch_get, keys: ":ids"}
  account_and_profile:
    params: {region: string, id: number, owner: string}
    returns: [Account, Profile]
    means: {where: "(region = :region AND id = :id) OR owner = :owner"}
    served:
      op: transact_get
      items:
        - {entity: Account, bind: {region: ":region", id: ":id"}}
        - {entity: Profile, bind: {owner: ":owner"}}
  home_profile:
    params: {region: string, id: number}
    returns: [Account, Profile]
    means: {where: "region = :region AND id = :id"}
    served:
      op: transact_get
      items:
        - {entity: Profile, bind: {owner: "home"}}
        - {entity: Account}
"""


@pytest.fixture
def rt() -> Runtime:
    runtime = Runtime(loads(DESIGN), connect(), secret=b"keys")
    runtime.create_tables()
    runtime.load_many("Account", [{"region": "eu", "id": n, "owner": f"o{n}"} for n in range(0, 300, 2)])
    runtime.put("Profile", {"owner": "o4", "name": "Ada"})
    runtime.put("Profile", {"owner": "home", "name": "Home"})
    return runtime


def _ids(page) -> list:
    return [record["id"] for record in page]


def test_get_reads_one_item_or_none(rt):
    page = rt.run("account", region="eu", id=4)
    assert (_ids(page), page.stats.requests, page.stats.items_read) == ([4], 1, 1)
    assert page.cursor is None
    assert len(rt.run("account", region="eu", id=5)) == 0


def test_batch_get_answers_in_request_order_once_each_over_several_chunks(rt):
    asked = [*range(298, -1, -3), 4, 4, 10_000]  # 100 keys and more, repeated and missing ones among them
    page = rt.run("accounts", region="eu", ids=asked)
    wanted = list(dict.fromkeys(n for n in asked if n % 2 == 0 and n < 300))
    assert _ids(page) == wanted and page.cursor is None
    assert page.stats.requests == 2  # two chunks of at most 100 distinct keys
    assert page.stats.items_read == len(wanted)


@pytest.mark.parametrize("limit", [1, 7, 50])
def test_batch_get_pages_followed_by_cursor_are_the_whole_answer(rt, limit):
    asked = [*range(0, 60, 2), 4, 1, 2, 62]  # stored ids are even: 1 is missing, 4 and 2 repeat
    whole = _ids(rt.run("accounts", region="eu", ids=asked))
    seen, cursor = [], None
    while True:
        page = rt.run("accounts", region="eu", ids=asked, limit=limit, cursor=cursor)
        assert 0 < len(page) <= limit
        seen += _ids(page)
        if (cursor := page.cursor) is None:
            break
    assert seen == whole


def test_batch_get_keys_may_be_maps_and_must_compose(rt):
    page = rt.run("accounts", region="eu", ids=[{"id": 6}, {"id": 8, "region": "eu"}])
    assert _ids(page) == [6, 8]
    with pytest.raises(PatternError, match=r"pattern 'accounts': ids\[1\]: .*id"):
        rt.run("accounts", region="eu", ids=[6, "six"])
    with pytest.raises(PatternError, match="parameter ids must be a list of keys"):
        rt.run("accounts", region="eu", ids="6")


def test_transact_get_reads_every_bound_item_in_order(rt):
    page = rt.run("account_and_profile", region="eu", id=4, owner="o4")
    assert [(record.entity, record.get("id", record.get("name"))) for record in page] == [
        ("Account", 4),
        ("Profile", "Ada"),
    ]
    assert (page.stats.requests, page.stats.items_read) == (1, 2)
    missing = rt.run("account_and_profile", region="eu", id=5, owner="o4")
    assert [record.entity for record in missing] == ["Profile"]


def test_transact_get_binds_constants_and_same_named_parameters(rt):
    page = rt.run("home_profile", region="eu", id=6)
    assert [(record.entity, record.get("name", record.get("id"))) for record in page] == [
        ("Profile", "Home"),
        ("Account", 6),
    ]


def test_transact_get_refuses_a_key_it_cannot_compose_naming_the_item(rt):
    with pytest.raises(
        PatternError, match=r"pattern 'home_profile': item 1 \(Account\): Account: .*negative"
    ):
        rt.run("home_profile", region="eu", id=-3)


def test_batch_get_asks_again_for_the_keys_a_16_mb_answer_left_out(rt):
    # 50 items of ~390 KB: DynamoDB answers at most 16 MB and gives the rest back as UnprocessedKeys.
    big = "x" * 390_000
    rt.load_many("Account", [{"region": "big", "id": n, "owner": big} for n in range(50)])
    page = rt.run("accounts", region="big", ids=list(range(49, -1, -1)))
    assert _ids(page) == list(range(49, -1, -1))
    assert page.stats.requests == 2 and page.stats.items_read == 50


def test_a_single_value_for_a_key_of_several_open_fields_says_what_the_key_needs(rt):
    with pytest.raises(PatternError) as caught:
        rt.run("anywhere", ids=[{"region": "eu", "id": 2}, 4])
    assert str(caught.value) == "a key for Account needs region, id; got the single value 4"
    assert _ids(rt.run("anywhere", ids=[{"region": "eu", "id": 2}])) == [2]


def test_a_consistent_read_is_asked_for_and_paid_for(rt):
    # DynamoDB charges a strongly consistent read of a small item 1 RCU, an eventually consistent one 0.5.
    assert rt.run("account", region="eu", id=4).stats.consumed_capacity == 1.0
    assert rt.run("account_eventually", region="eu", id=4).stats.consumed_capacity == 0.5
    assert rt.run("accounts_between", region="eu", low=4, high=4).stats.consumed_capacity == 1.0


def test_a_key_no_value_composes_is_said_for_get_and_query(rt):
    with pytest.raises(PatternError, match=r"cannot zero-pad negative number -1"):
        rt.run("account", region="eu", id=-1)
    with pytest.raises(PatternError, match=r"cannot zero-pad negative number -4"):
        rt.run("accounts_between", region="eu", low=-4, high=4)


def test_stats_add_every_capacity_shape_and_read_as_plain_data():
    from tablewright.runtime.page import Stats

    stats = Stats(requests=1, items_read=2, items_returned=1, skipped=3, latency_ms=1.2345678)
    stats.add_capacity({"CapacityUnits": 0.5})
    stats.add_capacity([{"CapacityUnits": 1.0}, {"TableName": "Main"}, {"CapacityUnits": 0.123}])
    stats.add_capacity(None)
    assert stats.as_dict() == {
        "requests": 1,
        "items_read": 2,
        "items_returned": 1,
        "skipped": 3,
        "consumed_capacity": 1.62,
        "latency_ms": 1.235,
    }
