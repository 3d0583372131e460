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


def usable_bytes(capacity_gib: float) -> int:
    """Bytes a process can allocate on a GPU or slice of nominal `capacity_gib` GiB."""
    nominal = int(capacity_gib * GiB)
    reserve = max(int(nominal * RESERVE_FRACTION), RESERVE_MIN_BYTES)
    return max(nominal - reserve, 0)
