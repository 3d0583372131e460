"""A watch's webhook: one POST of a JSON body, signed, to a URL checked as the feeds check theirs.

The body is signed with HMAC-SHA256 (RFC 2104) keyed by the watch's secret; the signature is sent
in the `X-Advisor-Signature` header as `sha256=` and the hexadecimal digest of the body's exact
bytes. A receiver recomputes it over the raw body and compares in constant time (README.md,
"Watches").

The URL is someone's, not staff's: it is checked as feeds/fetch.py checks a feed's (http or https,
every address the host resolves to public), with WATCH_WEBHOOK_ALLOWED_HOSTS for exceptions
(empty by default, and apart from FEED_ALLOWED_HOSTS: a mirror staff may fetch from is no place
for anyone's webhook). The connection goes to the address that was checked; redirects are not
followed; the answer is read up to a few KB and a 2xx is success.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import socket
import ssl
import time

from django.conf import settings

from feeds.fetch import FetchError, resolve, target

SIGNATURE_HEADER = "X-Advisor-Signature"
WATCH_HEADER = "X-Advisor-Watch"
USER_AGENT = "gpu-platform-advisor-watches/1"
READ_BYTES = 4096


def signature(secret: str, body: bytes) -> str:
    """The header's value: `sha256=` and the HMAC-SHA256 of `body` keyed by `secret`."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def verify(secret: str, body: bytes, header: str) -> bool:
    """What a receiver does: recompute the signature and compare in constant time."""
    return hmac.compare_digest(signature(secret, body), header)


def check_url(url: str) -> None:
    """Raise FetchError (its text says why) unless `url` may receive a webhook."""
    resolve(target(url), settings.WATCH_WEBHOOK_ALLOWED_HOSTS)


class WebhookError(Exception):
    pass


def _socket(url: str, deadline: float) -> tuple[http.client.HTTPConnection, str, str]:
    where = target(url)
    addresses = resolve(where, settings.WATCH_WEBHOOK_ALLOWED_HOSTS)
    error: OSError | None = None
    for family, sockaddr in addresses:
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.settimeout(max(0.1, deadline - time.monotonic()))
            sock.connect(sockaddr)
        except OSError as exc:
            sock.close()
            error = exc
            continue
        timeout = max(0.1, deadline - time.monotonic())
        conn: http.client.HTTPConnection
        if where.scheme == "https":
            context = ssl.create_default_context()
            conn = http.client.HTTPSConnection(where.host, where.port, timeout=timeout)
            conn.sock = context.wrap_socket(sock, server_hostname=where.host)
        else:
            conn = http.client.HTTPConnection(where.host, where.port, timeout=timeout)
            conn.sock = sock
        return conn, where.netloc, where.path
    raise WebhookError(f"could not connect: {type(error).__name__}")


def deliver(url: str, body: bytes, *, secret: str, watch_id: int) -> int:
    """POST `body` to `url`, signed; the HTTP status, or WebhookError (a refused address, a
    failed connection, a timeout, an answer other than 2xx)."""
    deadline = time.monotonic() + settings.WATCH_WEBHOOK_TIMEOUT_S
    try:
        conn, netloc, path = _socket(url, deadline)
        try:
            conn.request(
                "POST",
                path,
                body=body,
                headers={
                    "Host": netloc,
                    "User-Agent": USER_AGENT,
                    "Content-Type": "application/json; charset=utf-8",
                    SIGNATURE_HEADER: signature(secret, body),
                    WATCH_HEADER: str(watch_id),
                },
            )
            response = conn.getresponse()
            response.read(READ_BYTES)
        finally:
            conn.close()
    except FetchError as exc:
        raise WebhookError(str(exc)) from None
    except (OSError, http.client.HTTPException) as exc:
        raise WebhookError(f"could not deliver: {type(exc).__name__}") from None
    if not 200 <= response.status < 300:
        raise WebhookError(f"HTTP {response.status}")
    return response.status
