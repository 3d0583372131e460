"""Benchmark of the advisor engine: a 5-task scenario over 10,000 synthetic offerings.

The target (docs/advisor-rules.md): the advisor answers a 5-task scenario over 10,000 offerings
in <= 100 ms (p50, HTTP, 2 cores). This measures the engine alone (no database, no HTTP), so it
should sit well below. Each size is timed cold (nothing kept), warm (the scenario asked again,
with the placement cache and the index kept, as the site keeps them) and for a scenario not asked
before in each run (estimate, ranking and the plans across platforms).
Offerings are random but deterministic (fixed seed) over the accelerators in
fixtures/accelerators.json. Prints figures; asserts nothing about time.

Sizes: BENCH_SIZE=small (the default, what `make bench` and CI run: 1,000 offerings, 5 runs) or
BENCH_SIZE=full (1,000, 10,000 and 100,000 offerings, 20 runs); --offerings overrides either.

Run: .venv/bin/python bench/bench_advise.py [--offerings 10000,100000] [--runs 20]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import sys
import time
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from advisor.engine.advise import advise
from advisor.engine.estimate import estimate
from advisor.engine.hardware import load_accelerators
from advisor.engine.placement import PlacementCache
from advisor.engine.plans import search_plans
from advisor.engine.prune import OfferingIndex
from advisor.engine.scenario import parse_scenario
from advisor.engine.types import (
    AcceleratorSpec,
    ExchangeRateSpec,
    OfferingSpec,
    PriceSpec,
    StoragePriceSpec,
)
from ops.collector import DEFAULT_THRESHOLD, set_threshold

NOW = datetime(2026, 10, 2)
SEED = 20261002
PLATFORMS = [
    ("autodl", "AutoDL", "instance"),
    ("gpushare", "恒源云", "instance"),
    ("matpool", "矩池云", "instance"),
    ("virtaicloud", "趋动云", "pooled"),
    ("ai-galaxy", "智星云", "mig"),
    ("suanjiayun", "算家云", "instance"),
    ("featurize", "Featurize", "instance"),
    ("openbayes", "OpenBayes", "instance"),
    ("lambda", "Lambda", "instance"),
    ("runpod", "RunPod", "instance"),
    ("aws", "AWS", "instance"),
    ("hpc", "Univ. HPC", "mig"),
]
# CFETS central parity, CNY per USD on 2026-09-30 (docs/billing-rules.md, "Currency").
RATES = (ExchangeRateSpec("USD", "CNY", Decimal("6.7351"), datetime(2026, 9, 30), "CFETS"),)
STORAGE = (
    StoragePriceSpec("autodl", "gb_day", Decimal("0.007"), "CNY", NOW, billed_while_stopped=True),
    StoragePriceSpec(
        "gpushare", "gb_hour", Decimal("0.0004"), "CNY", NOW, 100, billed_while_stopped=False
    ),
)
SCENARIO = {
    "tasks": [
        {
            "name": "night fine-tune",
            "kind": "lora",
            "model": "llama-3.1-8b",
            "tokens": 5e8,
            "activation_checkpointing": "full",
            "when": "night",
            "hours_per_month": 300,
        },
        {
            "name": "chat api",
            "kind": "inference",
            "model": "llama-3.1-8b",
            "context_len": 8192,
            "concurrent_sequences": 4,
            "when": "day",
            "hours_per_month": 300,
        },
        {"name": "sdxl api", "kind": "inference", "model": "sdxl", "isolation": "soft"},
        {"name": "render", "kind": "fixed", "vram_gib": 20, "when": "burst", "hours_per_month": 40},
        {"name": "notebook", "kind": "fixed", "vram_gib": 6, "isolation": "soft"},
    ],
    "constraints": {"currency": "CNY", "storage_gb": 300},
    "objective": "balanced",
}


def synthetic_offerings(
    accelerators: dict[str, AcceleratorSpec], n: int, seed: int = SEED
) -> list[OfferingSpec]:
    rng = random.Random(seed)
    accels = list(accelerators.values())
    out = []
    for i in range(n):
        accel = rng.choice(accels)
        slug, name, multi_task = rng.choice(PLATFORMS)
        gpus = rng.choice((1, 1, 1, 2, 4, 8))
        sharing, slice_name, pooled = "exclusive", None, None
        roll = rng.random()
        if accel.mig_profiles and roll < 0.15:
            sharing, gpus = "mig", 1
            slice_name = rng.choice([p.name for p in accel.mig_profiles])
        elif roll < 0.25:
            sharing, gpus, pooled = "pooled", 1, rng.choice((6.0, 12.0, accel.vram_gib / 2))
        usd = slug in ("lambda", "runpod", "aws")
        hourly = Decimal(str(round(rng.uniform(0.2, 4.0) * gpus * (1 if usd else 7), 2)))
        prices = [_price("hour", hourly, usd, rng)]
        if rng.random() < 0.4:
            prices.append(_price("month", hourly * Decimal(rng.randint(400, 600)), usd, rng))
        if rng.random() < 0.2:
            prices.append(_price("day", hourly * Decimal(rng.randint(18, 23)), usd, rng))
        out.append(
            OfferingSpec(
                id=i,
                platform=slug,
                platform_name=name,
                name=f"{gpus}x {accel.name} #{i}",
                accelerator=accel,
                gpu_count=gpus,
                sharing=sharing,  # type: ignore[arg-type]
                mig_profile=slice_name,
                pooled_vram_gib=pooled,
                interconnect="nvlink"
                if accel.nvlink and gpus > 1 and rng.random() < 0.7
                else "pcie",
                multi_task=multi_task,  # type: ignore[arg-type]
                physically_exclusive=rng.random() < 0.3,
                interruptible=rng.random() < 0.1,
                retention_after_expiry=rng.choice((True, False, None)),
                prices=tuple(prices),
            )
        )
    return out


def _price(unit: str, amount: Decimal, usd: bool, rng: random.Random) -> PriceSpec:
    return PriceSpec(
        unit=unit,  # type: ignore[arg-type]
        amount=amount,
        currency="USD" if usd else "CNY",
        observed_at=NOW - timedelta(days=rng.randint(0, 45)),
        source="synthetic",
    )


# BENCH_SIZE=small (the default, `make bench` and CI) or full (the targets' scale).
SIZES = {
    "small": {"offerings": "1000", "runs": 5, "cold": 2},
    "full": {"offerings": "1000,10000,100000", "runs": 20, "cold": 5},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    size = os.environ.get("BENCH_SIZE", "small")
    if size not in SIZES:
        parser.error(f"BENCH_SIZE: one of {', '.join(SIZES)}, not {size!r}")
    defaults = SIZES[size]
    parser.add_argument("--offerings", default=defaults["offerings"], help="comma-separated")
    parser.add_argument("--runs", type=int, default=defaults["runs"])
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--cold", type=int, default=defaults["cold"])
    args = parser.parse_args()
    # The collector as a web worker runs it (config/wsgi.py): a new scenario keeps tens of
    # thousands of objects, which Python's thresholds scan again and again (ops/collector.py).
    set_threshold(int(os.environ.get("GC_GEN0_THRESHOLD", DEFAULT_THRESHOLD)))
    figures = {n: bench(int(n), args) for n in args.offerings.split(",") if n}
    if "10000" in figures and "100000" in figures:
        ratio = figures["100000"] / figures["10000"]
        print(f"\nwarm p50 at 100,000 offerings: {ratio:.1f} x its 10,000 figure")


def bench(n: int, args: argparse.Namespace) -> float:
    accelerators = load_accelerators()
    offerings = synthetic_offerings(accelerators, n)
    scenario = parse_scenario(SCENARIO)
    start = time.perf_counter()
    index = OfferingIndex(offerings)
    indexed = (time.perf_counter() - start) * 1000
    # As the site keeps a large catalogue (advisor.snapshot.settle): out of the collector's
    # generations, so that a full collection does not scan it again in a timed call.
    gc.collect()
    gc.freeze()

    kept = PlacementCache()

    def run(
        placements: PlacementCache | None = kept,
        grouped: OfferingIndex | None = index,
        scenario: Any = scenario,
    ) -> Any:
        return advise(
            scenario,
            offerings,
            accelerators,
            now=NOW,
            rates=RATES,
            storage_prices=STORAGE,
            placements=placements,
            index=grouped,
        )

    cold = []
    for _ in range(args.cold):
        start = time.perf_counter()
        run(None, None)
        cold.append((time.perf_counter() - start) * 1000)
    for _ in range(args.warmup):
        advice = run()
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        advice = run()
        times.append((time.perf_counter() - start) * 1000)
    # A scenario not asked before each time: the chat task's context changes, so its memory, and
    # so its placements, fits, ranking and plan sides, are new (what a renter's first question
    # costs); estimate, ranking and the plans across platforms, as the site answers it.
    fresh = []
    for k in range(args.runs):
        data = json.loads(json.dumps(SCENARIO))
        data["tasks"][1]["context_len"] = 4096 + 8 * (k + 1)
        other = parse_scenario(data)
        start = time.perf_counter()
        estimate(other, accelerators)
        answer = run(scenario=other)
        cheapest = min(answer.recommendations, key=lambda r: r.cost)
        search_plans(
            other,
            offerings,
            accelerators,
            now=NOW,
            rates=RATES,
            storage_prices=STORAGE,
            placements=kept,
            cheapest=cheapest,
            index=index,
        )
        fresh.append((time.perf_counter() - start) * 1000)
    times.sort()
    p50 = statistics.median(times)
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    print(f"\nofferings: {len(offerings)}, tasks: {len(scenario.tasks)}, runs: {args.runs}")
    print(
        f"cold (no placement cache, with its MIG packings, and no index kept) p50 "
        f"{statistics.median(cold):.1f} ms over {len(cold)}"
    )
    print(f"grouping the offerings by shape (prune.OfferingIndex, kept) {indexed:.1f} ms")
    print(
        f"warm (placement cache and index kept) p50 {p50:.1f} ms, p95 {p95:.1f} ms, "
        f"min {times[0]:.1f} ms"
    )
    print(f"throughput at p50: {len(offerings) / (p50 / 1000):,.0f} offerings/s")
    fresh.sort()
    print(
        f"a scenario not asked before each run (estimate, ranking and plans) p50 "
        f"{statistics.median(fresh):.1f} ms, p95 "
        f"{fresh[min(len(fresh) - 1, round(0.95 * (len(fresh) - 1)))]:.1f} ms"
    )
    print(f"fitting: {advice.fitting}, pareto: {len(advice.pareto)}")
    print(f"rejected: { {code.value: n for code, n in advice.rejected.items()} }")
    top = advice.recommendations[0]
    print(f"top: {top.offering_name} on {top.platform_name}, {top.monthly_cost:.2f} CNY/month")
    return p50


if __name__ == "__main__":
    main()
