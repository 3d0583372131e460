"""Usable memory of a GPU or MIG slice, and the fill level above which we warn of OOM risk.

The nominal capacity on a card's name is not what a process can allocate: the driver, ECC and
firmware reserve part of it. Published nvidia-smi output shows 79.25 GiB on a 7g.80gb MIG slice
(0.94 % below nominal) and 39.50 GiB on a 4g.40gb slice (1.25 % below). We take the larger of the
two fractions, with a floor of 256 MiB so that small slices (1g.5gb, 1g.6gb) keep a realistic
reserve. The CUDA context and allocator overhead of the process itself is counted by the memory
model (memory.py), not here (docs/memory-model.md, "Overhead and usable memory").
"""

from __future__ import annotations

from advisor.engine.types import GiB

# A 4g.40gb slice shows 39.50 GiB of 40 in nvidia-smi -> 1.25 % reserved (the worst of the two).
RESERVE_FRACTION = 0.0125
# Floor for small slices; same order as the 0.5 GiB lower end of the ~0.5-1 GiB a CUDA context
# and allocator take (docs/memory-model.md), halved because this is the driver's share only.
RESERVE_MIN_BYTES = 256 * 2**20
# Warn of OOM risk above 90 % of usable memory (docs/advisor-rules.md); the same 0.9 is the
# default of vLLM's gpu_memory_utilization engine argument.
OOM_RISK_FRACTION = 0.9
# A paged-KV server (vLLM, SGLang) is sized by its engine's memory pool instead: its need already
# holds the pool (memory.GPU_MEMORY_UTILIZATION, vLLM's `gpu_memory_utilization`, "the fraction of
# GPU memory to be used for the model executor ... default value of 0.9",
# https://docs.vllm.ai/en/latest/models/engine_args.html), so it fills the card by design and is
# not warned for it (placement._warnings).
# A training task with less than 5 % of usable memory free ranks after plans with headroom at
# equal cost, with its figure shown: a training peak moves with the batch the run meets, and the
# memory model is held to published figures within 2 % (model states, ZeRO, arXiv:1910.02054) to
# 10 % (measured training peaks with activations, Lightning-AI/litgpt tutorials/resource-tables.md;
# tests/advisor/engine/test_memory_published.py): under 5 % free, the fit rests on the estimate
# being right within half its tested error.
TIGHT_TRAINING_FRACTION = 0.05


def usable_bytes(capacity_gib: float) -> int:
    """Bytes a process can allocate on a GPU or slice of nominal `capacity_gib` GiB."""
    nominal = int(capacity_gib * GiB)
    reserve = max(int(nominal * RESERVE_FRACTION), RESERVE_MIN_BYTES)
    return max(nominal - reserve, 0)
