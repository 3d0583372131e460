"""A real outage: gunicorn with production settings, its PostgreSQL reached through a TCP proxy
that this test cuts (connections reset), freezes (connections kept open, nothing relayed: a
hung server or a dead network path) and restores.

Cut: the API answers 503 in its JSON shape with Retry-After, pages the 503 page. Frozen: a
request answers 503 within seconds (the health check of the reused connection waits
DB_CONNECT_TIMEOUT_S, a new connection as long) while static files and /healthz are still served.
Restored: the next request is served. And the throttles' counters, in Redis, are shared by the
workers. Needs PostgreSQL (the suite's database) and Redis: skipped without them, except in CI.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import redis
from django.db import connection

from .relay import Proxy

ROOT = Path(__file__).resolve().parent.parent.parent
REDIS = os.environ.get("OPS_TEST_REDIS_URL", "redis://127.0.0.1:6379/12")
KEY = "k3y-" + "x1y2z3" * 10

pytestmark = pytest.mark.django_db(transaction=True)


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} in CI; .ci/run provides it")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def redis_url() -> str:
    try:
        redis.Redis.from_url(REDIS, socket_connect_timeout=2).ping()
    except redis.exceptions.RedisError as exc:
        _unavailable(f"Redis at {REDIS} is unreachable ({exc})")
    return REDIS


@pytest.fixture(scope="module")
def static_root(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("static")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, database_url: str, redis_url: str, static: Path, **extra: str) -> None:
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {
            **{k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"},
            "DJANGO_SETTINGS_MODULE": "config.settings.prod",
            "SECRET_KEY": KEY,
            "ALLOWED_HOSTS": "127.0.0.1",
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "CELERY_BROKER_URL": redis_url,
            "TLS_AT_PROXY": "true",
            "STATIC_ROOT": str(static),
            "DB_CONNECT_TIMEOUT_S": "2",
            "LOG_REQUESTS": "false",
            "API_ANON_RATE": "100000/min",
            "PAGE_ANON_RATE": "100000/min",
            **extra,
        }
        if not (static / "staticfiles.json").exists():
            subprocess.run(
                [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
                env=env,
                cwd=ROOT,
                check=True,
            )
        self.log = static.parent / f"gunicorn-{self.port}.log"
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "config.wsgi",
                "--bind",
                f"127.0.0.1:{self.port}",
                "--workers",
                extra.get("WORKERS", "1"),
                "--timeout",
                "30",
            ],
            env=env,
            cwd=ROOT,
            stdout=self.log.open("w"),
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if self.get("/healthz")[0] == 200:
                    return
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise AssertionError(f"gunicorn did not start: {self.log.read_text()}")

    def get(self, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
        request = urllib.request.Request(self.base + path, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=40) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


@pytest.fixture
def outage(transactional_db, redis_url, static_root):
    if connection.vendor != "postgresql":
        _unavailable("the outage tests need PostgreSQL (DATABASE_URL=postgres://...)")
    config = connection.settings_dict
    proxy = Proxy(config["HOST"] or "127.0.0.1", int(config["PORT"] or 5432))
    user = config["USER"] or "postgres"
    url = f"postgres://{user}@127.0.0.1:{proxy.port}/{config['NAME']}"
    server = Server(url, redis_url, static_root)
    yield proxy, server
    server.stop()
    proxy.close()


def test_a_cut_database_gives_503s_and_the_next_request_after_it_is_served(outage):
    proxy, server = outage
    assert server.get("/api/v1/platforms/")[0] == 200
    proxy.cut()
    status, headers, body = server.get("/api/v1/platforms/")
    assert status == 503, body
    assert headers["Retry-After"] == "30"
    assert b'"code": "database_unavailable"' in body or b'"code":"database_unavailable"' in body
    status, headers, body = server.get("/", **{"Accept-Language": "en"})
    assert status == 503
    assert b"Temporarily unavailable" in body
    assert headers["X-Request-ID"].encode() in body
    assert server.get("/readyz")[0] == 503
    proxy.forward()
    assert server.get("/api/v1/platforms/")[0] == 200
    assert server.get("/")[0] == 200
    assert server.get("/readyz")[0] == 200


def test_a_frozen_database_answers_503_within_seconds_and_static_files_still_load(outage):
    """Before: requests hung 31 s until gunicorn killed the worker."""
    proxy, server = outage
    assert server.get("/api/v1/platforms/")[0] == 200  # a persistent connection is open
    proxy.freeze()
    started = time.monotonic()
    status, _headers, _body = server.get("/api/v1/platforms/")
    took = time.monotonic() - started
    assert status == 503
    # The reused connection's health check (2 s) and one new connection (2 s), with margin.
    assert took < 10, (took, server.log.read_text()[-3000:])
    started = time.monotonic()
    assert server.get("/static/css/site.css")[0] == 200
    assert server.get("/healthz")[0] == 200
    assert time.monotonic() - started < 2
    proxy.forward()
    assert server.get("/api/v1/platforms/")[0] == 200


def test_the_anonymous_rate_is_counted_once_for_all_workers(
    transactional_db, redis_url, static_root
):
    """Before: each worker counted alone (LocMemCache), so two workers allowed twice the rate."""
    if connection.vendor != "postgresql":
        _unavailable("the outage tests need PostgreSQL (DATABASE_URL=postgres://...)")
    redis.Redis.from_url(redis_url).flushdb()
    config = connection.settings_dict
    user = config["USER"] or "postgres"
    url = (
        f"postgres://{user}@{config['HOST'] or '127.0.0.1'}:{config['PORT'] or 5432}"
        f"/{config['NAME']}"
    )
    server = Server(url, redis_url, static_root, API_ANON_RATE="10/min", WORKERS="2")
    try:
        statuses = [server.get("/api/v1/platforms/")[0] for _ in range(30)]
    finally:
        server.stop()
    assert statuses.count(200) == 10, statuses
    assert statuses.count(429) == 20


def _raw(port: int, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send `request` as it is (urllib would refuse some) and read gunicorn's whole answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


def test_requests_gunicorn_refuses_are_answered_in_the_api_error_shape(outage):
    """Before: gunicorn's own HTML for a request line over 4,094 bytes (an advisor URL of 14 task
    rows) and for oversized headers. Now the API's shape (ops/gunicorn_worker.py)."""
    import json

    _proxy, server = outage
    long_line = b"GET /api/v1/offerings/?q=" + b"x" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    status, headers, body = _raw(server.port, long_line)
    assert status == 414
    assert headers["Content-Type"].startswith("application/json")
    error = json.loads(body)["error"]
    assert error["status"] == 414 and error["code"] == "uri_too_long"
    assert "POST" in error["message"] and "短链接" in error["message"]
    # gunicorn's line about it is a JSON line in UTC, under the id the answer names.
    request_id = headers["X-Request-ID"]
    lines = [json.loads(line) for line in server.log.read_text().splitlines() if line[:1] == "{"]
    [refused] = [entry for entry in lines if entry["request_id"] == request_id]
    assert refused["logger"] == "gunicorn.error" and "Invalid request" in refused["message"]
    assert refused["time"].endswith("+00:00")
    big_header = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"y" * 9000 + b"\r\n\r\n"
    status, headers, body = _raw(server.port, big_header)
    assert status in (400, 431)
    assert json.loads(body)["error"]["status"] == status
    assert server.get("/healthz")[0] == 200  # the worker still serves


