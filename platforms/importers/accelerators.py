"""Resolving a catalog's GPU name (and per-GPU memory, where stated) to one Accelerator row.

Catalogs name GPUs their own way ("A100", "NVIDIA A100-SXM4-80GB", "H100 PCIe"); the accelerator
table's aliases, the stated memory and form-factor words in the instance type choose, and a name
that still fits several accelerators, or none, is reported rather than guessed.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TypeGuard

from platforms.models import Accelerator, AcceleratorAlias, normalise_alias

from .rows import shown

# Per-GPU memory a catalog states and the accelerator's VRAM differ by rounding (B200: 183,359 MiB
# = 179.06 GiB against 180 GiB); 5 % tells 40 from 48 and 80 from 94 GB apart.
MEMORY_TOLERANCE = Decimal("0.05")
# The table gives VRAM as the maker markets it, which for some cards is decimal gigabytes while a
# catalog states binary MiB: a 48 GB L40S is 46,068 MiB (44.99 GiB) on Vast, a 288 GB B300
# 268,288 MiB (262 GiB) on Verda. A stated figure may match either reading of the table's.
GIB_PER_GB = Decimal(10**9) / Decimal(2**30)
# Words in an instance type or GPU string that tell form factors of a GPU apart (H100 PCIe/SXM/NVL).
FORM_FACTOR_WORDS = ("pcie", "sxm", "nvl")


def _is_form_of(alias: str, key: str) -> bool:
    """`alias` is `key` followed by a form-factor word: a form of the same card."""
    return alias.startswith(key) and alias[len(key) :].startswith(FORM_FACTOR_WORDS)


class Unresolved(ValueError):
    """An accelerator name that matches no accelerator, or more than one."""


def _memory_matches(accelerator: Accelerator, memory_gib: Decimal) -> bool:
    return any(
        abs(vram - memory_gib) <= vram * MEMORY_TOLERANCE
        for vram in (accelerator.vram_gib, accelerator.vram_gib * GIB_PER_GB)
    )


class AcceleratorResolver:
    """Turns a catalog's GPU name (and per-GPU memory, where stated) into an accelerator.

    The rule, in order:
    1. Candidates: accelerators with an alias that is the name, or the name followed by a
       form-factor word ("A100" finds "A100-SXM4-80GB" and "A100-PCIE-40GB"), whose VRAM agrees
       with the stated memory (within 5 %). Any other continuation names another model, never a
       form of this one: "L40" is not "L40S", "RTX 3080" not "RTX 3080 Ti", "A10" not "A100".
    2. A form-factor word (pcie, sxm, nvl) in the instance type or GPU string that exactly one
       candidate's slug carries picks that one (Lambda's gpu_1x_h100_pcie is the PCIe H100).
    3. Else `<name>-<memory>gb` as an alias ("A100" with 40 GiB per GPU -> "A100-40GB"), else the
       name itself as an alias, when its VRAM agrees with the stated memory.
    4. Else the only candidate. Several or none raise Unresolved naming the name and memory:
       nothing is guessed. A name the platforms use without its form ("H100") or memory ("A100")
       is an alias of its own accelerator row, whose figures are the lower of the forms it may be
       (fixtures/accelerators.json, "form not stated"), so such a row is kept, not dropped.
    """

    def __init__(self) -> None:
        self.by_alias: dict[str, Accelerator] = {
            alias.normalised: alias.accelerator
            for alias in AcceleratorAlias.objects.select_related("accelerator")
        }
        # A catalog repeats a few GPU names thousands of times.
        self._known: dict[tuple[object, ...], Accelerator | str] = {}

    def resolve(self, name: str, memory_gib: Decimal | None = None, hint: str = "") -> Accelerator:
        words = tuple(word for word in FORM_FACTOR_WORDS if word in normalise_alias(hint))
        cache_key = (normalise_alias(name), memory_gib, words)
        if cache_key not in self._known:
            try:
                self._known[cache_key] = self._resolve(name, memory_gib, words)
            except Unresolved as exc:
                self._known[cache_key] = str(exc)
        found = self._known[cache_key]
        if isinstance(found, str):
            raise Unresolved(found)
        return found

    def _resolve(
        self, name: str, memory_gib: Decimal | None, words: tuple[str, ...]
    ) -> Accelerator:
        key = normalise_alias(name)
        if not key:
            raise Unresolved("no accelerator name")

        def fits(accelerator: Accelerator | None) -> TypeGuard[Accelerator]:
            return accelerator is not None and (
                memory_gib is None or _memory_matches(accelerator, memory_gib)
            )

        candidates = {
            accelerator.pk: accelerator
            for alias, accelerator in self.by_alias.items()
            if (alias == key or _is_form_of(alias, key)) and fits(accelerator)
        }
        by_form = [
            accelerator
            for accelerator in candidates.values()
            if any(word in accelerator.slug for word in words)
        ]
        if len(by_form) == 1:
            return by_form[0]
        if memory_gib is not None:
            sized = self.by_alias.get(f"{key}{int(memory_gib.to_integral_value())}gb")
            if fits(sized):
                return sized
        exact = self.by_alias.get(key)
        if fits(exact):
            return exact
        if len(candidates) == 1:
            return next(iter(candidates.values()))
        memory = "" if memory_gib is None else f" with {memory_gib.normalize():f} GiB per GPU"
        if candidates:
            slugs = ", ".join(sorted(acc.slug for acc in candidates.values()))
            raise Unresolved(f"ambiguous accelerator {shown(name)}{memory}: could be {slugs}")
        raise Unresolved(f"unknown accelerator {shown(name)}{memory}")
