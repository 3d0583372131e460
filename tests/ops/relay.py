"""A TCP relay that tests put between the app and a server (PostgreSQL, Redis) to cut, freeze and
restore the connection: a real outage without stopping the shared server."""

from __future__ import annotations

import contextlib
import select
import socket
import threading
import time


class Proxy:
    """A TCP relay to a server: `forward`, `cut` (reset every connection, new ones too) or
    `freeze` (accept and hold connections, relay nothing)."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.mode = "forward"
        self.sockets: list[socket.socket] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.mode == "cut":
                client.close()
                continue
            with self.lock:
                self.sockets.append(client)
            if self.mode == "freeze":
                continue  # held open, never answered
            upstream = socket.create_connection(self.target)
            with self.lock:
                self.sockets.append(upstream)
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                if self.mode == "freeze":
                    time.sleep(0.05)
                    continue
                ready, _, _ = select.select([src], [], [], 0.1)
                if not ready or self.mode == "freeze":
                    continue
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except (OSError, ValueError):  # the socket was closed by cut() or the other pump
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.close()

    def cut(self) -> None:
        self.mode = "cut"
        with self.lock:
            for s in self.sockets:
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                    s.close()
            self.sockets.clear()

    def freeze(self) -> None:
        self.mode = "freeze"
        time.sleep(0.3)  # every relay is parked: nothing more passes

    def forward(self) -> None:
        with self.lock:  # frozen connections are dropped: the clients' deadlines gave up on them
            for s in self.sockets:
                with contextlib.suppress(OSError):
                    s.close()
            self.sockets.clear()
        self.mode = "forward"

    def close(self) -> None:
        self.listener.close()
        self.cut()
