"""``tablewright cost``: monthly capacity, storage and bill of a design, from its patterns and volumes.

``build(design)`` returns the whole report as a JSON-ready dict; ``estimate``/``price`` are the
two steps behind it. Prices live in one dated file, ``prices.yaml``. ``tablewright.cost.measure``
(imported only for ``--measure``) runs the patterns on the embedded engine.
"""

from .bill import Bill, price
from .estimate import Estimate, estimate
from .prices import Prices, default_prices, load_prices
from .report import build

__all__ = ["Bill", "Estimate", "Prices", "build", "default_prices", "estimate", "load_prices", "price"]
