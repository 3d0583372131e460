"""Downloading a feed from the outside world: one HTTP GET with a total time limit and a size
limit, and a body known to be whole.

A feed's URL is typed by staff, and the file it names comes from anyone who controls that server,
so every hop is checked before any connection is made: http or https only, the host resolved and
each of its addresses public (no loopback, private, link-local, shared, multicast, reserved or
unspecified address; IPv4 inside IPv6 included), a redirect checked the same way, at most
MAX_REDIRECTS of them. The connection goes to the address that was checked (a name that resolves
elsewhere a second time changes nothing). FEED_ALLOWED_HOSTS lets an operator fetch from an
internal mirror: entries are host names (`mirror.internal`), a host and port
(`127.0.0.1:8767`) or networks (`10.20.0.0/16`). Proxies from the environment are not used.

FEED_TIMEOUT_S bounds the whole download, not each read: a server sending a byte now and then is
cut off when it is spent. Failures are `FetchError`s that say whether trying again later may help
(`transient`): a timeout, a refused or dropped connection, a body shorter than its Content-Length,
HTTP 5xx, 408 and 429 may pass; any other 4xx, a body over the limit, a refused address or a bad
URL will not. No error quotes what the server sent (its reason phrase included).
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import socket
import ssl
import threading
import time
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any
from urllib.parse import urljoin, urlsplit

from django.conf import settings

from .messages import render

USER_AGENT = "gpu-platform-advisor-feeds/1"
CHUNK = 64 * 1024
TRANSIENT_STATUS = {408, 425, 429}
REDIRECTS = {301, 302, 303, 307, 308}
MAX_REDIRECTS = 5
DEFAULT_PORTS = {"http": 80, "https": 443}

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


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


# --- where a feed may be fetched from ---------------------------------------------------------


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str
    port: int
    path: str

    @property
    def netloc(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = DEFAULT_PORTS[self.scheme] == self.port
        return host if default else f"{host}:{self.port}"


def target(url: str) -> Target:
    """`url` taken apart; FetchError for anything but an http(s) URL with a host."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise FetchError("bad_url", transient=False) from None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise FetchError("scheme", transient=False)
    if not parts.hostname or parts.username or parts.password:
        raise FetchError("bad_url", transient=False)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(scheme, parts.hostname.lower(), port or DEFAULT_PORTS[scheme], path)


def public(address: Address) -> bool:
    """Whether `address` is on the public internet: Python's `is_global` follows IANA's special
    purpose registries (https://www.iana.org/assignments/iana-ipv4-special-registry,
    https://www.iana.org/assignments/iana-ipv6-special-registry)."""
    if isinstance(address, ipaddress.IPv6Address):
        mapped = address.ipv4_mapped or address.sixtofour
        if mapped is not None:
            return public(mapped)
    return address.is_global and not (
        address.is_multicast
        or address.is_loopback
        or address.is_link_local
        or address.is_private
        or address.is_reserved
        or address.is_unspecified
    )


def _allowed(entries: Iterable[str]) -> tuple[set[str], set[tuple[str, int]], list[Network]]:
    hosts: set[str] = set()
    host_ports: set[tuple[str, int]] = set()
    networks: list[Network] = []
    for raw in entries:
        entry = raw.strip().lower()
        if not entry:
            continue
        if "/" in entry:
            networks.append(ipaddress.ip_network(entry, strict=False))
            continue
        host, sep, port = entry.rpartition(":")
        if sep and port.isdigit() and not host.endswith(":"):
            host_ports.add((host.strip("[]"), int(port)))
        else:
            hosts.add(entry.strip("[]"))
    return hosts, host_ports, networks


