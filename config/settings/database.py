"""settings.DATABASES["default"] from DATABASE_URL, with timeouts, so that a database that is down
or frozen fails a request within seconds (a 503) instead of holding the worker.

PostgreSQL: `connect_timeout` (DB_CONNECT_TIMEOUT_S, libpq's own parameter), the server's
`statement_timeout` (DB_STATEMENT_TIMEOUT_S), TCP keepalives and `tcp_user_timeout` so that a
vanished peer is noticed, and ops.db.postgresql's client-side deadline (DB_CLIENT_TIMEOUT_S) for a
server that stops answering on an open connection. SQLite: how long to wait for another writer's
lock (DB_LOCK_TIMEOUT_S) before "database is locked". Both: CONN_HEALTH_CHECKS, so that a
persistent connection (DB_CONN_MAX_AGE) that died is replaced before a request uses it.
"""

from __future__ import annotations

from typing import Any

import dj_database_url

from .env import envint


def database(url: str) -> dict[str, Any]:
    config: dict[str, Any] = dict(
        dj_database_url.parse(url, conn_max_age=envint("DB_CONN_MAX_AGE", 60))
    )
    config["CONN_HEALTH_CHECKS"] = True
    options = config.setdefault("OPTIONS", {})
    if config["ENGINE"] == "django.db.backends.postgresql":
        config["ENGINE"] = "ops.db.postgresql"
        options.setdefault("connect_timeout", DB_CONNECT_TIMEOUT_S)
        statement_ms = DB_STATEMENT_TIMEOUT_S * 1000
        options.setdefault("options", f"-c statement_timeout={statement_ms}")
        if DB_CLIENT_TIMEOUT_S:
            # The kernel gives up on unacknowledged data after this long (a partition, a host
            # that vanished).
            options.setdefault("tcp_user_timeout", DB_CLIENT_TIMEOUT_S * 1000)
        options.setdefault("keepalives", 1)
        options.setdefault("keepalives_idle", 30)
        options.setdefault("keepalives_interval", 5)
        options.setdefault("keepalives_count", 3)
    elif config["ENGINE"] == "django.db.backends.sqlite3":
        options.setdefault("timeout", DB_LOCK_TIMEOUT_S)
    return config


# libpq waits at least 2 s whatever is asked (https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNECT-CONNECT-TIMEOUT).
DB_CONNECT_TIMEOUT_S = envint("DB_CONNECT_TIMEOUT_S", 3)
# 0 turns it off (a long migration, a bulk load); gunicorn's worker timeout is 30 s.
DB_STATEMENT_TIMEOUT_S = envint("DB_STATEMENT_TIMEOUT_S", 20)
# Past the statement timeout, so that the server's own cancellation (a clearer error) comes
# first; 0 (the default when statements have no timeout) turns it off.
DB_CLIENT_TIMEOUT_S = envint(
    "DB_CLIENT_TIMEOUT_S", DB_STATEMENT_TIMEOUT_S + 5 if DB_STATEMENT_TIMEOUT_S else 0
)
# Python's sqlite3 default (https://docs.python.org/3/library/sqlite3.html#sqlite3.connect).
DB_LOCK_TIMEOUT_S = envint("DB_LOCK_TIMEOUT_S", 5)
