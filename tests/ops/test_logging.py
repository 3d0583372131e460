"""Logs: JSON lines with the request id, which responses and error pages also carry; 500s with
their tracebacks; slow requests; the outcome of every import and feed run."""

from __future__ import annotations

import json
import logging
import sys
from datetime import datetime, timedelta

import pytest
from django.test import Client

from ops.logging import JsonFormatter, RequestIdFilter, logging_config, request_id_var


def test_a_json_line_has_the_time_level_logger_message_request_id_extras_and_traceback():
    token = request_id_var.set("abc123")
    try:
        try:
            raise ValueError("boom")
        except ValueError:
            record = logging.getLogger("x").makeRecord(
                "x",
                logging.ERROR,
                __file__,
                1,
                "failed %s",
                ("here",),
                exc_info=sys.exc_info(),
                extra={"event": "test", "rows": 3},
            )
        RequestIdFilter().filter(record)
        line = JsonFormatter().format(record)
    finally:
        request_id_var.reset(token)
    entry = json.loads(line)
    assert "\n" not in line
    assert entry["level"] == "ERROR"
    assert entry["logger"] == "x"
    assert entry["message"] == "failed here"
    assert entry["request_id"] == "abc123"
    assert entry["event"] == "test" and entry["rows"] == 3
    assert "ValueError: boom" in entry["exc"]
    assert datetime.fromisoformat(entry["time"]).utcoffset() == timedelta(0)


def test_production_logs_json_and_every_logger_reaches_standard_output():
    config = logging_config(fmt="json", level="INFO")
    assert config["handlers"]["stdout"]["formatter"] == "json"
    assert config["handlers"]["stdout"]["stream"] == "ext://sys.stdout"
    assert config["loggers"]["django"]["propagate"] is True


@pytest.mark.django_db
def test_every_response_names_its_request_id_and_keeps_a_proxys_one(settings):
    client = Client()
    first = client.get("/healthz")
    second = client.get("/healthz")
    assert len(first["X-Request-ID"]) == 32
    assert first["X-Request-ID"] != second["X-Request-ID"]
    # Without a proxy in front, a client's own id is not kept (before: trusted as it came).
    settings.TRUST_REQUEST_ID = False
    mine = client.get("/healthz", headers={"X-Request-ID": "lb-7f3a9c21"})
    assert mine["X-Request-ID"] != "lb-7f3a9c21"
    settings.TRUST_REQUEST_ID = True  # behind a proxy (NUM_PROXIES > 0 turns it on)
    kept = client.get("/healthz", headers={"X-Request-ID": "lb-7f3a9c21"})
    assert kept["X-Request-ID"] == "lb-7f3a9c21"
    # Markup or spaces are not an id: replaced.
    replaced = client.get("/healthz", headers={"X-Request-ID": "<script>x</script>"})
    assert replaced["X-Request-ID"] != "<script>x</script>"


@pytest.mark.django_db
def test_a_500_is_logged_with_its_traceback_and_the_page_shows_the_request_id(caplog, settings):
    from unittest import mock

    settings.TRUST_REQUEST_ID = True

    client = Client(raise_request_exception=False)
    with mock.patch("platforms.selectors.comparison_table", side_effect=RuntimeError("a bug")):
        response = client.get("/platforms/", headers={"X-Request-ID": "req-0000-1111"})
    assert response.status_code == 500
    assert response["X-Request-ID"] == "req-0000-1111"
    assert "req-0000-1111" in response.content.decode()
    errors = [r for r in caplog.records if r.name == "django.request" and r.levelname == "ERROR"]
    assert errors, caplog.text
    assert errors[0].exc_info and "a bug" in str(errors[0].exc_info[1])
    assert errors[0].request_id == "req-0000-1111"


@pytest.mark.django_db
def test_a_slow_request_is_a_warning_with_its_milliseconds(caplog, settings):
    settings.SLOW_REQUEST_MS = 0
    with caplog.at_level(logging.WARNING, logger="ops.request"):
        Client().get("/healthz")
    (record,) = [r for r in caplog.records if r.name == "ops.request"]
    assert record.event == "slow_request"
    assert record.path == "/healthz" and record.status == 200
    assert record.duration_ms >= 0


@pytest.mark.django_db
def test_an_import_logs_its_outcome(caplog, platform):
    from django.utils import timezone

    from platforms.importers import offers_import

    text = "platform,external_id,name,accelerator,gpu_count,unit,amount,currency\n"
    with caplog.at_level(logging.INFO, logger="platforms.importers"):
        offers_import(
            text=text + "testcloud,x,X,nope\n",
            fmt="native",
            filename="bad.csv",
            observed_at=timezone.now(),
        )
    (record,) = [r for r in caplog.records if r.name == "platforms.importers"]
    assert record.event == "import"
    assert record.outcome == "refused"
    assert record.levelname == "WARNING"
    assert record.file == "bad.csv" and record.errors >= 1


@pytest.mark.django_db
def test_a_feed_run_logs_its_outcome(caplog, platform):
    from feeds.models import Trigger
    from feeds.services import feed_create, run_now

    feed = feed_create(
        name="gone", url="http://127.0.0.1:9/none.csv", fmt="native", platform=platform
    )
    with caplog.at_level(logging.INFO, logger="feeds.services"):
        run_now(feed, trigger=Trigger.COMMAND)
    (record,) = [r for r in caplog.records if getattr(r, "event", "") == "feed_run"]
    assert record.feed == "gone"
    assert record.outcome == "failed"
    assert record.levelname == "WARNING"
    assert record.error_code
