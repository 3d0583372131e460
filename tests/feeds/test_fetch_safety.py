"""Feeds fetch only from the outside world (feeds/fetch.py): loopback, private, link-local and other
non-public addresses are refused before any connection, redirects to them too, and only http and
https; FEED_ALLOWED_HOSTS lets an internal mirror in; the time limit covers the whole download;
what the server sent never appears in a run's error, its problems or the log."""

from __future__ import annotations

import ipaddress
import logging
import socket
import threading
import time

import pytest

from feeds import fetch as fetch_module
from feeds.fetch import FetchError, fetch
from feeds.models import FeedRun
from feeds.tasks import run_feed

from .conftest import LAMBDA, make_feed

SECRET = "INTERNAL_ADMIN_TOKEN=s3cr3t-t0ken,db_password=hunter2"

pytestmark = pytest.mark.usefixtures("fast_feeds")


@pytest.fixture
def connections(monkeypatch):
    """Every socket connection this process attempts, by address."""
    attempted: list[object] = []
    original = socket.socket.connect

    def connect(sock, address):
        attempted.append(address)
        return original(sock, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    return attempted


@pytest.fixture
def listener():
    """A server on loopback that must never be reached: it counts the connections it accepts."""
    server = socket.create_server(("127.0.0.1", 0))
    server.setblocking(False)
    yield server
    server.close()


def _accepted(server: socket.socket) -> bool:
    try:
        conn, _ = server.accept()
    except BlockingIOError:
        return False
    conn.close()
    return True


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://10.0.0.1/catalog.csv",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://0.0.0.0/",
        "http://192.168.1.1/",
        "http://100.64.0.1/",
        "http://224.0.0.1/",
        "https://localhost/",
    ],
)
def test_an_address_inside_is_refused_before_any_connection(url, connections):
    """Before: only the scheme was checked; 169.254.169.254 and 127.0.0.1 were fetched."""
    started = time.monotonic()
    with pytest.raises(FetchError) as error:
        fetch(url)
    assert error.value.code == "address" and error.value.transient is False
    assert "FEED_ALLOWED_HOSTS" in str(error.value)
    assert connections == []
    assert time.monotonic() - started < 1


def test_a_loopback_port_is_refused_unless_allowed(listener, settings):
    port = listener.getsockname()[1]
    with pytest.raises(FetchError, match="not on the public internet"):
        fetch(f"http://127.0.0.1:{port}/")
    assert not _accepted(listener)
    settings.FEED_ALLOWED_HOSTS = ["127.0.0.1:1"]  # another port of the same host
    with pytest.raises(FetchError, match="not on the public internet"):
        fetch(f"http://127.0.0.1:{port}/")
    assert not _accepted(listener)


@pytest.mark.parametrize(
    "target",
    ["http://127.0.0.1:{port}/", "http://10.0.0.1/", "http://169.254.169.254/latest/meta-data/"],
)
def test_a_redirect_inside_is_refused_before_any_connection(
    feed_server, listener, connections, target
):
    """Before: redirects were followed to Postgres, Redis and the app's own /readyz."""
    location = target.format(port=listener.getsockname()[1])
    url = feed_server.serve("/moved.csv", status=302, headers={"Location": location})
    with pytest.raises(FetchError) as error:
        fetch(url)
    assert error.value.code == "address"
    assert not _accepted(listener)
    # The allowed server alone was reached.
    assert {address[1] for address in connections} == {feed_server.httpd.server_address[1]}


def test_a_redirect_to_another_scheme_is_refused(feed_server, connections):
    """Before: a redirect to ftp:// was followed (a 60 s hang)."""
    url = feed_server.serve("/moved.csv", status=301, headers={"Location": "ftp://10.0.0.1/x"})
    with pytest.raises(FetchError) as error:
        fetch(url)
    assert error.value.code == "scheme"
    assert len(connections) == 1


def test_a_redirect_to_an_allowed_place_is_followed(feed_server):
    feed_server.serve("/new.csv", "a,b\n1,2\n")
    url = feed_server.serve("/old.csv", status=307, headers={"Location": "/new.csv"})
    fetched = fetch(url)
    assert (fetched.status, fetched.body) == (200, b"a,b\n1,2\n")


def test_an_endless_redirect_stops(feed_server):
    url = feed_server.serve("/loop.csv", status=302, headers={"Location": "/loop.csv"})
    with pytest.raises(FetchError) as error:
        fetch(url)
    assert error.value.code == "redirects"
    assert feed_server.hits["/loop.csv"] == fetch_module.MAX_REDIRECTS + 1


