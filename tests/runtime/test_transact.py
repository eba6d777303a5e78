"""rt.compose / rt.key and rt.transact across entities on the real embedded engine."""

from datetime import UTC, datetime

import pytest

from tablewright.runtime import (
    ConditionFailedError,
    ConflictError,
    NotFoundError,
    PatternError,
    TransactionTooLargeError,
    UniquenessError,
    ValidationError,
)

NOW = datetime(2025, 1, 15, 12, 0, tzinfo=UTC)


def _account(account_id: str, balance: int = 100, **extra) -> dict:
    return {
        "accountId": account_id,
        "owner": "o1",
        "email": f"{account_id}@x.io",
        "balance": balance,
        **extra,
    }


def _raw(rt, pk: str, sk: str):
    return rt.client.get_item(TableName="Ledger", Key={"PK": {"S": pk}, "SK": {"S": sk}}).get("Item")


def _count(rt) -> int:
    return rt.client.scan(TableName="Ledger")["Count"]


@pytest.fixture
def funded(bank):
    bank.put("Account", _account("a"), now=NOW)
    bank.put("Account", _account("b", 10), now=NOW)
    return bank


def _transfer(rt, transfer_id: str, amount: int, seen_a: int, seen_b: int) -> list:
    return [
        rt.tx_update(
            "Account",
            {"accountId": "a"},
            {"balance": seen_a - amount},
            condition="balance = :seen AND status = 'OPEN'",
            condition_params={"seen": seen_a},
        ),
        rt.tx_update("Account", {"accountId": "b"}, {"balance": seen_b + amount}),
        rt.tx_put("Transfer", {"transferId": transfer_id, "source": "a", "target": "b", "amount": amount}),
    ]


def test_compose_returns_the_stored_item_and_key_the_table_key(bank):
    item = bank.compose("Account", _account("a"), now=NOW)
    assert item["PK"] == "ACCOUNT#a" and item["SK"] == "PROFILE"
    assert (item["GSI1PK"], item["GSI1SK"]) == ("OWNER#o1", "OPEN#basic")  # defaults feed the index key
    assert item["entityType"] == "ACCOUNT" and item["updatedAt"] == "2025-01-15T12:00:00Z"
    assert bank.key("Account", accountId="a") == {"PK": "ACCOUNT#a", "SK": "PROFILE"}
    with pytest.raises(ValidationError) as caught:
        bank.compose("Account", {"accountId": "a", "owner": "o1", "balance": -1, "colour": "red"})
    assert {(v.attribute, v.rule) for v in caught.value.violations} == {
        ("email", "required"),
        ("balance", "min"),
        ("colour", "unknown"),
    }
    with pytest.raises(PatternError, match="Account: the key needs accountId"):
        bank.key("Account", owner="o1")
    assert _count(bank) == 0  # composing writes nothing


def test_transfer_is_one_transaction_with_the_idempotency_marker(funded):
    result = funded.transact(_transfer(funded, "t1", 30, 100, 10), now=NOW)
    assert result.applied and result.plan == "1 transaction of 4 actions"  # 3 operations + marker
    assert funded.get("Account", accountId="a")["balance"] == 70
    assert funded.get("Account", accountId="b")["balance"] == 40
    assert funded.get("Transfer", transferId="t1")["amount"] == 30
    assert _raw(funded, "_tw#idem#Transfer#t1", "_tw#marker") is not None
    again = funded.transact(_transfer(funded, "t1", 30, 70, 40), now=NOW)
    assert not again.applied and again.plan == "already applied"
    assert funded.get("Account", accountId="a")["balance"] == 70


def test_cancelled_transaction_names_the_operation_and_why(funded):
    funded.update("Account", {"accountId": "a"}, {"status": "FROZEN"})
    with pytest.raises(ConditionFailedError) as caught:
        funded.transact(_transfer(funded, "t1", 30, 100, 10), now=NOW)
    error = caught.value
    assert (error.operation, error.entity, error.verb) == (0, "Account", "update")
    assert error.condition == "balance = :seen AND status = 'OPEN'"
    assert "balance=100" in str(error) and "status='FROZEN'" in str(error)
    assert "operation 0 (update Account)" in str(error)
    assert funded.get("Account", accountId="b")["balance"] == 10  # nothing of the transaction applied
    assert funded.get("Transfer", transferId="t1") is None


def test_check_guards_other_operations(funded):
    ops = [
        funded.tx_check(
            "Account", {"accountId": "a"}, "balance >= :amount", condition_params={"amount": 500}
        ),
        funded.tx_put("Transfer", {"transferId": "t9", "source": "a", "target": "b", "amount": 500}),
    ]
    with pytest.raises(ConditionFailedError, match=r"operation 0 \(check Account\).*balance=100"):
        funded.transact(ops)
    assert funded.get("Transfer", transferId="t9") is None
    ops[0] = funded.tx_check(
        "Account", {"accountId": "a"}, "balance >= :amount", condition_params={"amount": 50}
    )
    assert funded.transact(ops).applied and funded.get("Transfer", transferId="t9") is not None


