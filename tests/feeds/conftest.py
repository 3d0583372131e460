"""Feed fixtures: a local HTTP server (a threaded http.server on 127.0.0.1, allowed by
FEED_ALLOWED_HOSTS) that serves the recorded catalog samples of tests/importers/data, or fails on
purpose; and the platforms they list."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from feeds import services
from feeds.models import Feed
from tests.importers.conftest import (  # noqa: F401 (fixtures)
    DATA,
    accelerators,
    lambda_cloud,
    make_platform,
    run,
    sample,
)

LAMBDA = "skypilot-v8-lambda-vms.csv"
LAMBDA_ROWS = 408


@dataclass(frozen=True)
class Expected:
    """What importing the Lambda sample makes, as the accelerator table stands (a dry run)."""

    offerings: int
    skipped: int


@dataclass
class Route:
    body: bytes = b""
    status: int = 200
    content_type: str = "text/csv; charset=utf-8"
    # Wait this long before answering (a timeout).
    delay: float = 0.0
    # Send only this many bytes of the body, though Content-Length promises all of it.
    cut_at: int | None = None
    # Answer HTTP 500 to the first this many requests.
    fail_first: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    # The status line's reason phrase, when not the standard one.
    reason: str | None = None


class FeedServer:
    """Routes by path; `hits` counts requests per path."""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.hits: Counter[str] = Counter()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.hits[self.path] += 1
                route = server.routes.get(self.path)
                if route is None:
                    self.send_error(404)
                    return
                if route.delay:
                    time.sleep(route.delay)
                if server.hits[self.path] <= route.fail_first:
                    self.send_error(500, "Internal Server Error")
                    return
                self.send_response(route.status, route.reason)
                self.send_header("Content-Type", route.content_type)
                self.send_header("Content-Length", str(len(route.body)))
                for name, value in route.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                body = route.body if route.cut_at is None else route.body[: route.cut_at]
                try:
                    self.wfile.write(body)
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)
                if route.cut_at is not None:
                    self.close_connection = True

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.handle_error = lambda request, address: None  # type: ignore[method-assign]
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def serve(self, path: str, body: bytes | str = b"", **options: object) -> str:
        """Serve `body` at `path`; returns the URL."""
        data = body.encode() if isinstance(body, str) else body
        self.routes[path] = Route(body=data, **options)  # type: ignore[arg-type]
        return self.base + path

    def serve_sample(self, path: str, name: str, **options: object) -> str:
        return self.serve(path, (DATA / name).read_bytes(), **options)


@pytest.fixture
def feed_server(settings) -> Iterator[FeedServer]:
    """The server, on loopback: feeds fetch only public addresses, so it is allowed by its address
    and port (FEED_ALLOWED_HOSTS, as an operator allows an internal mirror), and nothing else on
    this machine is. Feeds run on their schedules here (FEEDS_ENABLED, off elsewhere in the
    tests)."""
    server = FeedServer()
    settings.FEEDS_ENABLED = True
    settings.FEED_ALLOWED_HOSTS = [f"127.0.0.1:{server.httpd.server_address[1]}"]
    server.thread.start()
    try:
        yield server
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()


@pytest.fixture
def lambda_sample(lambda_cloud) -> Expected:  # noqa: F811 (the fixture above)
    report = run(sample(LAMBDA), "skypilot", lambda_cloud, dry_run=True)
    assert report.ok and report.total_rows == LAMBDA_ROWS
    return Expected(offerings=report.created, skipped=report.skipped_rows)


@pytest.fixture
def fast_feeds(settings):
    """Short timeouts and no waiting between attempts (eager retries do not wait anyway)."""
    settings.FEED_TIMEOUT_S = 0.5
    settings.FEED_MAX_RETRIES = 3
    settings.FEED_RETRY_BACKOFF_S = 0
    settings.FEED_FAILURES_BEFORE_FLAG = 3
    return settings


def make_feed(
    url: str, platform=None, name: str = "lambda", fmt: str = "skypilot", **extra
) -> Feed:
    return services.feed_create(name=name, url=url, fmt=fmt, platform=platform, **extra)
