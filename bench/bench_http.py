"""Benchmark of the performance targets through HTTP, over a large synthetic catalogue: every
request of the speed issue's table as p50, p95 and a multiple of a floor timed in the same run.

Rows (README, "Benchmarks"): POST /api/v1/advise/ (the 5-task scenario of bench_advise.py) with
what it is made of (the kept catalogue's version check, a rebuild of the catalogue after a write,
the engine alone); GET /advisor/ with a preset; the platform page of the platform with the most
price history; the offering explorer; the offerings list API (a page of 50, ordered by price per
GPU-hour, page 100); an offering's price history in day buckets. Floors: a tiny DRF list
(/api/v1/exchange-rates/), a trivial answer (/healthz) and a static file. Pages are fetched as a
browser asks for them (gzip accepted); their HTML is given raw and gzipped.

Sizes: BENCH_SIZE=small (the default, what `make bench` and CI run: 1,000 offerings and 20,000
observations, 5 runs) or BENCH_SIZE=full (1,000, 10,000 and 100,000 offerings, each with 1,000,000
observations, 20 runs); --offerings and --observations override either. Each size gets its own
throw-away database (bench/_catalogue.py): a temporary SQLite file, or with --database-url a
dedicated Postgres database beside the one the URL names, dropped at the end.

Servers: --server client (Django's test Client in the benchmark's process: middleware, routing,
DRF, templates, no sockets) or --server gunicorn (production settings, --workers sync workers on
loopback, Redis at --redis-url; a new connection per request, as gunicorn's sync workers close
each). Prints figures and a summary against the targets; asserts nothing about time (exit 0 whether
a target is met or not, 1 if a request fails).

Run: .venv/bin/python bench/bench_http.py [--server client|gunicorn] [--offerings 1000,10000]
     [--observations 1000000] [--runs 20] [--database-url postgres://postgres@127.0.0.1:5432/postgres]
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import json
import os
import re
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path[:0] = [str(ROOT), str(BENCH)]

from _catalogue import build_catalogue, scratch_database  # noqa: E402
from bench_advise import SCENARIO  # noqa: E402  (the same 5-task scenario as the engine bench)

SIZES = {
    "small": {"offerings": [1_000], "observations": 20_000, "runs": 5},
    "full": {"offerings": [1_000, 10_000, 100_000], "observations": 1_000_000, "runs": 20},
}
# Seconds of requests per figure: past it the runs are cut (to MIN_SLOW_RUNS, or to one when a
# single request takes longer), so that a full run stays within minutes.
BUDGET_S = 15.0
MIN_SLOW_RUNS = 3
PRESET = "training-inference"
# The speed issue's "done when" (README, "Benchmarks"): (row, p50 ms at most, x floor at most,
# HTML KB at most); None where the issue sets none.
TARGETS = [
    ("advise", 100, 25, None),
    ("advisor_page", 150, 35, 300),
    ("platform_page", 150, 35, 300),
    ("explorer", 150, 35, 300),
    ("list50", 20, 5, None),
    ("list_sorted", 20, 5, None),
    ("list_deep", 20, 5, None),
    ("history_day", 100, None, None),
]


@dataclass
class Figure:
    key: str
    name: str
    times: list[float]  # ms
    queries: int | None = None
    size: int | None = None  # bytes of the body as sent, uncompressed
    gzipped: int | None = None
    note: str = ""

    @property
    def p50(self) -> float:
        return statistics.median(self.times)

    @property
    def p95(self) -> float:
        ordered = sorted(self.times)
        return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


@dataclass
class Answer:
    status: int
    body: bytes  # uncompressed
    sent: int  # bytes on the wire


class InProcess:
    """Django's test Client: the whole stack in this process, no sockets."""

    def __init__(self) -> None:
        from django.test import Client

        self.client = Client(SERVER_NAME="localhost", HTTP_ACCEPT_ENCODING="gzip")

    def request(self, method: str, path: str, body: str | None = None) -> Answer:
        if method == "POST":
            response = self.client.post(path, body, content_type="application/json")
        else:
            response = self.client.get(path)
        raw = b"".join(response.streaming_content) if response.streaming else response.content
        sent = len(raw)
        if response.get("Content-Encoding") == "gzip":
            raw = gzip.decompress(raw)
        return Answer(response.status_code, raw, sent)


