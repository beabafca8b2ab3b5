"""Pausing Python's cyclic garbage collector around bulk work on acyclic data.

Loading a receipt log and judging its receipts allocate a few containers
per receipt, none of them part of a cycle, and every allocation counts
towards the next collection.  A collection of the older generations visits
every object alive, so on a log of 100,000 lines the collector keeps
re-scanning the receipts already loaded, about a third of the evaluation's
time, and reclaims nothing: reference counting frees every temporary, and
the store itself when evaluation returns.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Disable the cyclic collector for the block, then restore it as it was.

    A block entered with the collector already disabled (by the caller, or an
    enclosing block) leaves it disabled.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