def test_the_allow_list_takes_hosts_and_networks(monkeypatch, settings):
    def resolve_to(address):
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        return lambda *args, **kwargs: [(family, socket.SOCK_STREAM, 6, "", (address, 80))]

    where = fetch_module.target("http://mirror.internal/catalog.csv")
    monkeypatch.setattr(socket, "getaddrinfo", resolve_to("10.20.3.4"))
    with pytest.raises(FetchError, match=r"mirror\.internal is at 10\.20\.3\.4"):
        fetch_module.resolve(where)
    settings.FEED_ALLOWED_HOSTS = ["mirror.internal"]
    assert fetch_module.resolve(where) == [(socket.AF_INET, ("10.20.3.4", 80))]
    settings.FEED_ALLOWED_HOSTS = ["10.20.0.0/16"]
    assert len(fetch_module.resolve(where)) == 1
    settings.FEED_ALLOWED_HOSTS = ["10.21.0.0/16"]
    with pytest.raises(FetchError):
        fetch_module.resolve(where)
    # A public name is fetched as it is.
    monkeypatch.setattr(socket, "getaddrinfo", resolve_to("93.184.215.14"))
    assert len(fetch_module.resolve(fetch_module.target("https://example.com/x"))) == 1


def test_public_addresses_are_the_global_ones():
    assert fetch_module.public(ipaddress.ip_address("93.184.215.14"))
    assert fetch_module.public(ipaddress.ip_address("2606:2800:21f:cb07:6820:80da:af6b:8b2c"))
    for inside in [
        "127.0.0.2",
        "10.1.1.1",
        "172.16.0.1",
        "169.254.1.1",
        "fe80::1",
        "fc00::1",
        "::ffff:10.0.0.1",
        "2002:7f00:1::",
        "240.0.0.1",
        "255.255.255.255",
        "::",
    ]:
        assert not fetch_module.public(ipaddress.ip_address(inside)), inside


def test_a_bad_url_is_refused(settings):
    for url in ["ftp://example.com/x", "file:///etc/passwd", "http://", "http://u:p@example.com/"]:
        with pytest.raises(FetchError) as error:
            fetch(url)
        assert error.value.code in ("scheme", "bad_url"), url


def test_the_time_limit_covers_the_whole_download(feed_server, settings):
    """Before: the limit was per read, so a byte every 25 s held a run 202 s."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Trickle(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            try:
                for _ in range(1000):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(0.05)
            except OSError:
                pass

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Trickle)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    port = httpd.server_address[1]
    settings.FEED_ALLOWED_HOSTS = [f"127.0.0.1:{port}"]
    try:
        started = time.monotonic()
        with pytest.raises(FetchError) as error:
            fetch(f"http://127.0.0.1:{port}/", timeout=0.5)
        took = time.monotonic() - started
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert error.value.code == "timeout" and error.value.transient
    assert 0.4 < took < 1.5, took


@pytest.mark.django_db
def test_what_the_server_sent_never_appears_in_an_error(feed_server, lambda_cloud, caplog):
    """Before: a loopback URL answering INTERNAL_ADMIN_TOKEN=... put it in the run's error, the
    admin, `feeds list` and the logs."""
    url = feed_server.serve("/secret.csv", SECRET + "\n1,2\n")
    feed = make_feed(url, lambda_cloud, fmt="native")
    with caplog.at_level(logging.INFO):
        run_feed.delay(feed_id=feed.pk, trigger="admin")
    run = FeedRun.objects.get(feed=feed)
    assert (run.status, run.error_code) == ("failed", "rows")
    shown = [run.error_text, *run.problems, *run.summary, str(run.attempt_log)]
    for secret in ("s3cr3t", "hunter2", "INTERNAL_ADMIN_TOKEN"):
        assert not any(secret in text for text in shown), shown
        assert secret not in caplog.text
    assert run.problems == ["line 1: unknown columns"]


@pytest.mark.django_db
def test_a_server_s_own_reason_phrase_is_not_repeated(feed_server, lambda_cloud):
    from tests.feeds.conftest import Route

    feed_server.routes["/gone.csv"] = Route(status=410, reason=SECRET)
    feed = make_feed(feed_server.base + "/gone.csv", lambda_cloud)
    run_feed.delay(feed_id=feed.pk, trigger="admin")
    run = FeedRun.objects.get(feed=feed)
    assert run.error_text == "HTTP 410 Gone"


@pytest.mark.django_db
def test_a_json_syntax_error_gives_its_line_and_column(feed_server, lambda_cloud):
    url = feed_server.serve("/feed.json", '{"offers": [\n  ' + SECRET + "\n]}\n")
    feed = make_feed(url, lambda_cloud, fmt="json")
    run_feed.delay(feed_id=feed.pk, trigger="admin")
    run = FeedRun.objects.get(feed=feed)
    assert run.problems == ["not a JSON document: line 2 column 3"]
    assert "s3cr3t" not in run.error_text


def test_the_lambda_sample_is_still_fetched_whole(feed_server):
    url = feed_server.serve_sample("/vms.csv", LAMBDA)
    fetched = fetch(url)
    assert fetched.status == 200 and fetched.body.startswith(b"InstanceType")