class OverHttp:
    """A server on loopback: one new connection per request, gzip accepted."""

    def __init__(self, port: int) -> None:
        self.port = port

    def request(self, method: str, path: str, body: str | None = None) -> Answer:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)
        headers = {"Accept-Encoding": "gzip", "Host": "127.0.0.1"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            raw = response.read()
            sent = len(raw)
            if response.getheader("Content-Encoding") == "gzip":
                raw = gzip.decompress(raw)
            return Answer(response.status, raw, sent)
        finally:
            connection.close()


@dataclass
class Bench:
    transport: InProcess | OverHttp
    runs: int
    warmup: int
    count_queries: bool
    only: set[str] | None = None  # the rows to measure (--rows); None: all
    figures: dict[str, Figure] = field(default_factory=dict)

    def wanted(self, key: str) -> bool:
        return self.only is None or key in self.only

    def call(self, method: str, path: str, body: str | None = None) -> Answer:
        answer = self.transport.request(method, path, body)
        if answer.status != 200:
            raise SystemExit(f"{method} {path}: {answer.status} {answer.body[:300]!r}")
        return answer

    def request(self, key: str, name: str, method: str, path: str, body: str | None = None) -> None:
        if not self.wanted(key):
            return
        first = self.call(method, path, body)
        self.measure(
            key,
            name,
            lambda: self.call(method, path, body),
            size=len(first.body),
            gzipped=first.sent,
        )

    def measure(
        self, key: str, name: str, call: Callable[[], object], **extra: int
    ) -> Figure | None:
        if not self.wanted(key):
            return None
        queries = None
        if self.count_queries:
            from django.db import connection
            from django.test.utils import CaptureQueriesContext

            # One more request than the runs, with its queries counted (capturing costs, so its
            # time is not kept).
            with CaptureQueriesContext(connection) as captured:
                first = _timed(call)
            queries = len(captured.captured_queries)
        else:
            first = _timed(call)
        runs, note = self.runs, ""
        if first > BUDGET_S * 1000:
            times, note = [first], f"one run: a request takes {first / 1000:.0f} s"
        else:
            if first * (self.runs + self.warmup) > BUDGET_S * 1000:
                runs = max(MIN_SLOW_RUNS, int(BUDGET_S * 1000 / first))
                note = f"runs cut to {runs}: a request takes {first / 1000:.1f} s"
            else:
                for _ in range(self.warmup):
                    call()
            times = [_timed(call) for _ in range(runs)]
        figure = Figure(key, name, times, queries, note=note, **extra)
        self.figures[key] = figure
        return figure


def _timed(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1000


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    size = os.environ.get("BENCH_SIZE", "small")
    if size not in SIZES:
        parser.error(f"BENCH_SIZE: one of {', '.join(SIZES)}, not {size!r}")
    defaults = SIZES[size]
    parser.add_argument(
        "--offerings",
        default=",".join(str(n) for n in defaults["offerings"]),
        help="comma-separated catalogue sizes",
    )
    parser.add_argument("--observations", type=int, default=defaults["observations"])
    parser.add_argument("--runs", type=int, default=defaults["runs"])
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--server", choices=("client", "gunicorn"), default="client")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/12")
    parser.add_argument("--database-url", help="postgres://... (default: a temporary SQLite file)")
    parser.add_argument(
        "--rows",
        help="comma-separated rows to measure (default: all), e.g. floor_list,list50,list_deep:"
        " the keys of TARGETS and floor_list, floor_trivial, floor_static, advise_kept,"
        " advise_new, advise_build, advise_engine, advise_engine_new",
    )
    args = parser.parse_args()
    try:
        sizes = [int(n) for n in args.offerings.split(",") if n]
    except ValueError:
        parser.error("--offerings: comma-separated whole numbers")
    if args.runs < 1 or not sizes or min(sizes) < 1 or args.observations < 0:
        parser.error("--runs and --offerings must be positive, --observations not negative")

    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
    results: dict[int, dict[str, Figure]] = {}
    for offerings in sizes:
        with scratch_database(args.database_url) as url:
            os.environ["DATABASE_URL"] = url
            import django

            django.setup()
            results[offerings] = run(args, offerings, url)
            from django.db import connections

            connections.close_all()
    summary(results)


def run(args: argparse.Namespace, offerings: int, url: str) -> dict[str, Figure]:
    from django.conf import settings
    from django.db import connection

    connection.settings_dict["NAME"] = settings.DATABASES["default"]["NAME"] = _name_of(url)
    clock = time.perf_counter()
    catalogue = build_catalogue(offerings, args.observations)
    build_s = time.perf_counter() - clock
    with connection.cursor() as cursor:
        sqlite = connection.vendor == "sqlite"
        cursor.execute("SELECT sqlite_version()" if sqlite else "SHOW server_version")
        version = cursor.fetchone()[0]
    steps = ", ".join(f"{k} {v:.1f} s" for k, v in catalogue.timings.items())
    print(f"\n=== {catalogue.offerings:,} offerings, {catalogue.observations:,} observations")
    print(
        f"database: {connection.vendor} {version} (throw-away); built in {build_s:.0f} s ({steps})"
    )

    server = folder = None
    if args.server == "gunicorn":
        connection.close()
        port = _free_port()
        server, folder = _gunicorn(args, url, port)
        loopback = OverHttp(port)
        print(f"server: gunicorn, production settings, {args.workers} workers, on loopback")
        print(f"every worker's catalogue built in {_warm_workers(loopback, args.workers):.1f} s")
        transport: InProcess | OverHttp = loopback
    else:
        transport = InProcess()
        print("server: Django's test Client in this process (no sockets, no gunicorn)")
    print(f"runs: {args.runs} after {args.warmup} warm-up; times in ms")
    only = set(args.rows.split(",")) if args.rows else None
    bench = Bench(transport, args.runs, args.warmup, args.server == "client", only)
    try:
        measure_all(bench, catalogue)
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
    table(bench)
    return bench.figures


def _warm_workers(transport: OverHttp, workers: int) -> float:
    """Send `workers` advise requests at once, twice, so that each sync worker (busy with one
    request, it accepts no other) builds its kept catalogue before anything is timed: otherwise
    the first timed request of some row pays a worker's build. Seconds taken."""
    import threading

    body = json.dumps(SCENARIO)
    failed: list[int] = []

    def post() -> None:
        status = transport.request("POST", "/api/v1/advise/", body).status
        if status != 200:
            failed.append(status)

    start = time.perf_counter()
    for _ in range(2):
        threads = [threading.Thread(target=post) for _ in range(workers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    if failed:
        raise SystemExit(f"POST /api/v1/advise/ while warming the workers: {failed}")
    return time.perf_counter() - start


def _name_of(url: str) -> str:
    import dj_database_url

    return str(dj_database_url.parse(url)["NAME"])


def _gunicorn(args: argparse.Namespace, url: str, port: int) -> tuple[subprocess.Popen, Path]:
    folder = Path(tempfile.mkdtemp(prefix="gpu-advisor-bench-"))
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.prod",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": url,
        "REDIS_URL": args.redis_url,
        "CELERY_BROKER_URL": args.redis_url,
        "TLS_AT_PROXY": "true",  # plain HTTP on loopback
        "STATIC_ROOT": str(folder / "static"),
        # The throttles are not what is measured (an anonymous client counts against both).
        "API_ANON_RATE": "1000000/min",
        "API_USER_RATE": "1000000/min",
        # Nor are the pages' (api/fairuse.py): every request comes from one address.
        "PAGE_ANON_RATE": "1000000/min",
        "PAGE_USER_RATE": "1000000/min",
        "LOG_REQUESTS": "false",
        "DB_STATEMENT_TIMEOUT_S": "0",
    }
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "collectstatic", "--noinput", "-v0"], env=env, cwd=ROOT, check=True)
    log = folder / "gunicorn.log"
    command = [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{port}"]
    command += ["--workers", str(args.workers), "--timeout", "600"]
    server = subprocess.Popen(
        command, env=env, cwd=ROOT, stdout=log.open("w"), stderr=subprocess.STDOUT
    )
    deadline = time.monotonic() + 120
    while True:
        try:
            if OverHttp(port).request("GET", "/healthz").status == 200:
                return server, folder
        except OSError:
            pass
        if time.monotonic() > deadline or server.poll() is not None:
            print(log.read_text())
            raise SystemExit("gunicorn did not start")
        time.sleep(0.3)


def measure_all(bench: Bench, catalogue) -> None:
    from django.urls import reverse

    from advisor import forms
    from advisor.presets import PRESETS
    from platforms.models import Platform

    call = bench.call
    print("\nfloors")
    bench.request(
        "floor_list",
        "GET /api/v1/exchange-rates/ (a tiny DRF list)",
        "GET",
        "/api/v1/exchange-rates/",
    )
    bench.request("floor_trivial", "GET /healthz (a trivial answer)", "GET", "/healthz")
    home = call("GET", "/").body.decode()
    static = re.search(r'/static/css/site[^"]*\.css', home)
    if static:
        bench.request(
            "floor_static", f"GET {static.group()} (a static file)", "GET", static.group()
        )

    print("advice")
    body = json.dumps(SCENARIO)
    bench.request("advise", "POST /api/v1/advise/ (5 tasks)", "POST", "/api/v1/advise/", body)
    if bench.wanted("advise_new"):
        fresh = _new_scenarios()
        bench.measure(
            "advise_new",
            "  each a scenario not asked before",
            lambda: bench.call("POST", "/api/v1/advise/", json.dumps(next(fresh))),
        )
    if any(
        bench.wanted(key)
        for key in ("advise_kept", "advise_build", "advise_engine", "advise_engine_new")
    ):
        advise_split(bench)
    preset = PRESETS[PRESET]
    query = forms.scenario_query(preset.translated_scenario(), preset=preset.slug).urlencode()
    bench.request(
        "advisor_page",
        f"GET /advisor/ with the {PRESET} preset",
        "GET",
        f"{reverse('advisor:index')}?{query}",
    )

    print("catalogue pages")
    slug = (
        catalogue.history_by_platform.most_common(1)[0][0]
        if catalogue.history_by_platform
        else Platform.objects.order_by("slug").values_list("slug", flat=True).first()
    )
    bench.request(
        "platform_page", f"GET /platforms/{slug}/ (the most history)", "GET", f"/platforms/{slug}/"
    )
    bench.request("explorer", "GET /offerings/ (25 rows)", "GET", "/offerings/")
    bench.request(
        "list50", "GET /api/v1/offerings/?page_size=50", "GET", "/api/v1/offerings/?page_size=50"
    )
    bench.request(
        "list_sorted",
        "  ordered by price per GPU-hour",
        "GET",
        "/api/v1/offerings/?page_size=50&ordering=price_per_gpu_hour",
    )
    if bench.wanted("list_deep"):
        # The list is walked by cursor: follow `next` to the 100th page (or the last).
        deep, path = 1, "/api/v1/offerings/?page_size=50"
        while deep < 100:
            following = json.loads(call("GET", path).body)["next"]
            if not following:
                break
            deep, path = deep + 1, following[following.index("/api/") :]
        bench.request("list_deep", f"  page {deep} (its cursor)", "GET", path)
    if catalogue.history_offering_ids:
        offering = catalogue.history_offering_ids[0]
        bench.request(
            "history_day",
            f"GET /api/v1/offerings/{offering}/prices/?bucket=day",
            "GET",
            f"/api/v1/offerings/{offering}/prices/?bucket=day",
        )


def _new_scenarios(start: int = 0) -> Iterator[dict[str, Any]]:
    """The 5-task scenario with, each time, a chat context this process has not seen: its memory
    differs, so neither its placements, fits, ranking nor plan sides are kept from an earlier
    request (what a renter's first question costs, against a question asked again)."""
    n = start
    while True:
        n += 1
        scenario = json.loads(json.dumps(SCENARIO))
        scenario["tasks"][1]["context_len"] = 4096 + 8 * n
        yield scenario


def advise_split(bench: Bench) -> None:
    """advise_scenario() in three parts, in this process: the kept catalogue's version check, a
    rebuild of the catalogue (what the first request after a write pays) and the engine alone."""
    from django.conf import settings
    from django.utils import timezone

    from advisor import services
    from advisor.engine.advise import advise
    from advisor.engine.estimate import estimate
    from advisor.engine.placement import PlacementCache
    from advisor.engine.plans import search_plans

    scenario = services.parse(SCENARIO)
    now = timezone.now()
    catalogue = services.load_catalogue(scenario, now=now)
    bench.measure(
        "advise_kept",
        "  of which: the kept catalogue (version check)",
        lambda: services.load_catalogue(scenario, now=now),
    )
    bench.measure(
        "advise_build",
        "  a catalogue rebuild after a write (once per version)",
        lambda: services.build_catalogue(tier="list", now=now),
    )

    def engine(
        placements: PlacementCache = services.PLACEMENTS, scenario: Any = scenario
    ) -> object:
        estimate(scenario, catalogue.accelerators)
        pricing = {
            "now": now,
            "rates": catalogue.rates,
            "storage_prices": catalogue.storage,
            "stale_after_days": settings.PRICE_STALE_AFTER_DAYS,
            "placements": placements,
        }
        advice = advise(
            scenario,
            catalogue.offerings,
            catalogue.accelerators,
            platforms=catalogue.platforms,
            index=catalogue.index,
            **pricing,
        )
        cheapest = min(advice.recommendations, key=lambda r: r.cost)
        return search_plans(
            scenario,
            catalogue.offerings,
            catalogue.accelerators,
            cheapest=cheapest,
            index=catalogue.index,
            **pricing,
        )

    bench.measure(
        "advise_engine",
        "  of which: the engine (estimate, rank, plans; no database)",
        engine,
    )
    # A scenario not asked before: neither its placements and fits (a fresh placement cache)
    # nor its ranking and plan sides (kept by the catalogue's index) are kept.
    fresh = _new_scenarios(start=10_000)
    bench.measure(
        "advise_engine_new",
        "  the engine, a scenario not asked before",
        lambda: engine(PlacementCache(), services.parse(next(fresh))),
    )


def table(bench: Bench) -> None:
    floor = bench.figures.get("floor_list")
    print(
        f"\n  {'request':<58} {'p50':>8} {'p95':>8} {'x floor':>8} {'runs':>5} {'queries':>7}"
        f" {'HTML KB':>8} {'gzip KB':>8}"
    )
    for f in bench.figures.values():
        times = f"{f.p50:8.1f} {f.p95:8.1f}"
        ratio = f"{f.p50 / floor.p50:8.1f}" if floor and floor.p50 else f"{'-':>8}"
        queries = "-" if f.queries is None else str(f.queries)
        size = f"{f.size / 1024:8.1f}" if f.size is not None else f"{'-':>8}"
        packed = f"{f.gzipped / 1024:8.1f}" if f.gzipped is not None else f"{'-':>8}"
        line = f"  {f.name[:58]:<58} {times} {ratio} {len(f.times):5} {queries:>7} {size} {packed}"
        print(line + (f"  ({f.note})" if f.note else ""))


def summary(results: dict[int, dict[str, Figure]]) -> None:
    print("\nSummary against the targets (p50; informative, never a failure):")
    for offerings, figures in results.items():
        floor = figures.get("floor_list")
        print(f"  {offerings:,} offerings")
        for key, most_ms, most_x, most_kb in TARGETS:
            f = figures.get(key)
            if f is None:
                continue
            checks = [f.p50 <= most_ms]
            text = f"{f.p50:7.1f} ms (<= {most_ms})"
            if most_x is not None and floor is not None:
                ratio = f.p50 / floor.p50
                checks.append(ratio <= most_x)
                text += f", {ratio:5.1f} x floor (<= {most_x})"
            if most_kb is not None and f.size is not None:
                checks.append(f.size / 1024 <= most_kb)
                text += f", {f.size / 1024:6.1f} KB (<= {most_kb})"
            verdict = "meets" if all(checks) else "misses"
            print(f"    {f.name.strip()[:52]:<52} {text}  {verdict}")
    if all("advise" in results.get(size, {}) for size in (10_000, 100_000)):
        ten, hundred = results[10_000]["advise"].p50, results[100_000]["advise"].p50
        verdict = "meets" if hundred <= 3 * ten else "misses"
        print(f"  advise at 100k offerings: {hundred / ten:.1f} x its 10k figure (<= 3)  {verdict}")


if __name__ == "__main__":
    main()
