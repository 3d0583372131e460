"""Whether a worker is still on a feed run or an import job, and handing tasks to the broker.

A worker that is killed mid-step (OOM, a deploy, a lost machine) leaves its run or job marked as
under way. While a step runs, a thread of its worker writes a heartbeat to the shared cache every
WORKER_HEARTBEAT_S seconds, kept for WORKER_LOST_AFTER_S; beat's tidy-up (every minute) marks a
step failed when it started longer ago than that and its heartbeat is gone. It decides so only when
the cache is Redis and answers (ops.cache.FallbackRedisCache): a per-process cache cannot see
another process's heartbeat, and then the longer FEED_RUN_STALE_S alone applies.

`send` hands a task to the broker; a broker that is down is logged (event `task_not_sent`), not an
error page: the caller's record stays waiting, and beat sends it again.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.core.cache import caches
from kombu.exceptions import OperationalError as KombuOperationalError

from ops.cache import FallbackRedisCache

logger = logging.getLogger(__name__)

# What sending a task raises when the broker cannot be reached.
BROKER_ERRORS: tuple[type[BaseException], ...] = (KombuOperationalError, OSError)


def send(task: Any, **kwargs: Any) -> bool:
    """`task.delay(**kwargs)`; False, logged, when the broker cannot be reached."""
    try:
        task.delay(**kwargs)
    except BROKER_ERRORS as exc:
        logger.warning(
            "task %s not sent (%s): the broker is unavailable; it will be sent again",
            task.name,
            type(exc).__name__,
            extra={"event": "task_not_sent", "task": task.name, **kwargs},
        )
        return False
    return True


@contextlib.contextmanager
def beating(key: str) -> Iterator[None]:
    """Keep `key` alive in the cache while the block runs."""
    stop = threading.Event()
    backend = caches["default"]  # this thread's: thread-safe, and its connections are reused
    every = settings.WORKER_HEARTBEAT_S
    ttl = settings.WORKER_LOST_AFTER_S

    def beat() -> None:
        with contextlib.suppress(Exception):  # a cache outage must not stop the work
            backend.set(key, time.time(), ttl)

    # The first beat before the block runs, so the work is never seen unheard at its start (a
    # thread's first beat could come after a check); then one every WORKER_HEARTBEAT_S.
    beat()

    def keep_beating() -> None:
        while not stop.wait(every):
            beat()

    thread = threading.Thread(target=keep_beating, name=f"heartbeat {key}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=2)
        with contextlib.suppress(Exception):
            backend.delete(key)


def heard(key: str) -> bool | None:
    """Whether `key`'s heartbeat is alive; None when that cannot be known here (no shared cache,
    or Redis not answering)."""
    shared = caches["default"]
    if not isinstance(shared, FallbackRedisCache) or shared.breaker.down:
        return None
    value = shared.get(key)
    if shared.breaker.down:  # the call just failed: the answer came from this process
        return None
    return value is not None
