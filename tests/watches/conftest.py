"""Watch fixtures: a local webhook receiver (a threaded http.server on 127.0.0.1, allowed by
WATCH_WEBHOOK_ALLOWED_HOSTS as the feed tests allow theirs by FEED_ALLOWED_HOSTS), the seed
catalogue at a fixed date, and a saved scenario of the seed article with its #1 and #2."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import time_machine
from django.contrib.auth.models import User
from django.core.cache import cache

from advisor.presets import PRESETS
from advisor.services import advise_scenario
from advisor.sharing import saved_scenario_get
from tests.conftest import NOW


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class HookServer:
    """Records each POST; answers `status`."""

    received: list[Received] = field(default_factory=list)
    status: int = 204

    def __post_init__(self) -> None:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                server.received.append(Received(self.path, dict(self.headers.items()), body))
                self.send_response(server.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/hook"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)


@pytest.fixture
def hook_server(settings) -> Iterator[HookServer]:
    """The receiver, on loopback: webhooks go to public addresses only, so it is allowed by its
    address and port, and nothing else on this machine is."""
    server = HookServer()
    settings.WATCH_WEBHOOK_ALLOWED_HOSTS = [f"127.0.0.1:{server.port}"]
    server.thread.start()
    try:
        yield server
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()


@pytest.fixture(autouse=True)
def _fresh_counters():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def frozen():
    """The clock at tests.conftest.NOW (the seed's prices are older); `.shift()` moves it."""
    with time_machine.travel(NOW, tick=False) as traveller:
        yield traveller


@pytest.fixture
def seed(db):
    from platforms.seed import load_seed

    load_seed()


@pytest.fixture
def renter(db) -> User:
    return User.objects.create_user("renter", email="renter@example.com", password="pw-renter-1")


@dataclass(frozen=True)
class Answer:
    saved: object
    first: object  # the #1 recommendation
    second: object  # the first recommendation of another offering on one leg


@pytest.fixture
def dev_scenario(seed, frozen) -> Answer:
    """The seed article's "dev experiments" scenario saved as a short link, and its answer."""
    preset = PRESETS["dev-experiments"]
    saved = saved_scenario_get(scenario=preset.translated_scenario(), preset=preset.slug)
    recommendations = advise_scenario(saved.scenario).advice.recommendations
    first = recommendations[0]
    second = next(
        r for r in recommendations[1:] if not r.legs and r.offering_id != first.offering_id
    )
    return Answer(saved, first, second)