def resolve(where: Target, allowed: Iterable[str] | None = None) -> list[tuple[int, Any]]:
    """The addresses to connect to for `where`, each checked: FetchError("address") when one is
    not public and `allowed` (FEED_ALLOWED_HOSTS by default) does not name the host (or host and
    port, or a network holding it)."""
    if allowed is None:
        allowed = getattr(settings, "FEED_ALLOWED_HOSTS", [])
    hosts, host_ports, networks = _allowed(allowed)
    named = where.host in hosts or (where.host, where.port) in host_ports
    try:
        found = socket.getaddrinfo(where.host, where.port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise FetchError("no_such_host", {"host": where.host}, transient=True) from None
    addresses: list[tuple[int, Any]] = []
    for family, _type, _proto, _name, sockaddr in found:
        address = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
        if not (named or public(address) or any(address in net for net in networks)):
            raise FetchError(
                "address", {"host": where.host, "address": str(address)}, transient=False
            )
        addresses.append((family, sockaddr))
    if not addresses:
        raise FetchError("no_such_host", {"host": where.host}, transient=True)
    return addresses


# --- the download -----------------------------------------------------------------------------


class _Deadline:
    """The download's time limit: sockets time out when it is spent, and a timer shuts the open
    socket down then, so that a read that trickles in cannot outlast it."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds
        self.expired = False
        self.sock: socket.socket | None = None
        self.lock = threading.Lock()
        self.timer = threading.Timer(max(seconds, 0.0), self._expire)
        self.timer.daemon = True
        self.timer.start()

    def left(self) -> float:
        left = self.at - time.monotonic()
        if left <= 0:
            self.expired = True
            raise TimeoutError
        return left

    def watch(self, sock: socket.socket) -> None:
        with self.lock:
            self.sock = sock

    def _expire(self) -> None:
        with self.lock:
            self.expired = True
            if self.sock is not None:
                with contextlib.suppress(OSError):
                    self.sock.shutdown(socket.SHUT_RDWR)

    def cancel(self) -> None:
        self.timer.cancel()


def _connection(where: Target, deadline: _Deadline) -> http.client.HTTPConnection:
    """A connection to `where` that connects only to its checked addresses."""
    addresses = resolve(where)

    def connect(_address: Any, timeout: Any = None, source_address: Any = None) -> socket.socket:
        error: OSError | None = None
        for family, sockaddr in addresses:
            sock = socket.socket(family, socket.SOCK_STREAM)
            try:
                sock.settimeout(deadline.left())
                deadline.watch(sock)
                sock.connect(sockaddr)
            except OSError as exc:
                sock.close()
                error = exc
                continue
            return sock
        assert error is not None
        raise error

    conn: http.client.HTTPConnection
    if where.scheme == "https":
        conn = http.client.HTTPSConnection(
            where.host, where.port, timeout=deadline.left(), context=ssl.create_default_context()
        )
    else:
        conn = http.client.HTTPConnection(where.host, where.port, timeout=deadline.left())
    conn._create_connection = connect  # type: ignore[attr-defined]
    return conn


def fetch(url: str, *, timeout: float | None = None, max_bytes: int | None = None) -> Fetched:
    """GET `url` within `timeout` seconds in all (FEED_TIMEOUT_S); raises FetchError. Redirects
    are followed, each checked; gzip bodies are unpacked."""
    timeout = settings.FEED_TIMEOUT_S if timeout is None else timeout
    max_bytes = settings.FEED_MAX_BYTES if max_bytes is None else max_bytes
    deadline = _Deadline(float(timeout))
    received = 0
    try:
        for _hop in range(MAX_REDIRECTS + 1):
            where = target(url)
            conn = _connection(where, deadline)
            try:
                conn.connect()
                deadline.watch(conn.sock)  # the TLS socket, for https
                conn.request(
                    "GET",
                    where.path,
                    headers={
                        "Host": where.netloc,
                        "User-Agent": USER_AGENT,
                        "Accept-Encoding": "gzip",
                    },
                )
                response = conn.getresponse()
                location = response.getheader("Location")
                if response.status in REDIRECTS and location:
                    url = urljoin(url, location)
                    continue
                if response.status >= 400:
                    raise FetchError(
                        "http",
                        {"status": response.status, "reason": _phrase(response.status)},
                        transient=response.status >= 500 or response.status in TRANSIENT_STATUS,
                        status=response.status,
                    )
                return _read(response, max_bytes, deadline)
            finally:
                conn.close()
        raise FetchError("redirects", {"count": MAX_REDIRECTS}, transient=False)
    except FetchError as exc:
        if deadline.expired and exc.code in ("cut_short", "cut_short_unknown", "connection"):
            raise FetchError(
                "timeout", {"seconds": timeout}, transient=True, received=exc.received
            ) from None
        raise
    except TimeoutError:
        raise FetchError("timeout", {"seconds": timeout}, transient=True) from None
    except ConnectionRefusedError:
        raise FetchError("unreachable", {"reason": "connection refused"}, transient=True) from None
    except ssl.SSLError as exc:
        raise FetchError("tls", {"error": exc.reason or "handshake"}, transient=True) from None
    except (OSError, http.client.HTTPException) as exc:
        if deadline.expired:
            raise FetchError("timeout", {"seconds": timeout}, transient=True) from None
        raise FetchError(
            "connection", {"error": type(exc).__name__}, transient=True, received=received
        ) from None
    finally:
        deadline.cancel()


def _phrase(status: int) -> str:
    """The standard reason phrase, not the server's own (its text is not ours to repeat)."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def _read(response: http.client.HTTPResponse, max_bytes: int, deadline: _Deadline) -> Fetched:
    status = response.status
    expected = response.getheader("Content-Length")
    chunks: list[bytes] = []
    received = 0
    try:
        while True:
            deadline.left()
            chunk = response.read1(CHUNK)
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
    except http.client.IncompleteRead as exc:
        raise FetchError(
            "cut_short_unknown",
            {"received": received + len(exc.partial)},
            transient=True,
            status=status,
            received=received,
        ) from None
    except TimeoutError:
        raise FetchError(
            "timeout", {"seconds": deadline.seconds}, transient=True, received=received
        ) from None
    if deadline.expired:
        raise FetchError(
            "timeout", {"seconds": deadline.seconds}, transient=True, received=received
        )
    body = b"".join(chunks)
    if expected is not None and expected.isdigit() and int(expected) != received:
        raise FetchError(
            "cut_short",
            {"received": received, "expected": int(expected)},
            transient=True,
            status=status,
            received=received,
        )
    if (response.getheader("Content-Encoding") or "").lower() == "gzip":
        body = _gunzip(body, max_bytes, status, received)
    content_type = response.getheader("Content-Type") or ""
    return Fetched(status=status, body=body, received=received, content_type=content_type)


def _gunzip(body: bytes, max_bytes: int, status: int, received: int) -> bytes:
    unpack = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        data = unpack.decompress(body, max_bytes + 1)
    except zlib.error:
        raise FetchError("gzip", transient=True, status=status, received=received) from None
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
