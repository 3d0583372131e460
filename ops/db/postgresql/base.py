"""Django's PostgreSQL backend with a client-side deadline on every wait for the server.

`connect_timeout` bounds connecting and the server's `statement_timeout` bounds a query the server
is running; neither helps when the server (or a proxy before it) stops answering on an open
connection: the worker would wait until its own timeout killed it. Here every wait for the server
ends after settings.DB_CLIENT_TIMEOUT_S; the connection is then closed and the query fails with
OperationalError, which the site answers with a 503. The health check of a reused connection
(CONN_HEALTH_CHECKS) waits only DB_CONNECT_TIMEOUT_S.

ENGINE "ops.db.postgresql" (config/settings/database.py selects it for postgres:// URLs).
"""

from __future__ import annotations

from typing import Any

import psycopg
from django.conf import settings
from django.db.backends.postgresql import base

# psycopg raises this (a private class) when a wait passes its timeout.
_WaitTimeout: type[Exception] = getattr(psycopg.errors, "_WaitTimeout", psycopg.OperationalError)


class DatabaseWrapper(base.DatabaseWrapper):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.wait_timeout_s: float | None = None

    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        connection = super().get_new_connection(conn_params)
        self.wait_timeout_s = float(settings.DB_CLIENT_TIMEOUT_S) or None
        original = connection.wait

        def wait(gen: Any, interval: Any = None, timeout: float | None = None) -> Any:
            limit = timeout if timeout is not None else self.wait_timeout_s
            kwargs: dict[str, Any] = {"timeout": limit}
            if interval is not None:
                kwargs["interval"] = interval
            try:
                return original(gen, **kwargs)
            except _WaitTimeout:
                # The protocol state is unknown mid-query: the connection cannot be reused.
                connection.pgconn.finish()
                raise psycopg.OperationalError(
                    f"the database did not answer within {limit:g} s; connection closed"
                ) from None

        connection.wait = wait
        return connection

    def is_usable(self) -> bool:
        previous = self.wait_timeout_s
        self.wait_timeout_s = float(settings.DB_CONNECT_TIMEOUT_S)
        try:
            return bool(super().is_usable())
        finally:
            self.wait_timeout_s = previous
