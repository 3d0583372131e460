"""The answer gunicorn's worker writes for a request it refuses (ops/gunicorn_worker.py): the API's
error shape, with a message in both languages, for every status gunicorn refuses with. Through a
real gunicorn: tests/ops/test_outage.py."""

from __future__ import annotations

import json

import pytest

from ops.gunicorn_worker import ERRORS, json_error


@pytest.mark.parametrize("status", sorted(ERRORS))
def test_each_refusal_is_the_api_error_shape(status):
    head, _, body = json_error(status, "Reason").partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    assert lines[0] == f"HTTP/1.1 {status} Reason"
    headers = dict(line.split(": ", 1) for line in lines[1:])
    assert headers["Content-Type"] == "application/json; charset=utf-8"
    assert int(headers["Content-Length"]) == len(body)
    error = json.loads(body)["error"]
    assert error == {
        "status": status,
        "code": ERRORS[status][0],
        "message": ERRORS[status][1],
        "fields": {},
    }
    english, chinese = error["message"].split(" / ")
    assert english.isascii() and not chinese.isascii()


def test_gunicorn_reads_the_worker_from_the_projects_config():
    from pathlib import Path

    config: dict[str, object] = {}
    exec((Path(__file__).resolve().parents[2] / "gunicorn.conf.py").read_text(), config)
    assert config["worker_class"] == "ops.gunicorn_worker.JsonErrorWorker"


def test_a_refusal_carries_its_request_id():
    head, _, _ = json_error(414, "URI Too Long", "3f2a9c0d4b").partition(b"\r\n\r\n")
    assert b"\r\nX-Request-ID: 3f2a9c0d4b" in head
    head, _, _ = json_error(414, "URI Too Long").partition(b"\r\n\r\n")
    assert b"X-Request-ID" not in head


def _config():
    from pathlib import Path

    config: dict[str, object] = {}
    exec((Path(__file__).resolve().parents[2] / "gunicorn.conf.py").read_text(), config)
    return config


def test_gunicorns_lines_go_through_the_applications_format_once(monkeypatch):
    """gunicorn's loggers write nothing themselves and propagate to the root, whose handler is
    the application's (its format, its request id filter): one line each, in one format."""
    monkeypatch.setenv("DJANGO_SETTINGS_MODULE", "config.settings.prod")
    monkeypatch.delenv("LOG_FORMAT", raising=False)
    logconfig = _config()["logconfig_dict"]
    assert logconfig["loggers"]["gunicorn.error"] == {
        "handlers": [],
        "level": "INFO",
        "propagate": True,
    }
    assert logconfig["root"]["handlers"] == ["stdout"]
    handler = logconfig["handlers"]["stdout"]
    assert handler["formatter"] == "json" and handler["filters"] == ["request_id"]
    monkeypatch.setenv("DJANGO_SETTINGS_MODULE", "config.settings.dev")
    assert _config()["logconfig_dict"]["handlers"]["stdout"]["formatter"] == "text"


def test_the_text_format_writes_utc_like_the_json_lines():
    import logging

    from ops.logging import UtcTextFormatter

    record = logging.LogRecord("gunicorn.error", logging.WARNING, "", 0, "refused", None, None)
    record.created = 1796684465.25  # 2026-12-07T23:01:05.250Z
    record.msecs = 250
    assert UtcTextFormatter("%(asctime)s %(message)s").format(record) == (
        "2026-12-07T23:01:05.250Z refused"
    )


def test_a_worker_killed_for_its_timeout_logs_the_request_it_served(caplog):
    """gunicorn's master only says "WORKER TIMEOUT (pid:N)"; the worker's abort hook says which
    request it was serving, under that request's id."""
    import json

    from ops.logging import JsonFormatter, request_id_var, request_line_var

    config = _config()
    id_token = request_id_var.set("0123456789abcdef")
    line_token = request_line_var.set("GET /advisor/")
    try:
        with caplog.at_level("ERROR", logger="gunicorn.error"):
            config["worker_abort"](object())
        [record] = caplog.records
        entry = json.loads(JsonFormatter().format(record))
    finally:
        request_id_var.reset(id_token)
        request_line_var.reset(line_token)
    assert entry["message"] == "worker timed out serving GET /advisor/"
    assert entry["request_id"] == "0123456789abcdef"
    assert entry["event"] == "worker_timeout"
