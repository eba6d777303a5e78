"""Option types shared by commands."""

from __future__ import annotations

import math
from typing import Any

import click


class SampleScale(click.FloatRange):
    """The sample data multiplier: above zero and at most 100 (click's range lets NaN through, as
    every comparison with it is false)."""

    name = "scale"

    def __init__(self) -> None:
        super().__init__(min=0, min_open=True, max=100)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if math.isnan(number):
            self.fail(f"{value!r} is not a number", param, ctx)
        return number


SCALE = SampleScale()
