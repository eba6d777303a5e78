"""The price list: one dated data file (``prices.yaml``), so a price change is one edit."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from ..design.yamlsource import YAMLFileError, read_yaml


@dataclass(frozen=True)
class Prices:
    """DynamoDB prices for one region, with the date they took effect and where they come from."""

    region: str
    effective: str
    source: str
    hours_per_month: int
    write_request_unit: float
    read_request_unit: float
    wcu_hour: float
    rcu_hour: float
    storage_gb_month: dict[str, float]
    throughput_multiplier: dict[str, float]
    stream_read_request: float
    pitr_gb_month: float
    free_tier: dict[str, float]
    # Backups, restores, exports and imports (optional in a prices file written before they were priced).
    backup_gb_month: float = 0.10
    restore_gb: float = 0.15
    export_gb: float = 0.10
    import_gb: float = 0.15

    def break_even(self) -> dict[str, float]:
        """Utilisation above which provisioned capacity is cheaper than on-demand, for writes and reads.

        One unit provisioned for an hour costs ``wcu_hour``; the same unit used every second of the
        hour on-demand costs ``3600 * write_request_unit``. Their ratio is the break-even.
        """
        return {
            "write": self.wcu_hour / (3600 * self.write_request_unit),
            "read": self.rcu_hour / (3600 * self.read_request_unit),
        }


def _price(value: Any, where: str) -> float:
    """A price or an amount: a finite number, zero or more (a negative or NaN price would print as a
    bill, wrongly)."""
    if isinstance(value, bool):
        raise ValueError(f"{where} is not a number: {value!r}")
    number = float(value)
    if not math.isfinite(number) or number < 0:
        raise ValueError(f"{where} must be a finite number, zero or more, not {value!r}")
    return number


def _section(data: dict[str, Any], name: str, required: tuple[str, ...]) -> dict[str, float]:
    section = data[name]
    if not isinstance(section, dict):
        raise ValueError(f"{name} is not a mapping")
    for key in required:
        if key not in section:
            raise KeyError(f"{name}.{key}")
    return {str(k): _price(v, f"{name}.{k}") for k, v in section.items()}


def _build(data: dict[str, Any]) -> Prices:
    on_demand = _section(data, "on_demand", ("write_request_unit", "read_request_unit"))
    provisioned = _section(data, "provisioned", ("wcu_hour", "rcu_hour"))
    if not on_demand["write_request_unit"] or not on_demand["read_request_unit"]:
        raise ValueError("on_demand request unit prices must be above zero (the break-even divides by them)")
    hours = _price(data["hours_per_month"], "hours_per_month")
    if not hours.is_integer() or not hours:
        raise ValueError(f"hours_per_month must be a whole number of hours above zero, not {hours:g}")
    return Prices(
        region=str(data["region"]),
        effective=str(data["effective"]),
        source=" ".join(str(data["source"]).split()),
        hours_per_month=int(hours),
        write_request_unit=on_demand["write_request_unit"],
        read_request_unit=on_demand["read_request_unit"],
        wcu_hour=provisioned["wcu_hour"],
        rcu_hour=provisioned["rcu_hour"],
        storage_gb_month=_section(data, "storage_gb_month", ("STANDARD",)),
        throughput_multiplier=_section(data, "throughput_multiplier", ()),
        stream_read_request=_price(data["stream_read_request"], "stream_read_request"),
        pitr_gb_month=_price(data["pitr_gb_month"], "pitr_gb_month"),
        free_tier=_section(data, "free_tier", ("storage_gb", "wcu", "rcu", "stream_read_requests")),
        **{name: _price(data[name], name) for name in _BACKUP_PRICES if name in data},
    )


_BACKUP_PRICES = ("backup_gb_month", "restore_gb", "export_gb", "import_gb")


@cache
def default_prices() -> Prices:
    """The prices shipped with tablewright (``tablewright/cost/prices.yaml``)."""
    text = resources.files(__package__).joinpath("prices.yaml").read_text(encoding="utf-8")
    return _build(yaml.safe_load(text))


class PricesError(ValueError):
    """A prices file that does not load; the message names the file and what is wrong in it."""


def load_prices(path: str | Path | None = None) -> Prices:
    """Prices from a YAML file of the same shape as the shipped one, or the shipped prices.

    Raises :class:`PricesError` for a file that is not YAML, misses a price or has one that is not a
    number (``OSError`` when it cannot be read at all).
    """
    if path is None:
        return default_prices()
    try:
        data = read_yaml(path)
    except YAMLFileError as error:
        raise PricesError(str(error)) from None
    if not isinstance(data, dict):
        raise PricesError(f"{path}: expected a mapping of prices like the shipped prices.yaml")
    try:
        return _build(data)
    except KeyError as missing:
        raise PricesError(f"{path}: missing {missing.args[0]!r} (see the shipped prices.yaml)") from None
    except (TypeError, ValueError, AttributeError, OverflowError) as error:
        raise PricesError(
            f"{path}: a price is not a number or a section is not a mapping ({error})"
        ) from None
