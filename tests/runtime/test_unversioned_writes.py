"""Unversioned entities: create-only puts, conditions, and UpdateItem of only what changed."""

import threading
from datetime import UTC, datetime

import pytest

from tablewright import connect
from tablewright.runtime import AlreadyExistsError, ConditionFailedError, ValidationError

from .interleaving import BeforeWrite

NOW = datetime(2025, 1, 15, 12, 0, tzinfo=UTC)
KEY = {"accountId": "a"}


def _account(**extra) -> dict:
    return {"accountId": "a", "owner": "o1", "email": "a@x.io", "balance": 100, **extra}


def _raw(rt) -> dict:
    return rt.client.get_item(TableName="Ledger", Key={"PK": {"S": "ACCOUNT#a"}, "SK": {"S": "PROFILE"}})[
        "Item"
    ]


def test_put_creates_only_and_replace_overwrites(bank):
    bank.put("Account", _account())
    with pytest.raises(AlreadyExistsError, match=r"Account \(PK='ACCOUNT#a', SK='PROFILE'\): already exists"):
        bank.put("Account", _account(balance=5))
    assert bank.get("Account", **KEY)["balance"] == 100
    bank.replace("Account", _account(balance=5))  # the explicit overwrite
    assert bank.get("Account", **KEY)["balance"] == 5


def test_put_loses_the_race_with_already_exists(bank, runtime_for):
    rival = runtime_for("bank", bank.client)
    racing = runtime_for(
        "bank", BeforeWrite(bank.client, lambda: rival.put("Account", _account(note="rival")))
    )
    with pytest.raises(AlreadyExistsError, match="already exists"):
        racing.put("Account", _account(note="mine"))
    assert bank.get("Account", **KEY)["note"] == "rival"


def test_update_condition_holds_or_names_what_is_stored(bank):
    bank.put("Account", _account())
    bank.update(
        "Account", KEY, {"balance": 60}, condition="balance >= :amount", condition_params={"amount": 40}
    )
    with pytest.raises(ConditionFailedError) as caught:
        bank.update(
            "Account", KEY, {"balance": 0}, condition="balance >= :amount", condition_params={"amount": 90}
        )
    assert caught.value.operation is None
    assert str(caught.value) == (
        "update Account (PK='ACCOUNT#a', SK='PROFILE'): condition 'balance >= :amount' failed: "
        "the stored item has balance=60"
    )
    assert bank.get("Account", **KEY)["balance"] == 60


def test_condition_datetime_parameter_takes_the_attribute_format(bank):
    bank.put("Account", _account(openedAt=1_735_689_600_000))  # 2025-01-01T00:00:00Z in epoch ms
    later = datetime(2025, 2, 1, tzinfo=UTC)
    bank.update("Account", KEY, {"note": "old"}, condition="openedAt < :t", condition_params={"t": later})
    with pytest.raises(ConditionFailedError):
        bank.update("Account", KEY, {"note": "new"}, condition="openedAt > :t", condition_params={"t": later})
    assert bank.get("Account", **KEY)["note"] == "old"


def test_bad_conditions_are_refused_before_writing(bank):
    bank.put("Account", _account())
    with pytest.raises(ValidationError, match="colour is not an attribute of Account"):
        bank.update("Account", KEY, {"note": "x"}, condition="colour = 'red'")
    with pytest.raises(ValidationError, match="parameter :n is not given"):
        bank.update("Account", KEY, {"note": "x"}, condition="balance > :n")
    with pytest.raises(ValidationError, match="condition does not parse"):
        bank.put("Account", _account(), condition="balance >")
    assert "note" not in bank.get("Account", **KEY)


def test_replace_condition(bank):
    bank.put("Account", _account())
    with pytest.raises(ConditionFailedError, match=r"replace Account .*status='OPEN'"):
        bank.replace("Account", _account(balance=1), condition="status = 'FROZEN'")
    bank.replace("Account", _account(balance=1), condition="status = 'OPEN'")
    assert bank.get("Account", **KEY)["balance"] == 1


def test_update_writes_only_what_changed_so_a_concurrent_change_survives(bank, runtime_for):
    bank.put("Account", _account(), now=NOW)
    rival = runtime_for("bank", bank.client)
    racing = runtime_for(
        "bank", BeforeWrite(bank.client, lambda: rival.update("Account", KEY, {"nickname": "rival"}))
    )
    racing.update("Account", KEY, {"note": "mine"})
    stored = bank.get("Account", **KEY)
    assert (stored["nickname"], stored["note"]) == ("rival", "mine")


def test_derived_keys_never_mix_two_reads(bank, runtime_for):
    bank.put("Account", _account(status="FROZEN"), now=NOW)
    assert "GSI1SK" not in _raw(bank)  # frozen: out of the sparse index
    rival = runtime_for("bank", bank.client)
    # The rival changes tier after the racing update read the item; the racing update's GSI1SK was
    # composed from the old tier, so its guard fails and it is planned again from a fresh read.
    racing = runtime_for(
        "bank", BeforeWrite(bank.client, lambda: rival.update("Account", KEY, {"tier": "gold"}))
    )
    racing.update("Account", KEY, {"status": "OPEN", "balance": 7})
    raw = _raw(bank)
    assert (raw["tier"], raw["balance"]) == ({"S": "gold"}, {"N": "7"})
    assert raw["GSI1SK"] == {"S": "OPEN#gold"}
    bank.update("Account", KEY, {"status": "FROZEN"})
    assert "GSI1PK" not in _raw(bank) and "GSI1SK" not in _raw(bank)  # REMOVEd: the index stays sparse


def test_stale_unique_value_is_replanned(bank, runtime_for):
    bank.put("Account", _account(), now=NOW)
    rival = runtime_for("bank", bank.client)
    racing = runtime_for(
        "bank", BeforeWrite(bank.client, lambda: rival.update("Account", KEY, {"email": "r@x.io"}))
    )
    racing.update("Account", KEY, {"email": "m@x.io"})
    items = bank.client.scan(TableName="Ledger")["Items"]
    markers = sorted(i["PK"]["S"] for i in items if i["PK"]["S"].startswith("_tw#unique"))
    assert markers == ["_tw#unique#Account#email#m@x.io"]  # the rival's marker was released, none leaks
    assert bank.get("Account", **KEY)["email"] == "m@x.io"


def test_concurrent_writers_of_different_attributes_all_survive(tmp_path, runtime_for):
    db = tmp_path / "bank.db"
    first = runtime_for("bank", connect(db))
    first.put("Account", _account(status="FROZEN"))
    writers = [runtime_for("bank", connect(db)) for _ in range(6)]
    changes = [
        {"note": "n"},
        {"nickname": "k"},
        {"balance": 5},
        {"tier": "gold"},
        {"status": "OPEN"},
        {"openedAt": 1_735_689_600_000},
    ]
    barrier = threading.Barrier(len(writers))
    errors = []

    def write(rt, change):
        barrier.wait()
        try:
            rt.update("Account", KEY, change)
        except Exception as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=pair) for pair in zip(writers, changes)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    stored = first.get("Account", **KEY)
    for change in changes:
        assert {k: stored.get(k) for k in change} == change
    assert _raw(first)["GSI1SK"] == {"S": "OPEN#gold"}


def test_update_of_a_missing_item_is_not_found_and_creates_nothing(bank):
    from tablewright.runtime import NotFoundError

    with pytest.raises(NotFoundError):
        bank.update("Account", KEY, {"note": "x"})
    assert bank.client.scan(TableName="Ledger")["Count"] == 0
