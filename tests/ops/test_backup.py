"""Backups: dumpdata/loaddata keep timestamps whole (they were cut to milliseconds, and two
prices a few microseconds apart then collided on their unique constraint), and db_backup /
db_restore put a database back as it was (SQLite here; PostgreSQL through pg_dump/pg_restore in
.ci/run)."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from platforms.models import PriceObservation
from tests.conftest import NOW


@pytest.mark.django_db(transaction=True)
def test_dumpdata_and_loaddata_keep_prices_microseconds_apart(offering, source, tmp_path):
    common = {"offering": offering, "unit": "hour", "currency": "CNY", "source": source}
    PriceObservation.objects.create(
        amount=Decimal("1.88"), observed_at=NOW, last_seen_at=NOW, **common
    )
    later = NOW + timedelta(microseconds=400)  # the same millisecond
    PriceObservation.objects.create(
        amount=Decimal("1.98"), observed_at=later, last_seen_at=later, **common
    )
    dump = tmp_path / "catalogue.json"
    call_command("dumpdata", "platforms", "--output", str(dump), stdout=StringIO())
    assert ".000400" in dump.read_text() or "00.0004" in dump.read_text()
    PriceObservation.objects.all().delete()
    call_command("loaddata", str(dump), stdout=StringIO())
    times = sorted(PriceObservation.objects.values_list("observed_at", flat=True))
    assert times == [NOW, later]


@pytest.mark.django_db(transaction=True)
def test_db_backup_and_db_restore_put_an_sqlite_database_back(tmp_path, settings):
    from django.db import connections

    live = tmp_path / "live.sqlite3"
    with sqlite3.connect(live) as db:
        db.execute("CREATE TABLE t (x INTEGER)")
        db.executemany("INSERT INTO t VALUES (?)", [(1,), (2,)])
    connections.settings["scratch"] = {
        **settings.DATABASES["default"],
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(live),
    }
    backup = tmp_path / "backup.sqlite3"
    out = StringIO()
    call_command("db_backup", str(backup), "--database", "scratch", stdout=out)
    assert out.getvalue().strip() == str(backup)
    # Before: world-readable (the password hashes and token digests with it).
    assert backup.stat().st_mode & 0o777 == 0o600
    with sqlite3.connect(live) as db:
        db.execute("DELETE FROM t")
    call_command("db_restore", str(backup), "--database", "scratch", "--noinput", stdout=out)
    with sqlite3.connect(live) as db:
        assert db.execute("SELECT x FROM t ORDER BY x").fetchall() == [(1,), (2,)]
    connections["scratch"].close()
    del connections.settings["scratch"]


def test_restoring_a_missing_file_fails_with_a_message():
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="no such file"):
        call_command("db_restore", str(Path("/nonexistent/backup.sqlite3")), "--noinput")
