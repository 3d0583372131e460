"""Benchmark of the project's performance targets through HTTP, over a large synthetic catalogue.

The targets (TARGETS below; docs/advisor-rules.md): the advisor answers a 5-task scenario over
10,000 offerings in <= 100 ms p50; price-history chart data over 1,000,000 observations in
<= 100 ms p50; a catalogue list page of 50 in <= 30 ms p50, with query counts that do not grow
with the catalogue or the page.

Requests go through Django's test Client: in-process HTTP (the whole middleware stack, URL routing,
DRF, templates and JSON rendering), without sockets, gunicorn or a browser. Each figure is the time
of one request after warm-up requests, over --runs runs (fewer, and said so, when one request takes
so long that the runs would not fit in a minute), with the SQL queries of one more request counted.
The database is a throw-away one (bench/_catalogue.py): a fresh SQLite file by default, or a
dedicated Postgres database with --database-url; both are removed at the end. Prints figures and
a summary against the targets; asserts nothing about time (exit 0 whether a target is met or not).

Run: .venv/bin/python bench/bench_http.py [--quick] [--offerings 10000] [--observations 1000000]
     [--runs 20] [--database-url postgres://postgres@127.0.0.1:5432/postgres] [--profile advise]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path[:0] = [str(BENCH.parent), str(BENCH)]

from _catalogue import build_catalogue, scratch_database  # noqa: E402
from bench_advise import SCENARIO  # noqa: E402  (the same 5-task scenario as the engine bench)

# Seconds of requests per figure: past it the runs are cut (to MIN_SLOW_RUNS, or to one when a
# single request takes longer than that), so that the default run stays within a few minutes.
BUDGET_S = 15.0
MIN_SLOW_RUNS = 3
PROFILE_CHOICES = ("advise", "history", "platform", "list", "explorer")


@dataclass
class Figure:
    name: str
    times: list[float]  # ms
    queries: int | None = None
    note: str = ""

    @property
    def p50(self) -> float:
        return statistics.median(self.times)

    @property
    def p95(self) -> float:
        ordered = sorted(self.times)
        return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]

    def line(self) -> str:
        queries = "-" if self.queries is None else str(self.queries)
        ordered = sorted(self.times)
        text = (
            f"  {self.name:<52} p50 {self.p50:8.1f}  p95 {self.p95:8.1f}  min {ordered[0]:8.1f} ms"
            f"  runs {len(self.times):>3}  queries {queries:>3}"
        )
        return f"{text}  ({self.note})" if self.note else text


class Bench:
    def __init__(self, runs: int, warmup: int) -> None:
        self.runs = runs
        self.warmup = warmup
        self.figures: dict[str, Figure] = {}

    def measure(self, key: str, name: str, call: Callable[[], object]) -> Figure:
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        # The first request warms up and is the one whose queries are counted: capturing switches
        # on the debug cursor, which costs, so its time is kept only when it is the only run.
        with CaptureQueriesContext(connection) as captured:
            first = _timed(call)
        # Read at once: the next request resets the connection's query log this slices.
        queries = len(captured.captured_queries)
        runs, note = self.runs, ""
        if first > BUDGET_S * 1000:
            times = [first]
            note = f"one run only: a request takes {first / 1000:.0f} s"
        elif first * self.runs > BUDGET_S * 1000:
            runs = max(MIN_SLOW_RUNS, int(BUDGET_S * 1000 / first))
            note = f"runs cut to {runs}: a request takes {first / 1000:.1f} s"
            times = [_timed(call) for _ in range(runs)]
        else:
            for _ in range(self.warmup - 1):
                call()
            times = [_timed(call) for _ in range(runs)]
        figure = Figure(name, times, queries, note)
        self.figures[key] = figure
        print(figure.line(), flush=True)
        return figure


def _timed(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1000


def _ok(response, expect: int = 200):
    if response.status_code != expect:
        body = response.content[:300].decode(errors="replace")
        raise SystemExit(f"{response.request['PATH_INFO']}: {response.status_code} {body}")
    return response


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offerings", type=int, default=10_000)
    parser.add_argument("--observations", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument(
        "--quick", action="store_true", help="100,000 observations instead of a million"
    )
    parser.add_argument("--database-url", help="postgres://... (default: a temporary SQLite file)")
    parser.add_argument(
        "--profile", choices=PROFILE_CHOICES, help="print a cProfile of that request too"
    )
    args = parser.parse_args()
    if args.quick and args.observations == parser.get_default("observations"):
        args.observations = 100_000
    if args.runs < 1 or args.offerings < 1 or args.observations < 0:
        parser.error("--runs and --offerings must be positive, --observations not negative")

    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
    with scratch_database(args.database_url) as url:
        os.environ["DATABASE_URL"] = url
        import django

        django.setup()
        run(args)


def run(args: argparse.Namespace) -> None:
    from django.db import connection
    from django.test import Client

    from platforms.models import PriceObservation

    clock = time.perf_counter()
    catalogue = build_catalogue(args.offerings, args.observations)
    build_s = time.perf_counter() - clock
    total_prices = PriceObservation.objects.count()
    with connection.cursor() as cursor:
        sqlite = connection.vendor == "sqlite"
        cursor.execute("SELECT sqlite_version()" if sqlite else "SHOW server_version")
        version = cursor.fetchone()[0]
    steps = ", ".join(f"{k} {v:.1f} s" for k, v in catalogue.timings.items())
    print(f"database: {connection.vendor} {version} (throw-away)")
    print(
        f"catalogue: {catalogue.offerings:,} synthetic offerings; {total_prices:,} price "
        f"observations, {catalogue.history_observations:,} of them history over "
        f"{len(catalogue.history_offering_ids)} offerings; built in {build_s:.1f} s ({steps})"
    )
    print(
        "requests: in-process HTTP through django.test.Client (middleware, routing, DRF, "
        "templates; no sockets, no gunicorn)"
    )
    print(f"runs: {args.runs} after {args.warmup} warm-up; times in ms; queries of one request")

    client = Client(SERVER_NAME="localhost")
    bench = Bench(args.runs, args.warmup)
    advise_section(bench, client, args)
    history_section(bench, client, catalogue, args)
    catalogue_section(bench, client, args)
    summary(bench)


def advise_section(bench: Bench, client, args) -> None:
    from advisor import services

    body = json.dumps(SCENARIO)

    def http():
        return _ok(client.post("/api/v1/advise/", body, content_type="application/json"))

    print(f"\n1. Advisor: the {len(SCENARIO['tasks'])}-task scenario of bench_advise.py")
    response = http()
    answer = response.json()
    print(
        f"  answer: {len(response.content):,} bytes, fitting {answer.get('fitting')}, "
        f"{len(answer.get('recommendations', []))} recommendations"
    )
    bench.measure("advise", "POST /api/v1/advise/", http)
    bench.measure("advise_service", "advisor.services.advise_scenario()", _service_call(services))
    # The same service split in two: reading the catalogue, and the engine on what was read.
    try:
        from django.conf import settings
        from django.utils import timezone

        from advisor.engine.estimate import estimate
        from advisor.engine.ranking import advise

        def load():
            now = timezone.now()
            accelerators = services.accelerator_specs()
            offerings = services.offering_specs(accelerators, now=now)
            return accelerators, offerings, services.exchange_rates(), services.storage_specs()

        accelerators, offerings, rates, storage = load()
        scenario = services.parse(SCENARIO)
        now = timezone.now()

        def engine():
            estimate(scenario, accelerators)
            return advise(
                scenario,
                offerings,
                accelerators,
                now=now,
                rates=rates,
                storage_prices=storage,
                stale_after_days=settings.PRICE_STALE_AFTER_DAYS,
            )

        bench.measure("advise_load", "  of which: load offerings and prices (ORM -> specs)", load)
        bench.measure("advise_engine", "  of which: engine (estimate + rank, no DB)", engine)
    except (AttributeError, ImportError, TypeError) as error:
        print(f"  (split skipped: the service's helpers changed: {error})")
    if args.profile == "advise":
        profile("POST /api/v1/advise/", http)


def _service_call(services):
    return lambda: services.advise_scenario(SCENARIO)


def history_section(bench: Bench, client, catalogue, args) -> None:
    from platforms import charts
    from platforms.models import Offering, Platform, PriceObservation

    print("\n2. Price history")
    if not catalogue.history_offering_ids:
        print("  (no history: --observations 0)")
        return
    offering = catalogue.history_offering_ids[0]
    rows = PriceObservation.objects.filter(offering=offering).count()
    table = PriceObservation.objects.count()
    print(f"  offering {offering}: {rows:,} observations of {table:,} in the table")
    for bucket in ("day", "week"):
        url = f"/api/v1/offerings/{offering}/prices/?bucket={bucket}"
        buckets = len(_ok(client.get(url)).json()["buckets"])
        name = f"GET {url} ({buckets} buckets)"
        bench.measure(f"history_{bucket}", name, lambda u=url: _ok(client.get(u)))
    if args.profile == "history":
        url = f"/api/v1/offerings/{offering}/prices/?bucket=day"
        profile(f"GET {url}", lambda: _ok(client.get(url)))

    slug, history_rows = catalogue.history_by_platform.most_common(1)[0]
    platform = Platform.objects.get(slug=slug)
    listed = Offering.objects.filter(platform=platform, is_active=True).count()
    chart_rows = PriceObservation.objects.filter(
        offering__platform=platform, offering__is_active=True
    ).count()
    url = f"/platforms/{slug}/"
    page = _ok(client.get(url))
    print(
        f"  platform {slug}: {listed:,} listed offerings; its chart reads {chart_rows:,} raw "
        f"observation rows ({history_rows:,} of them history); page {len(page.content):,} bytes"
    )
    bench.measure("platform", f"GET {url}", lambda: _ok(client.get(url)))
    # Where the page's time goes: the chart's rows as model instances, then the Plotly figure.
    try:
        series = charts.price_history(platform)
        points = sum(len(s.points) for s in series)
        bench.measure(
            "platform_rows",
            f"  of which: charts.price_history() ({len(series)} series, {points:,} points)",
            lambda: charts.price_history(platform),
        )
        bench.measure(
            "platform_figure",
            "  of which: charts.price_history_figure()",
            lambda: charts.price_history_figure(series),
        )
        figure = json.dumps(charts.price_history_figure(series))
        print(f"  figure JSON inlined in the page: {len(figure):,} bytes")
    except (AttributeError, TypeError) as error:
        print(f"  (split skipped: platforms.charts changed: {error})")
    if args.profile == "platform":
        profile(f"GET {url}", lambda: _ok(client.get(url)))


def catalogue_section(bench: Bench, client, args) -> None:
    print("\n3. Catalogue lists")
    urls = {
        "list": "/api/v1/offerings/",
        "list50": "/api/v1/offerings/?page_size=50",
        "list_sorted": "/api/v1/offerings/?page_size=50&ordering=price_per_gpu_hour",
        "list_deep": "/api/v1/offerings/?page_size=50&page=100",
        "explorer": "/offerings/",
    }
    for key, url in urls.items():
        bench.measure(key, f"GET {url}", lambda u=url: _ok(client.get(u)))
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    counts = {}
    for size in (1, 50, 200):
        with CaptureQueriesContext(connection) as captured:
            _ok(client.get(f"/api/v1/offerings/?page_size={size}"))
        counts[size] = len(captured.captured_queries)
    print(
        "  queries by page size: "
        + ", ".join(f"{size} -> {n}" for size, n in counts.items())
        + (" (constant)" if len(set(counts.values())) == 1 else " (GROWS with the page)")
    )
    if args.profile in ("list", "explorer"):
        url = urls["list50"] if args.profile == "list" else urls["explorer"]
        profile(f"GET {url}", lambda: _ok(client.get(url)))


def profile(name: str, call: Callable[[], object], runs: int = 5) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(runs):
        call()
    profiler.disable()
    print(f"\n  cProfile of {runs} x {name}, by cumulative time:")
    stats = pstats.Stats(profiler, stream=sys.stdout)
    stats.sort_stats("cumulative").print_stats(30)


TARGETS = [
    ("advise", "Advisor, 5 tasks over the catalogue (HTTP)", 100.0),
    ("history_day", "Price history chart data, day buckets", 100.0),
    ("history_week", "Price history chart data, week buckets", 100.0),
    ("platform", "Platform page with its price-history chart", 100.0),
    ("list50", "Catalogue list API, page of 50", 30.0),
    ("explorer", "Offering explorer page (25 a page)", 30.0),
]


def summary(bench: Bench) -> None:
    print("\nSummary against the targets (p50; informative, never a failure):")
    for key, label, target in TARGETS:
        figure = bench.figures.get(key)
        if figure is None:
            print(f"  {label:<48} not measured")
            continue
        verdict = "meets" if figure.p50 <= target else "misses"
        print(
            f"  {label:<48} {figure.p50:8.1f} ms  target <= {target:.0f} ms  {verdict:<6}"
            f"  queries {figure.queries}"
        )
    print(
        "  (the platform page and the explorer have no target of their own: shown against the "
        "chart-data and list targets they build on)"
    )


if __name__ == "__main__":
    main()
