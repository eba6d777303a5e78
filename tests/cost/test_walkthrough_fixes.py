"""Found measuring the GitHub model of "The DynamoDB Book" (`cost --measure`): users and
organizations share one key shape (`ACCOUNT#{username}`, `ACCOUNT#{org_name}`), and the invented
items gave both the same name, so the measurement stopped with "already exists"; and the design's
own `samples:` and `examples:`, which `check` runs with, were not used at all. The estimate's stream
records also left out the star's uniqueness marker, an item of the table like the star: 20 stars a
second are 40 records a second, not 20."""

from __future__ import annotations

import pytest

from tablewright.cost.estimate import SECONDS_PER_MONTH, estimate
from tablewright.cost.measure import measure
from tablewright.design import loads

ACCOUNTS = """\
tables:
  github: {partition_key: PK, sort_key: SK}
entities:
  User:
    table: github
    attributes: {username: {type: string, required: true}}
    keys: {table: {pk: "ACCOUNT#{username}", sk: "ACCOUNT#{username}"}}
  Organization:
    table: github
    attributes: {org_name: {type: string, required: true}}
    keys: {table: {pk: "ACCOUNT#{org_name}", sk: "ACCOUNT#{org_name}"}}
patterns:
  account:
    params: {username: string}
    returns: User
    means: {where: "username = :username"}
    served: {op: get}
volumes:
  entities:
    User: {items: 3, item_size: 100}
    Organization: {items: 2, item_size: 100}
"""

SAMPLES = """\
samples:
  User: [{username: alexdebrie}, {username: rauchg}]
  Organization: [{org_name: socketio}]
"""


def test_entities_keyed_alike_get_invented_items_that_do_not_collide() -> None:
    measured = measure(loads(ACCOUNTS))
    assert measured.source == "synthetic" and measured.items_written == 5


def test_the_design_samples_and_examples_are_what_is_measured() -> None:
    text = ACCOUNTS.replace(
        "    served: {op: get}\n",
        "    served: {op: get}\n    examples: [{username: alexdebrie}, {username: nobody}]\n",
    )
    measured = measure(loads(text + SAMPLES))
    assert measured.source == "samples" and measured.items_written == 3
    assert measured.runs["account"].calls == 2
    assert measured.runs["account"].items_read == 1  # alexdebrie is found, nobody is not


STARS = """\
tables:
  github: {partition_key: PK, sort_key: SK, stream: NEW_IMAGE}
entities:
  Star:
    table: github
    attributes:
      repo: {type: string, required: true}
      username: {type: string, required: true}
      email: {type: string, required: true}
    keys: {table: {pk: "REPO#{repo}", sk: "STAR#{username}"}}
    unique: [[email]]
volumes:
  entities:
    Star: {items: 1000, item_size: 100, writes: 20/s, updates: 1/s, update_changes: [email]}
"""


def test_stream_records_count_marker_puts_and_swaps() -> None:
    records = estimate(loads(STARS)).stream_records["github"]
    # creates 20 + their markers 20, updates 1 + the marker swap each makes (a delete and a put) 2
    assert records == pytest.approx((20 + 20 + 1 + 2) * SECONDS_PER_MONTH)
