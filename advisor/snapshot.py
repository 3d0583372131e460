"""Engine inputs kept between requests: the catalogue is read and turned into engine specs once per
process and catalogue version, not once per request.

Every write of catalogue data gives the catalogue a new version in its own transaction
(platforms.services.catalogue_changed; the version row lives in the database, so every gunicorn
worker sees it). A request reads that version with one primary-key query; while it is the version
the kept inputs were built at, they are reused, else they are built again. A rolled-back write
leaves the old version, and the inputs built from the database can only be as new as or newer
than the version they are kept under (the version is read first), never older.

Inputs also depend on the moment asked about: a price last seen more than PRICE_STALE_AFTER_DAYS
days before it is stale. Each kept entry carries the window of moments for which every price's
staleness is what it was at the build (`Window`); a request outside it builds again.
"""

from __future__ import annotations

import gc
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

from platforms.services import catalogue_version

T = TypeVar("T")

# Entries kept per process: a key is (kind, language, price tier, ...); the site has two languages
# and four tiers, and the list price in one language is what most requests ask.
DEFAULT_SIZE = 6


@dataclass(frozen=True)
class Window:
    """The moments an entry holds for: after `start` (exclusive) and up to `end` (inclusive);
    None is unbounded."""

    start: datetime | None = None
    end: datetime | None = None

    def holds(self, moment: datetime) -> bool:
        return (self.start is None or moment > self.start) and (
            self.end is None or moment <= self.end
        )


ALWAYS = Window()


def stale_window(last_seen: Iterable[tuple[datetime, bool]], stale_after_days: int) -> Window:
    """The moments at which each price (last seen at, stale at the build) is as stale as it was.

    A price last seen at L is stale at `now` when L < now - days (vocab.is_stale), i.e. when
    now > L + days: a stale price stays stale after L + days, a fresh one stays fresh up to it.
    """
    days = timedelta(days=stale_after_days)
    start: datetime | None = None
    end: datetime | None = None
    for seen, stale in last_seen:
        edge = seen + days
        if stale:
            start = edge if start is None or edge > start else start
        else:
            end = edge if end is None or edge < end else end
    return Window(start, end)


def settle() -> None:
    """Take what the process holds now, a value just built included, out of the garbage
    collector's generations (gc.freeze, after one collection so that no garbage is kept): kept
    inputs of a large catalogue are hundreds of thousands of long-lived objects, and every full
    collection would scan them again, in whichever request happens to trigger it. A value
    replaced later is still freed by reference counting (engine specs hold no cycles).

    What an earlier settle froze goes back into the collector's oldest generation first
    (gc.unfreeze), so that the collection sees it: what of it is cyclic garbage by now (objects
    of an older catalogue, or of the request that was running when it was built) is freed, not
    kept frozen for the life of the process. The frozen objects are always those alive at the
    latest settle; each settle's collection scans them once more (once per catalogue build)."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


@dataclass
class _Entry:
    value: Any
    window: Window


class Snapshots:
    """Values built from the catalogue, kept while the catalogue's version stays the same."""

    def __init__(
        self, size: int = DEFAULT_SIZE, version: Callable[[], str | None] = catalogue_version
    ) -> None:
        self.size = size
        self._version_of = version
        self._version: str | None = None
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()
        self._lock = threading.Lock()
        self.builds = 0  # how many times a value was built (tests and benchmarks read it)

    def get(self, key: Hashable, now: datetime, build: Callable[[], tuple[T, Window]]) -> T:
        """The value kept for `key` at this version and moment, or `build()`'s, then kept."""
        version = self._version_of()
        if version is not None:
            with self._lock:
                if version != self._version:
                    self._entries.clear()
                    self._version = version
                entry = self._entries.get(key)
                if entry is not None and entry.window.holds(now):
                    self._entries.move_to_end(key)
                    return entry.value  # type: ignore[no-any-return]
        value, window = build()
        self.builds += 1
        if version is None:
            return value  # no version row (a database emptied by hand): nothing can be kept
        with self._lock:
            if self._version == version:
                self._entries[key] = _Entry(value, window)
                self._entries.move_to_end(key)
                while len(self._entries) > self.size:
                    self._entries.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._version = None
