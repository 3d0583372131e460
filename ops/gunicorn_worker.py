"""gunicorn's own error answers in the API's error shape.

A request gunicorn refuses before Django sees it (a request line over `limit_request_line`, 4,094
bytes by default: 414; headers over their limits: 431; a malformed request: 400) is answered by
gunicorn itself, as HTML. `JsonErrorWorker` answers it as every other error of the product is:

    {"error": {"status": 414, "code": "uri_too_long", "message": "...", "fields": {}}}

The request is refused before its headers are read, so neither its path nor its language is
known: the answer is the same for pages and the API, its message in English and Chinese. A
scenario too long for a URL is posted instead (README, "The advisor page": the form posts it,
and /s/<key>/ keeps it under a short link). gunicorn.conf.py (read by gunicorn from the
project's root) names this worker.
"""

from __future__ import annotations

import json
import socket
import uuid

from gunicorn import util
from gunicorn.workers.sync import SyncWorker

from .logging import request_id_var

# Status -> (code, message), the message in English and Chinese (the request's language is unknown).
ERRORS = {
    400: ("bad_request", "The request could not be read. / 无法读取该请求。"),
    403: ("forbidden", "The request is forbidden. / 该请求被拒绝。"),
    414: (
        "uri_too_long",
        "The address is too long: send the scenario by POST, or save it for a short link. / "
        "地址过长：请用 POST 提交场景，或保存后使用短链接。",
    ),
    417: ("expectation_failed", "The Expect header cannot be met. / 无法满足 Expect 请求头。"),
    431: (
        "headers_too_large",
        "The request's headers are too large. / 请求头过大。",
    ),
    500: ("server_error", "Something went wrong on our side. / 服务器内部错误。"),
    501: ("not_implemented", "The transfer coding is not supported. / 不支持该传输编码。"),
}


def json_error(status: int, reason: str, request_id: str = "") -> bytes:
    """The whole HTTP answer for a refused request: status line, headers (its X-Request-ID, the
    id gunicorn's log line about it carries) and JSON body."""
    code, message = ERRORS.get(status, ("bad_request", ERRORS[400][1]))
    body = json.dumps(
        {"error": {"status": status, "code": code, "message": message, "fields": {}}},
        ensure_ascii=False,
    ).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\n"
        "Connection: close\r\n"
        "Content-Type: application/json; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\n"
        + (f"X-Request-ID: {request_id}\r\n" if request_id else "")
        + "\r\n"
    )
    return head.encode("latin-1") + body


def write_json_error(sock: socket.socket, status_int: int, reason: str, mesg: str) -> None:
    """util.write_error's replacement: gunicorn's detail (`mesg`, which may echo the request) is
    logged by gunicorn, not sent back."""
    request_id = request_id_var.get()
    util.write_nonblock(
        sock, json_error(status_int, reason, "" if request_id == "-" else request_id)
    )


class JsonErrorWorker(SyncWorker):  # type: ignore[misc]
    """gunicorn's sync worker, answering the requests it refuses in the API's error shape."""

    def handle_error(self, req, client, addr, exc):  # type: ignore[no-untyped-def]
        # Worker.handle_error writes its answer through gunicorn.util.write_error. A request
        # refused before Django saw it gets an id of its own (one Django was serving keeps its
        # own): gunicorn's line about it ("Invalid request from ...") and the answer's
        # X-Request-ID carry it.
        util.write_error = write_json_error
        current = request_id_var.get()
        token = request_id_var.set(uuid.uuid4().hex if current == "-" else current)
        try:
            super().handle_error(req, client, addr, exc)
        finally:
            request_id_var.reset(token)
