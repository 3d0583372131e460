"""A throw-away database with a large synthetic catalogue, for the HTTP benchmarks.

`scratch_database()` hands out a DATABASE_URL for a fresh SQLite file in a temporary folder (the
default) or for a dedicated Postgres database created next to the one a `postgres://` URL names;
either is removed on exit. `build_catalogue()` fills it: migrations, the seed accelerators and
platforms (`load_seed()`), then N offerings with current prices and M price observations of history,
all drawn from a fixed random seed. Offerings go through `bulk_create`; the price rows, a million by
default, are written with one raw `executemany` (SQLite) or `COPY` (Postgres) in one transaction,
because building a million model instances alone would take minutes on two cores; the stored
current prices are then pointed in one statement and the catalogue's version bumped, as the write
services would have.

Not a benchmark itself (no `bench_` prefix, so `make bench` does not run it); bench_http.py uses it.
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from urllib.parse import urlsplit, urlunsplit

SEED = 20261002
# Price history goes to this many offerings, spread evenly over the catalogue (so over every seed
# platform), covering this many years back from now.
HISTORY_OFFERINGS = 200
HISTORY_DAYS = 3 * 365
USD_SHARE = 0.15
MONTH_PLAN_SHARE = 0.4
BATCH = 50_000


@contextmanager
def scratch_database(database_url: str | None) -> Iterator[str]:
    """A DATABASE_URL for an empty database that exists only inside the `with` block."""
    if not database_url:
        folder = tempfile.mkdtemp(prefix="gpu-advisor-bench-")
        try:
            yield f"sqlite:///{os.path.join(folder, 'bench.sqlite3')}"
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return
    parts = urlsplit(database_url)
    if parts.scheme not in ("postgres", "postgresql", "pgsql"):
        raise SystemExit(f"--database-url: a postgres:// URL or nothing, not {parts.scheme}://")
    # Our own database, named with the process id so two runs never share (or drop) one.
    name = f"gpu_advisor_bench_{os.getpid()}"
    admin_url = urlunsplit(("postgresql", parts.netloc, parts.path or "/postgres", "", ""))
    _postgres(admin_url, f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, ""))
    finally:
        from django.db import connections

        connections.close_all()
        _postgres(admin_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _postgres(url: str, statement: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(statement)


@dataclass
class Catalogue:
    offerings: int = 0
    observations: int = 0
    history_observations: int = 0
    history_offering_ids: list[int] = field(default_factory=list)
    history_by_platform: Counter = field(default_factory=Counter)
    timings: dict[str, float] = field(default_factory=dict)


def build_catalogue(offerings: int, observations: int, *, seed: int = SEED) -> Catalogue:
    """Migrate, seed, and add the synthetic catalogue; Django must be set up."""
    from django.core.management import call_command
    from django.db import connection, transaction

    from platforms.models import Accelerator, Offering, Platform, PriceObservation, Source
    from platforms.seed import load_seed

    report = Catalogue()
    clock = time.perf_counter()
    call_command("migrate", verbosity=0, interactive=False)
    report.timings["migrate"] = time.perf_counter() - clock

    clock = time.perf_counter()
    load_seed()
    report.timings["load_seed"] = time.perf_counter() - clock

    rng = random.Random(seed)
    now = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    source = Source.objects.create(
        title="Synthetic benchmark catalogue", kind="import", confidence="unverified"
    )
    platforms = list(Platform.objects.order_by("slug"))
    accelerators = list(Accelerator.objects.prefetch_related("mig_profiles").order_by("slug"))

    clock = time.perf_counter()
    rows = [_offering(i, rng, platforms, accelerators, source) for i in range(offerings)]
    with transaction.atomic():
        created = Offering.objects.bulk_create(rows, batch_size=1000)
    report.offerings = len(created)
    report.timings["offerings"] = time.perf_counter() - clock

    clock = time.perf_counter()
    every = max(1, len(created) // HISTORY_OFFERINGS)
    history = {o.pk for o in created[::every][:HISTORY_OFFERINGS]} if observations else set()
    per_offering, extra = divmod(observations, max(1, len(history)))

    def price_rows():
        # A generator, so the million rows are never all in memory at once.
        for offering in created:
            usd = rng.random() < USD_SHARE
            month_plan = rng.random() < MONTH_PLAN_SHARE
            hourly = rng.uniform(0.2, 4.0) * offering.gpu_count * (1 if usd else 7)
            if offering.pk in history:
                count = per_offering + (1 if len(report.history_offering_ids) < extra else 0)
                report.history_offering_ids.append(offering.pk)
                report.history_by_platform[offering.platform.slug] += count
                report.history_observations += count
                yield _history(offering, count, hourly, usd, month_plan, now, rng)
            else:
                yield _current(offering, hourly, usd, month_plan, now, rng)

    report.observations = _insert_prices(
        connection, PriceObservation._meta.db_table, price_rows(), source.pk, now
    )
    report.timings["prices"] = time.perf_counter() - clock

    # The rows above bypass the write services: point the stored current prices at the latest
    # observations as they would have, and give the catalogue a new version.
    clock = time.perf_counter()
    _point_current_prices(connection)
    from platforms.services import catalogue_changed

    with transaction.atomic():
        catalogue_changed()
    report.timings["current prices"] = time.perf_counter() - clock

    if connection.vendor == "postgresql":
        # Autovacuum would do this within minutes of a bulk load; the benchmark should not wait.
        clock = time.perf_counter()
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        report.timings["analyze"] = time.perf_counter() - clock
    return report


def _offering(i, rng, platforms, accelerators, source):
    from platforms.models import Offering

    platform = rng.choice(platforms)
    accelerator = rng.choice(accelerators)
    gpus = rng.choice((1, 1, 1, 2, 4, 8))
    sharing, profile, pooled = "exclusive", "", None
    profiles = [p.name for p in accelerator.mig_profiles.all()]
    if platform.multi_task == "mig" and profiles and rng.random() < 0.4:
        sharing, gpus, profile = "mig", 1, rng.choice(profiles)
    elif platform.multi_task == "pooled":
        sharing, gpus = "pooled", 1
        pooled = rng.choice((Decimal(6), Decimal(12), accelerator.vram_gib / 2))
    forms = platform.delivery_forms or ["cloud_container"]
    return Offering(
        platform=platform,
        accelerator=accelerator,
        name=f"{gpus}x {accelerator.name} #{i}",
        external_id=f"bench-{i}",
        gpu_count=gpus,
        pooled_vram_gib=pooled,
        mig_profile=profile,
        vcpus=rng.choice((8, 16, 32)) * gpus,
        ram_gib=Decimal(rng.choice((32, 64, 128)) * gpus),
        disk_gb=rng.choice((50, 100, 200)),
        delivery_form=rng.choice(forms),
        sharing_mode=sharing,
        interconnect="nvlink" if accelerator.nvlink and gpus > 1 else "pcie",
        region=rng.choice(("beijing", "shanghai", "guangzhou", "chongqing")),
        interruptible=rng.random() < 0.1,
        source=source,
    )


def _money(value: float) -> Decimal:
    return Decimal(round(value * 100)).scaleb(-2)


def _current(offering, hourly, usd, month_plan, now, rng):
    """An offering's current prices (hour, some month) and one older hourly price before them."""
    currency = "USD" if usd else "CNY"
    seen = now - timedelta(days=rng.randint(0, 10))
    observed = seen - timedelta(hours=rng.randint(1, 40 * 24))
    older = observed - timedelta(days=rng.randint(30, 300))
    rows = [
        (offering.pk, "hour", _money(hourly * rng.uniform(1.0, 1.2)), currency, older, older),
        (offering.pk, "hour", _money(hourly), currency, observed, seen),
    ]
    if month_plan:
        monthly = _money(hourly * rng.randint(400, 600))
        rows.append((offering.pk, "month", monthly, currency, observed, seen))
    return rows


