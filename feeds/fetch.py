"""Downloading a feed: one HTTP GET with a timeout and a size limit, and a body known to be whole.

Failures are `FetchError`s that say whether trying again later may help (`transient`): a timeout,
a refused or dropped connection, a body shorter than its Content-Length, HTTP 5xx, 408 and 429 may
pass; any other 4xx, a body over the limit or a bad URL will not.
"""

from __future__ import annotations

import http.client
import socket
import urllib.error
import urllib.request
import zlib
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from .messages import render

USER_AGENT = "gpu-platform-advisor-feeds/1"
CHUNK = 64 * 1024
TRANSIENT_STATUS = {408, 425, 429}


@dataclass
class Fetched:
    status: int
    body: bytes
    # Bytes received on the wire (compressed, when the server compressed them).
    received: int
    content_type: str


class FetchError(Exception):
    """`code` and `params` name the problem (feeds.messages words it)."""

    def __init__(
        self,
        code: str,
        params: dict[str, Any] | None = None,
        *,
        transient: bool,
        status: int | None = None,
        received: int = 0,
    ) -> None:
        self.code, self.params = code, params or {}
        super().__init__(render(code, self.params))
        self.transient = transient
        self.status = status
        self.received = received


def fetch(url: str, *, timeout: float | None = None, max_bytes: int | None = None) -> Fetched:
    """GET `url`; raises FetchError. Redirects are followed; gzip bodies are unpacked."""
    timeout = settings.FEED_TIMEOUT_S if timeout is None else timeout
    max_bytes = settings.FEED_MAX_BYTES if max_bytes is None else max_bytes
    if not url.lower().startswith(("http://", "https://")):
        raise FetchError("scheme", transient=False)
    request = urllib.request.Request(
        url, headers={"User-Agent": USER_AGENT, "Accept-Encoding": "gzip"}
    )
    received = 0
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status = response.status
            expected = response.headers.get("Content-Length")
            chunks: list[bytes] = []
            while True:
                chunk = response.read(CHUNK)
                if not chunk:
                    break
                received += len(chunk)
                if received > max_bytes:
                    raise FetchError(
                        "too_large",
                        {"limit": max_bytes},
                        transient=False,
                        status=status,
                        received=received,
                    )
                chunks.append(chunk)
            body = b"".join(chunks)
            if expected is not None and expected.isdigit() and int(expected) != received:
                raise FetchError(
                    "cut_short",
                    {"received": received, "expected": int(expected)},
                    transient=True,
                    status=status,
                    received=received,
                )
            if response.headers.get("Content-Encoding", "").lower() == "gzip":
                body = _gunzip(body, max_bytes, status, received)
            content_type = response.headers.get("Content-Type", "")
    except FetchError:
        raise
    except urllib.error.HTTPError as exc:
        exc.close()
        raise FetchError(
            "http",
            {"status": exc.code, "reason": str(exc.reason)},
            transient=exc.code >= 500 or exc.code in TRANSIENT_STATUS,
            status=exc.code,
        ) from None
    except http.client.IncompleteRead as exc:
        raise FetchError(
            "cut_short_unknown",
            {"received": received + len(exc.partial)},
            transient=True,
            received=received,
        ) from None
    except TimeoutError:
        raise FetchError(
            "timeout",
            {"seconds": timeout},
            transient=True,
            received=received,
        ) from None
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, TimeoutError | socket.timeout):
            raise FetchError("timeout", {"seconds": timeout}, transient=True) from None
        raise FetchError("unreachable", {"reason": str(reason)}, transient=True) from None
    except (OSError, http.client.HTTPException) as exc:
        raise FetchError(
            "connection",
            {"error": str(exc) or type(exc).__name__},
            transient=True,
            received=received,
        ) from None
    return Fetched(status=status, body=body, received=received, content_type=content_type)


def _gunzip(body: bytes, max_bytes: int, status: int, received: int) -> bytes:
    unpack = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        data = unpack.decompress(body, max_bytes + 1)
    except zlib.error as exc:
        raise FetchError(
            "gzip",
            {"error": str(exc)},
            transient=True,
            status=status,
            received=received,
        ) from None
    if len(data) > max_bytes:
        raise FetchError(
            "too_large",
            {"limit": max_bytes},
            transient=False,
            status=status,
            received=received,
        )
    if not unpack.eof:
        raise FetchError("gzip_cut", transient=True, status=status, received=received)
    return data
