"""Tables printed by the profiling hooks."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TextIO

_TIME_UNITS = (("sec", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9))


def choose_unit(values: Iterable[float], units: tuple[tuple[str, float], ...], requested: str) -> tuple[str, float]:
    """The unit to print ``values`` in: ``requested`` if given, else the largest unit
    in which the smallest non-zero value is at least one (``'auto'``)."""
    table = dict(units)
    if requested != "auto":
        if requested not in table:
            raise ValueError(f"unit must be 'auto' or one of {list(table)}, got {requested!r}")
        return requested, table[requested]
    nonzero = [v for v in values if v > 0]
    smallest = min(nonzero) if nonzero else 0.0
    for name, scale in units:
        if smallest >= scale:
            return name, scale
    return units[-1]


def print_table(rows: list[tuple[str, ...]], header: tuple[str, ...], file: TextIO | None) -> None:
    # ``sys.stdout`` is looked up at call time so that redirections (contextlib.redirect_stdout,
    # doctest, pytest's capsys) see the table.
    file = sys.stdout if file is None else file
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    # As Chainer's reports read: the header as is, the rows right-aligned under it.
    file.write("  ".join(header) + "\n")
    for row in rows:
        file.write("  ".join(f"{cell:>{width}}" for cell, width in zip(row, widths)) + "\n")
