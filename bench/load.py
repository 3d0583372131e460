"""A bounded load test: gunicorn with production settings on PostgreSQL and Redis, on loopback,
sent a fixed number of requests from a fixed number of concurrent clients; prints throughput,
p50 and p99 latency and errors, overall and per kind of request.

The mix repeats every 10 requests: 4 pages (comparison, explorer, a platform page with its chart,
the advisor form), 4 API reads (platforms, offerings sorted by price per GPU-hour, accelerators,
one offering's price history) and 2 advise calls (the README's "training + inference mixed"
scenario). The database is a throw-away one created beside the one --database-url names, migrated
and seeded (manage.py load_seed), then dropped; gunicorn runs `--workers` sync workers. Every
request is one new connection, as gunicorn's sync workers close each. Exits 1 if any request
failed (a status other than 200, or no answer); asserts nothing about time.

Run: .venv/bin/python bench/load.py [--requests 2000] [--concurrency 8] [--workers 2]
     [--database-url postgres://postgres@127.0.0.1:5432/postgres] [--redis-url redis://...]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent

SCENARIO = {
    "tasks": [
        {
            "name": "daytime inference",
            "kind": "inference",
            "model": "llama-3.1-8b",
            "precision": "bf16",
            "context_len": 8192,
            "concurrent_sequences": 16,
            "when": "day",
            "hours_per_month": 360,
        },
        {
            "name": "night fine-tune",
            "kind": "full_finetune",
            "model": "llama-3.1-8b",
            "precision": "bf16",
            "sharding": "zero3",
            "activation_checkpointing": "full",
            "seq_len": 4096,
            "tokens": 1e9,
            "gpus": 8,
            "when": "night",
            "hours_per_month": 360,
        },
    ],
    "constraints": {"currency": "CNY"},
    "objective": "balanced",
}
ADVISE_BODY = json.dumps(SCENARIO).encode()


def mix(history_path: str) -> list[tuple[str, str, str]]:
    """(kind, method, path) for one round of 10 requests."""
    return [
        ("page", "GET", "/"),
        ("api", "GET", "/api/v1/platforms/"),
        ("page", "GET", "/offerings/"),
        ("api", "GET", "/api/v1/offerings/?ordering=price_per_gpu_hour"),
        ("advise", "POST", "/api/v1/advise/"),
        ("page", "GET", "/platforms/autodl/"),
        ("api", "GET", "/api/v1/accelerators/"),
        ("page", "GET", "/advisor/"),
        ("api", "GET", history_path),
        ("advise", "POST", "/api/v1/advise/"),
    ]


def _postgres(url: str, statement: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(statement)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _request(port: int, method: str, path: str) -> tuple[int, float]:
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        body = ADVISE_BODY if method == "POST" else None
        headers = {"Content-Type": "application/json"} if body else {}
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        response.read()
        status = response.status
    except OSError:
        status = 0
    finally:
        connection.close()
    return status, (time.perf_counter() - started) * 1000


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/11")
    args = parser.parse_args()

    parts = urlsplit(args.database_url)
    if parts.scheme not in ("postgres", "postgresql"):
        raise SystemExit("--database-url: a postgres:// URL")
    name = f"gpu_advisor_load_{os.getpid()}"
    admin_url = urlunsplit(("postgresql", parts.netloc, parts.path or "/postgres", "", ""))
    database_url = urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, ""))
    folder = Path(tempfile.mkdtemp(prefix="gpu-advisor-load-"))
    port = _free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.prod",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": database_url,
        "REDIS_URL": args.redis_url,
        "CELERY_BROKER_URL": args.redis_url,
        "TLS_AT_PROXY": "true",  # plain HTTP on loopback
        "STATIC_ROOT": str(folder / "static"),
        # The throttles are not what is measured: an anonymous client is counted by both the
        # anonymous and the user throttle (DRF's UserRateThrottle keys anonymous requests by
        # address too), so both are lifted.
        "API_ANON_RATE": "1000000/min",
        "API_USER_RATE": "1000000/min",
        # Nor are the pages' (api/fairuse.py): every request comes from one address.
        "PAGE_ANON_RATE": "1000000/min",
        "PAGE_USER_RATE": "1000000/min",
        "LOG_REQUESTS": "false",
    }
    manage = [sys.executable, "manage.py"]
    _postgres(admin_url, f'CREATE DATABASE "{name}"')
    server = None
    try:
        setup = {**env, "DB_STATEMENT_TIMEOUT_S": "0"}
        for command in (
            ["migrate", "--noinput", "-v0"],
            ["load_seed"],
            ["collectstatic", "--noinput", "-v0"],
        ):
            subprocess.run(
                [*manage, *command], env=setup, cwd=ROOT, check=True, stdout=subprocess.DEVNULL
            )
        import psycopg

        with psycopg.connect(database_url) as conn:
            row = conn.execute(
                "SELECT offering_id FROM platforms_priceobservation ORDER BY offering_id LIMIT 1"
            ).fetchone()
        history = f"/api/v1/offerings/{row[0]}/prices/?bucket=week" if row else "/api/v1/"
        log = folder / "gunicorn.log"
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "config.wsgi",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                str(args.workers),
            ],
            env=env,
            cwd=ROOT,
            stdout=log.open("w"),
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while _request(port, "GET", "/readyz")[0] != 200:
            if time.monotonic() > deadline or server.poll() is not None:
                print(log.read_text())
                raise SystemExit("gunicorn did not become ready")
            time.sleep(0.3)
        plan = [mix(history)[n % 10] for n in range(args.requests)]
        for _kind, method, path in mix(history):  # warm-up: each kind once
            _request(port, method, path)
        started = time.perf_counter()
        with ThreadPoolExecutor(args.concurrency) as pool:
            results = list(
                pool.map(lambda item: (item[0], *_request(port, item[1], item[2])), plan)
            )
        wall = time.perf_counter() - started
    finally:
        if server is not None:
            server.terminate()
            server.wait(10)
        _postgres(admin_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    by_kind: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    for kind, status, ms in results:
        by_kind[kind].append(ms)
        if status != 200:
            errors[f"{kind} {status}"] += 1
    every = [ms for _kind, _status, ms in results]
    print(
        f"{args.requests} requests, {args.concurrency} concurrent, gunicorn {args.workers} "
        f"sync workers, PostgreSQL, production settings"
    )
    print(
        f"  all     {len(every) / wall:7.1f} req/s  p50 {statistics.median(every):7.1f} ms  "
        f"p99 {percentile(every, 0.99):7.1f} ms  errors {sum(errors.values())}"
    )
    for kind in ("page", "api", "advise"):
        values = by_kind[kind]
        print(
            f"  {kind:<7} {len(values):7d} reqs   p50 {statistics.median(values):7.1f} ms  "
            f"p99 {percentile(values, 0.99):7.1f} ms"
        )
    for what, count in sorted(errors.items()):
        print(f"  error: {what} x {count}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
