"""Views: named ways to look at what an access pattern returns (``tablewright explore`` renders them).

A view names a pattern, the parameters it is run with, and how its items are laid out: a ``table``
of columns, a ``timeline`` (items on a time axis, entity types interleaved), a ``board`` (columns
by an attribute's value), a ``calendar`` week, or a ``count`` by an attribute. Views are data: the
design says what a person looking at the system needs to see, the explorer decides how to draw it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

VIEW_KINDS = ("table", "timeline", "board", "calendar", "count")
# What each kind cannot be drawn without (checked when the design loads).
REQUIRED_FIELDS = {
    "timeline": ("time",),
    "calendar": ("time",),
    "board": ("group_by",),
    "count": ("group_by",),
}


@dataclass
class View:
    """A named view over one access pattern.

    ``params`` are fixed or default parameter values (the page lets a person change them);
    ``time`` lists the attributes that place an item in time, the first one an item has wins (so an
    agenda can place events by ``startUtc`` and tasks by ``dueUtc``); ``label`` titles an item;
    ``group_by`` and ``groups`` give a board its columns (in that order, values not listed after
    them) and a count its rows; ``columns`` are a table's attributes (all, when empty).
    """

    name: str
    kind: str
    pattern: str
    title: str | None = None
    description: str | None = None
    params: dict[str, object] = field(default_factory=dict)
    columns: tuple[str, ...] = ()
    time: tuple[str, ...] = ()
    label: str | None = None
    group_by: str | None = None
    groups: tuple[str, ...] = ()
    timezone: str | None = None

    @property
    def heading(self) -> str:
        """The title shown for the view: ``title`` or the name made readable."""
        return self.title or self.name.replace("_", " ").capitalize()

    def time_of(self, item: dict) -> object:
        """The first of the ``time`` attributes the item has (None when it has none)."""
        for attribute in self.time:
            if item.get(attribute) is not None:
                return item[attribute]
        return None