def _history(offering, count, hourly, usd, month_plan, now, rng):
    """`count` observations over HISTORY_DAYS, evenly spaced with jitter, the last one current.

    A fifth go to the month plan where there is one. Prices move as a slow random walk: most
    observations see the same price again, as a scraper sees a price list.
    """
    currency = "USD" if usd else "CNY"
    units = [("hour", hourly)]
    if month_plan and count >= 10:
        units.append(("month", hourly * rng.randint(400, 600)))
    shares = [count - count // 5, count // 5] if len(units) == 2 else [count]
    span = HISTORY_DAYS * 86400
    start = now - timedelta(seconds=span)
    rows = []
    for (unit, base), k in zip(units, shares, strict=True):
        step = span / k
        level = base
        for j in range(k):
            if rng.random() < 0.05:
                level = max(base * 0.5, min(base * 1.5, level * rng.uniform(0.93, 1.07)))
            moment = start + timedelta(seconds=int(j * step + rng.random() * step * 0.5))
            seen = now if j == k - 1 else moment
            rows.append((offering.pk, unit, _money(level), currency, moment, seen))
    return rows


def _point_current_prices(connection) -> None:
    """One INSERT ... SELECT: the latest observation per (offering, unit, tier), as the services'
    current_prices_advance keeps them (a window function, in SQLite and Postgres alike)."""
    from django.db import transaction

    from platforms.models import CurrentPrice, PriceObservation
    from platforms.services import current_price_keys_refresh

    quote = connection.ops.quote_name
    current, prices = CurrentPrice._meta.db_table, PriceObservation._meta.db_table
    columns = "offering_id, unit, tier, observation_id, amount, currency, observed_at, basis"
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {quote(current)}")
        cursor.execute(
            f"INSERT INTO {quote(current)} ({columns}) "
            f"SELECT offering_id, unit, tier, id, amount, currency, observed_at, basis FROM ("
            f"  SELECT *, ROW_NUMBER() OVER ("
            f"    PARTITION BY offering_id, unit, tier ORDER BY observed_at DESC"
            f"  ) AS newest FROM {quote(prices)}"
            f") AS ranked WHERE newest = 1"
        )
        current_price_keys_refresh()  # their stored sort keys, as the services set them


def _insert_prices(connection, table, groups, source_id, now) -> int:
    """Write the rows in one transaction, bypassing model instances; returns how many."""
    from django.db import transaction

    columns = (
        "offering_id",
        "unit",
        "amount",
        "currency",
        "observed_at",
        "last_seen_at",
        "source_id",
        "created_at",
        "tier",
        "basis",
    )
    quote = connection.ops.quote_name
    names = ", ".join(quote(c) for c in columns)
    count = 0
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {quote(table)} ({names}) FROM STDIN") as copy:
                for group in groups:
                    for row in group:
                        copy.write_row((*row, source_id, now, "list", "offer"))
                        count += 1
            return count
        # SQLite stores aware datetimes as naive UTC text; write them the way Django would.
        when = connection.ops.adapt_datetimefield_value
        created = when(now)
        sql = f"INSERT INTO {quote(table)} ({names}) VALUES ({', '.join(['%s'] * len(columns))})"
        batch = []
        for group in groups:
            for offering, unit, amount, currency, observed, seen in group:
                row = (offering, unit, str(amount), currency, when(observed), when(seen))
                batch.append((*row, source_id, created, "list", "offer"))
                if len(batch) >= BATCH:
                    cursor.executemany(sql, batch)
                    count += len(batch)
                    batch = []
        if batch:
            cursor.executemany(sql, batch)
            count += len(batch)
    return count
