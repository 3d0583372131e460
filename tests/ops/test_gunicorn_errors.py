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
