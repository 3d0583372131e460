"""A Redis cache that a Redis outage cannot turn into a site outage.

`FallbackRedisCache` is Django's RedisCache with short socket timeouts (CACHE_TIMEOUT_MS, 50 ms by
default: Redis answers a LAN client in well under a millisecond) and no retries. When a call fails
(refused, reset, timed out, any Redis error), the process stops asking Redis for
CACHE_RETRY_AFTER_S seconds and serves every cache call from a per-process memory cache instead;
the first call after that tries Redis again. So a stopped Redis costs a request nothing and a
frozen one costs one request in a few seconds, per process, CACHE_TIMEOUT_MS or so.

While Redis is away the throttles count per process (a gunicorn worker allows the whole rate on its
own), import progress is not seen across processes and cached bodies are built again: the site
degrades, it does not fail. The fallback is logged once per outage (event `cache_unavailable`),
and its end too (`cache_recovered`). `probe()` is /readyz's check: it asks Redis itself.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import redis
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache

logger = logging.getLogger(__name__)

# What a cache that is down, frozen or refusing raises (redis-py wraps socket errors in its own).
CACHE_ERRORS: tuple[type[BaseException], ...] = (redis.exceptions.RedisError, OSError)

DEFAULT_TIMEOUT_MS = 50
DEFAULT_RETRY_AFTER_S = 5.0


class _Breaker:
    """Whether Redis at one location is to be left alone, shared by the threads of a process."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.down_until = 0.0
        self.down = False

    def closed(self) -> bool:
        return time.monotonic() >= self.down_until

    def trip(self, location: str, exc: BaseException, retry_after: float) -> None:
        with self.lock:
            first = not self.down
            self.down = True
            self.down_until = time.monotonic() + retry_after
        if first:
            # The exception's type only: its text names the server's address.
            logger.warning(
                "cache unavailable (%s): using a per-process cache, Redis is tried again "
                "every %s s",
                type(exc).__name__,
                retry_after,
                extra={"event": "cache_unavailable", "error": type(exc).__name__},
            )

    def reset(self) -> None:
        with self.lock:
            was_down = self.down
            self.down = False
            self.down_until = 0.0
        if was_down:
            logger.info("cache recovered: Redis answers again", extra={"event": "cache_recovered"})


# One breaker per Redis location for the whole process: Django makes a cache object per thread.
_breakers: dict[str, _Breaker] = {}
_breakers_lock = threading.Lock()


def _breaker(location: str) -> _Breaker:
    with _breakers_lock:
        return _breakers.setdefault(location, _Breaker())


class FallbackRedisCache(RedisCache):
    """settings.CACHES backend: RedisCache, or a per-process memory cache while Redis fails.

    OPTIONS as RedisCache's, plus `retry_after` (seconds Redis is left alone after a failure);
    socket_connect_timeout and socket_timeout default to CACHE_TIMEOUT_MS."""

    def __init__(self, server: str | list[str], params: dict[str, Any]) -> None:
        options = dict(params.get("OPTIONS", {}))
        self.retry_after = float(options.pop("retry_after", DEFAULT_RETRY_AFTER_S))
        seconds = DEFAULT_TIMEOUT_MS / 1000
        options.setdefault("socket_connect_timeout", seconds)
        options.setdefault("socket_timeout", seconds)
        # One try: a retry doubles what a frozen server costs.
        options.setdefault("retry", redis.retry.Retry(redis.backoff.NoBackoff(), 0))
        super().__init__(server, {**params, "OPTIONS": options})
        self.location = server if isinstance(server, str) else ",".join(server)
        self.breaker = _breaker(self.location)
        local_params = {k: v for k, v in params.items() if k != "OPTIONS"}
        local_params["OPTIONS"] = {"MAX_ENTRIES": 10_000}
        # LocMemCache shares its storage between instances of the same name: one per process.
        self.local = LocMemCache(f"fallback:{self.location}", local_params)

    def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        if self.breaker.closed():
            try:
                result = getattr(RedisCache, name)(self, *args, **kwargs)
            except CACHE_ERRORS as exc:
                self.breaker.trip(self.location, exc, self.retry_after)
            else:
                if self.breaker.down:
                    self.breaker.reset()
                return result
        return getattr(self.local, name)(*args, **kwargs)

    def probe(self) -> str | None:
        """Redis itself, past the fallback: None when it stores and returns a value, else what
        failed (the exception's type, never the server's address)."""
        key = self.make_and_validate_key("readyz:probe")
        client = self._cache.get_client(key, write=True)
        try:
            client.set(key, b"1", ex=10)
            value = client.get(key)
            client.delete(key)
        except CACHE_ERRORS as exc:
            self.breaker.trip(self.location, exc, self.retry_after)
            return f"Redis does not answer ({type(exc).__name__}); a per-process cache is in use"
        if value != b"1":
            return "Redis did not return what was stored"
        self.breaker.reset()
        return None

    def add(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> Any:
        return self._call("add", key, value, timeout, version)

    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        return self._call("get", key, default, version)

    def set(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> Any:
        return self._call("set", key, value, timeout, version)

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> Any:
        return self._call("touch", key, timeout, version)

    def delete(self, key: Any, version: Any = None) -> Any:
        return self._call("delete", key, version)

    def get_many(self, keys: Any, version: Any = None) -> Any:
        return self._call("get_many", keys, version)

    def has_key(self, key: Any, version: Any = None) -> Any:
        return self._call("has_key", key, version)

    def incr(self, key: Any, delta: int = 1, version: Any = None) -> Any:
        return self._call("incr", key, delta, version)

    def set_many(self, data: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> Any:
        return self._call("set_many", data, timeout, version)

    def delete_many(self, keys: Any, version: Any = None) -> Any:
        return self._call("delete_many", keys, version)

    def clear(self) -> Any:
        return self._call("clear")