@pytest.mark.parametrize("fault", ["cut", "freeze"])
def test_with_redis_stopped_or_frozen_the_api_reads_within_100_ms_and_readyz_is_degraded(
    transactional_db, redis_url, static_root, fault
):
    """Before: with Redis down every API call answered 500 (228 of 228 in 10 s); frozen, each
    waited 3-4 s for its 500, and /readyz was 503, so a load balancer pulled every instance."""
    if connection.vendor != "postgresql":
        _unavailable("the outage tests need PostgreSQL (DATABASE_URL=postgres://...)")
    config = connection.settings_dict
    user = config["USER"] or "postgres"
    database_url = (
        f"postgres://{user}@{config['HOST'] or '127.0.0.1'}:{config['PORT'] or 5432}"
        f"/{config['NAME']}"
    )
    target = redis.Redis.from_url(redis_url).connection_pool.connection_kwargs
    relay = Proxy(target["host"], int(target["port"]))
    relayed = f"redis://127.0.0.1:{relay.port}/{target.get('db', 0)}"
    server = Server(database_url, relayed, static_root)
    try:
        assert server.get("/api/v1/platforms/")[0] == 200  # Redis in use, a connection open
        getattr(relay, fault)()
        timings = []
        for path in ["/api/v1/platforms/", "/api/v1/offerings/"] * 5:
            started = time.monotonic()
            status = server.get(path)[0]
            timings.append((path, status, round(time.monotonic() - started, 3)))
        assert all(status == 200 for _path, status, _took in timings), timings
        assert all(took < 0.1 for _path, _status, took in timings), timings
        status, _headers, body = server.get("/readyz")
        assert status == 200, body
        assert b'"degraded"' in body
        assert b"127.0.0.1" not in body and str(relay.port).encode() not in body
        assert server.get("/")[0] == 200
        relay.forward()
    finally:
        server.stop()
        relay.close()
    assert "cache_unavailable" in server.log.read_text()


def test_the_liveness_port_answers_at_once_while_16_clients_wait_on_a_frozen_database(
    transactional_db, redis_url, static_root
):
    """Before: /healthz queued behind the requests waiting on the database, 16-18 s with 16
    clients, so a liveness probe would restart healthy pods. HEALTH_PORT (ops/liveness.py)."""
    if connection.vendor != "postgresql":
        _unavailable("the outage tests need PostgreSQL (DATABASE_URL=postgres://...)")
    config = connection.settings_dict
    proxy = Proxy(config["HOST"] or "127.0.0.1", int(config["PORT"] or 5432))
    user = config["USER"] or "postgres"
    url = f"postgres://{user}@127.0.0.1:{proxy.port}/{config['NAME']}"
    health_port = _free_port()
    server = Server(url, redis_url, static_root, HEALTH_PORT=str(health_port), WORKERS="2")
    try:
        assert server.get("/api/v1/platforms/")[0] == 200
        proxy.freeze()
        waiting = [
            threading.Thread(target=server.get, args=("/api/v1/platforms/",), daemon=True)
            for _ in range(16)
        ]
        for thread in waiting:
            thread.start()
        time.sleep(0.5)  # both workers are now inside requests that wait on the database
        took = []
        for _ in range(3):
            started = time.monotonic()
            with urllib.request.urlopen(
                f"http://127.0.0.1:{health_port}/healthz", timeout=10
            ) as response:
                assert response.status == 200
                assert response.read() == b'{"status": "ok"}'
            took.append(time.monotonic() - started)
        assert max(took) < 1, took
        proxy.forward()
        for thread in waiting:
            thread.join(60)
    finally:
        server.stop()
        proxy.close()
