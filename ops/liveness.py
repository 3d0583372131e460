"""A liveness probe that never waits behind requests: HEALTH_PORT.

A gunicorn sync worker serves one request at a time, so while the database is frozen and clients
wait on it, /healthz on the site's port waits in the queue too (16-18 s with 16 clients), and a
liveness probe would restart healthy pods. With HEALTH_PORT set, each worker also answers
`GET /healthz` on that port from a thread of its own (gunicorn.conf.py starts it once the worker
is up); the workers share the port (SO_REUSEPORT), and the thread needs neither Django nor the
database, so it answers while the worker's request waits on a socket. Point the liveness probe at
it; the readiness probe stays /readyz on the site's port.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

BODY = json.dumps({"status": "ok"}).encode()


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path.split("?", 1)[0].rstrip("/") != "/healthz":
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, format: str, *args: object) -> None:
        pass


class _Server(HTTPServer):
    allow_reuse_address = True
    allow_reuse_port = True  # every worker of the pod listens; the kernel spreads the probes


def serve(host: str, port: int) -> HTTPServer:
    """Answer /healthz on `host`:`port` from a daemon thread of this process."""
    server = _Server((host, port), _Handler)
    threading.Thread(target=server.serve_forever, name="liveness", daemon=True).start()
    return server
