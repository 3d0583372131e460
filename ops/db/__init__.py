"""Telling a database that cannot be reached from a query that is wrong."""

from __future__ import annotations

from django.db import InterfaceError, OperationalError

# SQLSTATE classes of a server that is unreachable, going away, overloaded or past a timeout:
# 08 connection exception, 53 insufficient resources, 57 operator intervention (57014: a
# statement timeout; 57P01-57P03: shutdown, cannot connect now)
# (https://www.postgresql.org/docs/current/errcodes-appendix.html).
_UNAVAILABLE_CLASSES = ("08", "53", "57")
# A statement cancelled by statement_timeout (57014 query_canceled) or a lock not had within
# lock_timeout (55P03 lock_not_available): the database answers, the query was too slow.
_QUERY_TIMEOUT_STATES = ("57014", "55P03")
# SQLite's messages for a file that is locked by another writer past the timeout, or unreadable.
_SQLITE_UNAVAILABLE = ("database is locked", "unable to open database", "disk i/o error")


def query_timeout(exc: BaseException | None) -> bool:
    """Whether `exc` is a statement or lock timeout: a 503 of its own (`query_timeout`), so that
    on-call looks at the query, not at the database's health."""
    if not isinstance(exc, OperationalError):
        return False
    return str(getattr(exc.__cause__, "sqlstate", "")) in _QUERY_TIMEOUT_STATES


def database_unavailable(exc: BaseException | None) -> bool:
    """Whether `exc` means the database cannot serve now (a 503), not a bug (a 500): SQLite calls
    "no such column" an OperationalError too."""
    if isinstance(exc, InterfaceError):
        return True
    if not isinstance(exc, OperationalError):
        return False
    if query_timeout(exc):
        return True
    cause = exc.__cause__
    sqlstate = getattr(cause, "sqlstate", None)
    if cause is not None and type(cause).__module__.startswith("psycopg"):
        # No SQLSTATE: the client's own failure (refused, reset, timed out, our deadline).
        return sqlstate is None or str(sqlstate)[:2] in _UNAVAILABLE_CLASSES
    return str(exc).lower().startswith(_SQLITE_UNAVAILABLE)