def test_check_of_a_missing_item_says_it_does_not_exist(funded):
    op = funded.tx_check("Account", {"accountId": "zz"}, "balance > :n", condition_params={"n": 0})
    with pytest.raises(ConditionFailedError, match="the item does not exist"):
        funded.transact([op, funded.tx_update("Account", {"accountId": "a"}, {"note": "x"})])


def test_uniqueness_markers_are_part_of_the_transaction(funded):
    taken = funded.tx_put("Account", _account("c", email="a@x.io"))
    note = funded.tx_update("Account", {"accountId": "b"}, {"note": "hello"})
    with pytest.raises(UniquenessError, match="operation 1 .*'a@x.io' is already used") as caught:
        funded.transact([note, taken])
    assert caught.value.operation == 1 and caught.value.constraint == ("email",)
    assert "note" not in funded.get("Account", accountId="b")
    twice = [
        funded.tx_put("Account", _account("d", email="d@x.io")),
        funded.tx_put("Account", _account("e", email="d@x.io")),
    ]
    with pytest.raises(UniquenessError, match="operation 1"):
        funded.transact(twice)
    assert funded.get("Account", accountId="d") is None


def test_delete_and_email_move_in_one_transaction(funded):
    ops = [
        funded.tx_delete("Account", {"accountId": "a"}, condition="balance > :n", condition_params={"n": 0}),
        funded.tx_update("Account", {"accountId": "b"}, {"email": "c@x.io"}),
    ]
    assert (
        funded.transact(ops).plan == "1 transaction of 5 actions"
    )  # delete, release, update, claim, release
    assert funded.get("Account", accountId="a") is None
    markers = sorted(
        i["PK"]["S"]
        for i in funded.client.scan(TableName="Ledger")["Items"]
        if i["PK"]["S"].startswith("_tw#unique")
    )
    assert markers == ["_tw#unique#Account#email#c@x.io"]
    with pytest.raises(NotFoundError, match=r"operation 0 \(delete Account\)"):
        funded.transact([funded.tx_delete("Account", {"accountId": "a"})])


def test_versioned_operation_with_a_stale_version_is_a_conflict(funded):
    funded.put("Profile", {"owner": "o1", "name": "first"})
    funded.update("Profile", {"owner": "o1"}, {"name": "second"}, expected_version=1)
    stale = funded.tx_update("Profile", {"owner": "o1"}, {"name": "third"}, expected_version=1)
    with pytest.raises(
        ConflictError, match=r"operation 1 \(update Profile\).*expected version 1 but found version 2"
    ) as caught:
        funded.transact([funded.tx_update("Account", {"accountId": "a"}, {"note": "x"}), stale])
    assert caught.value.operation == 1
    check = funded.tx_check("Profile", {"owner": "o1"}, None, expected_version=1)
    with pytest.raises(ConflictError, match="expected version 1 but found version 2"):
        funded.transact([check, funded.tx_update("Account", {"accountId": "a"}, {"note": "x"})])
    assert "note" not in funded.get("Account", accountId="a")


def test_every_validation_error_of_every_operation_is_reported_first(funded):
    ops = [
        funded.tx_put("Account", {**_account("c"), "balance": -5}),
        funded.tx_update("Account", {"accountId": "a"}, {"status": "CLOSED"}),
        funded.tx_check("Account", {"accountId": "b"}, "colour = 'red'"),
    ]
    with pytest.raises(ValidationError) as caught:
        funded.transact(ops)
    assert {(v.attribute, v.rule) for v in caught.value.violations} == {
        ("[0].balance", "min"),
        ("[1].status", "enum"),
        ("[2].(condition)", "condition"),
    }
    assert funded.get("Account", accountId="c") is None


def test_two_operations_on_one_item_are_refused(funded):
    ops = [
        funded.tx_update("Account", {"accountId": "a"}, {"note": "1"}),
        funded.tx_check("Account", {"accountId": "a"}, "balance > :n", condition_params={"n": 0}),
    ]
    with pytest.raises(
        ValidationError, match="cannot include multiple operations on one item: operations 0 and 1"
    ):
        funded.transact(ops)


def test_more_than_100_actions_is_refused_before_writing(bank):
    ops = [
        bank.tx_put("Transfer", {"transferId": f"t{i}", "source": "a", "target": "b", "amount": 1})
        for i in range(51)
    ]
    # 51 transfers carry 51 idempotency markers: 102 actions.
    with pytest.raises(TransactionTooLargeError, match="51 operations needs 102 actions .* allows 100"):
        bank.transact(ops)
    assert _count(bank) == 0
    assert bank.transact(ops[:50]).plan == "1 transaction of 100 actions"


def test_more_than_4_mb_is_refused_before_writing(bank):
    big = "x" * 390_000  # under the 400 KB item limit; 11 of them are over the 4 MB request limit
    ops = [bank.tx_put("Account", _account(f"a{i}", note=big)) for i in range(11)]
    with pytest.raises(TransactionTooLargeError, match=r"11 operations is 4,2\d\d,\d\d\d bytes .* 4 MB"):
        bank.transact(ops)
    assert _count(bank) == 0
