"""The garbage collector's thresholds in a web worker (config/wsgi.py).

Python collects its youngest generation after every 700 net new container objects, and every
tenth collection the next one. An advice for a scenario not asked before builds, and keeps with
the catalogue, tens of thousands of objects (placements, fits, rankings: advisor/engine/prune.py),
so at 700 the collector ran some 50 times a request and scanned what the request keeps again and
again, older generations included: 34-44 ms of a 190-224 ms answer at 10,000 offerings
(bench/README.md). Collected after `threshold` new objects, what a request keeps is scanned
about once, some 10 ms; the pauses are as rare as they are longer (a collection of 100,000 young
objects takes some 100 ms on the development machine, once in three or four such requests, where
Python's thresholds gave a full collection of every object not frozen as often). Garbage without
cycles is freed by reference counting whatever the thresholds; cyclic garbage waits longer.
"""

from __future__ import annotations

import gc

# The youngest generation's threshold a web worker takes unless GC_GEN0_THRESHOLD says otherwise.
DEFAULT_THRESHOLD = 100_000


def set_threshold(threshold: int) -> None:
    """The youngest generation collected after `threshold` new objects, the older ones as Python
    sets them (every tenth collection of the one before); 0 leaves Python's thresholds."""
    if threshold <= 0:
        return
    _young, middle, old = gc.get_threshold()
    gc.set_threshold(threshold, middle, old)
