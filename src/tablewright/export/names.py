"""Resource names for a design's tables that stay apart after cleaning.

CloudFormation logical ids are alphanumeric and Terraform labels letters, digits and underscores, so
two logical table names that differ only in the characters dropped (``Scores`` and ``scores`` for
CloudFormation's capitalised words, ``game-scores`` and ``game_scores`` for Terraform) would clean
to one name: the template would keep one table and lose the other in silence, and Terraform would
refuse the duplicate. The second and later get a number (``Scores2Table``, ``game_scores_2``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable


def unique_names(names: Iterable[str], make: Callable[[str, int], str]) -> dict[str, str]:
    """``name -> make(name, n)`` for the smallest ``n >= 1`` that no earlier name took."""
    taken: set[str] = set()
    chosen: dict[str, str] = {}
    for name in names:
        number = 1
        while make(name, number) in taken:
            number += 1
        chosen[name] = make(name, number)
        taken.add(chosen[name])
    return chosen
