"""SkyPilot catalog files (`catalogs/v8/<cloud>/vms.csv` in skypilot-org/skypilot-catalog).

Columns are found by name: each cloud orders them differently (Lambda puts Price before Region,
RunPod SpotPrice before Price) and some add columns (AWS `Arch`, Azure `Generation`, Verda
`UpstreamCloudId`), which are ignored. Prices are USD per instance-hour, for all the instance's
GPUs together.

Each cloud's fetcher writes the file its own way (its dialect). The import's platform names the
cloud (`cloud_of`); traps, each with a test in tests/importers/test_skypilot.py and
tests/importers/test_skypilot_clouds.py:

- GpuInfo is a Python literal (AWS, Lambda, RunPod, Nebius, Vast, GCP), a Python literal with
  JSON's `null` (Hyperstack's `'Manufacturer': null`), JSON (Verda), or only the GPU's name
  (Azure: `K80`, `A100-80GB`). It is parsed, never evaluated.
- Memory: `GpuInfo["Gpus"][0]["MemoryInfo"]["SizeInMiB"]` is per GPU on most clouds, but the
  total of all the instance's GPUs on Vast and Verda (`SIZE_IS_TOTAL`: Vast's `2x-RTX_4090` says
  49,128 MiB, two 24 GB cards; Verda's 8x B300 2,150,400 MiB). `TotalGpuMemoryInMiB` is the total
  on most clouds, the per-GPU figure again on Lambda, and Verda multiplies its total again. A
  multi-GPU row whose two figures are equal is per GPU on Lambda and a total on Vast: on a cloud
  whose dialect is not known it cannot be read, and is an error rather than a guess.
- RunPod writes GiB into the MiB field (`SizeInMiB: 80` for an 80 GB A100). No GPU has less than
  1 GiB, so a "MiB" value under 1024 is read as GiB.
- Verda's AcceleratorName may end with the instance's total (`A100-80GB-640GB` for 8 GPUs): a
  suffix equal to the count times the card's own size is dropped.
- Vast writes vCPUs 32 and MemoryGiB 64 on every row, not the host's: they are not stored.
- GCP prices A100, H100, H200, B200 and L4 GPUs in their own rows (empty InstanceType) apart from
  the host VM they come in (a2/a3/a4/g2 rows with no AcceleratorName). As SkyPilot does
  (sky/catalog/gcp_catalog.py, `_ACC_INSTANCE_TYPE_DICTS`), a GPU row is joined to the host VM
  row of the same zone whose machine type holds that many of that GPU, and the offering costs the
  host's price plus the GPUs' (spot: both spot prices). The file lists host rows before GPU rows;
  a GPU row whose host has no row before it in its zone is skipped with that reason, and so is a
  GPU that GCP attaches to a VM of the renter's choosing (T4, V100 on N1), which has no one host.
- AWS and GCP list one row per availability zone. Zones collapse into one offering per (instance
  type, region); where their prices differ (spot prices do) the lowest is kept, as SkyPilot's
  optimizer picks the cheapest zone. The folded rows are counted as merged.
- A row without a Price (AWS p5e, Azure NV*as_v4 in some regions) is skipped with its reason, even
  when it has a SpotPrice: a spot price alone does not describe an offering anyone can rent on
  demand. A SpotPrice of 0 (Vast) means no spot offer.
- A SpotPrice makes a second, interruptible offering whose key ends in `:spot`.
- A row that names no GPU (AcceleratorName and GpuInfo empty) is skipped: a CPU-only instance, or
  on Azure and GCP possibly one whose GPU the catalog leaves unnamed (`NAMELESS_GPUS`).
- A GPU count its maker documents otherwise (`WRONG_COUNTS`: Azure's ND96isr_H100_v5 listed with
  12 GPUs; it has 8) is skipped with the documented count: neither stored wrong nor corrected.
- Interconnect is not in the file: it comes from the instance family (`interconnect_for`), so
  p4d/p5/p6-b200 and Lambda's gpu_8x_a100 (SXM4, though its name does not say so) are NVLink.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from functools import lru_cache, partial

from .interconnect import interconnect_for
from .rows import (
    MAX_INTEGER_DIGITS,
    PRICE_PLACES,
    OfferRow,
    Parsed,
    PriceRow,
    Reader,
    RowError,
    Skip,
    Text,
    decimal_value,
    offer_rows,
    parse_all,
    price_value,
    ram_value,
    shown,
)

# SpotPrice and AvailabilityZone are optional: not every cloud's file has them.
REQUIRED = (
    "InstanceType",
    "AcceleratorName",
    "AcceleratorCount",
    "vCPUs",
    "MemoryGiB",
    "GpuInfo",
    "Price",
    "Region",
)
# GpuInfo is a small dict; anything much longer is not a catalog row and could make the literal
# parser recurse deeply.
MAX_GPU_INFO = 10_000
MIB_PER_GIB = Decimal(1024)

# Zones of one instance type and region fold into one offering, at the lowest price.
SAME_UNIT = "lowest"

# --- cloud dialects ------------------------------------------------------------------------------

# Platform slugs of this catalogue that name a SkyPilot cloud (a `catalogs/v8/<cloud>` folder)
# differently; any other slug is taken as the cloud's own name.
CLOUD_OF_PLATFORM = {"vastai": "vast", "datacrunch": "verda"}
# Clouds whose SizeInMiB is the memory of all the instance's GPUs together (the samples in
# tests/importers/data: Vast `2x-A100_SXM4` 81,920 MiB for two 40 GB cards; Verda `2A100.44V`
# 163,840 MiB for two 80 GB cards, its TotalGpuMemoryInMiB 327,680 doubling it again).
SIZE_IS_TOTAL = frozenset({"vast", "verda"})
# Clouds whose TotalGpuMemoryInMiB repeats the per-GPU SizeInMiB (Lambda's gpu_8x_a100: 40,960).
TOTAL_IS_PER_GPU = frozenset({"lambda"})
# Clouds whose catalog leaves some GPU machine types' GPU unnamed, so that a row naming no GPU is
# not known to be CPU-only (Azure's NC*ads_A10_v4, NCC40ads_H100_v5, NG*_V620; GCP's a3-edgegpu).
NAMELESS_GPUS = frozenset({"azure", "gcp"})
# Clouds whose vCPUs and MemoryGiB are fixed values, not the host's (Vast: 32 and 64 on every row).
NO_HOST_FIGURES = frozenset({"vast"})

# GPU counts a catalog states that the instance type's maker documents otherwise. Such a row is
# skipped with the documented figure: storing it would put the wrong memory in front of the
# advisor, and correcting it silently would hide a catalog error.
WRONG_COUNTS = {
    # Azure's ND H100 v5 series: "8x H100" per VM; SkyPilot's Azure catalog lists 12.
    "Standard_ND96isr_H100_v5": (
        8,
        "https://learn.microsoft.com/en-us/azure/virtual-machines/sizes/gpu-accelerated/"
        "ndh100v5-series",
    ),
}

# GCP: the host machine types of each GPU and count, as SkyPilot's GCP catalog reads its own file
# (skypilot-org/skypilot sky/catalog/gcp_catalog.py, `_ACC_INSTANCE_TYPE_DICTS`, after
# https://cloud.google.com/compute/docs/gpus: "If A100 is used, host VM type must be A2; if L4 is
# used, VM type must be G2"). A GPU not listed here is attached to an N1 VM the renter chooses.
GCP_HOSTS: dict[tuple[str, int], tuple[str, ...]] = {
    ("A100", 1): ("a2-highgpu-1g",),
    ("A100", 2): ("a2-highgpu-2g",),
    ("A100", 4): ("a2-highgpu-4g",),
    ("A100", 8): ("a2-highgpu-8g",),
    ("A100", 16): ("a2-megagpu-16g",),
    ("A100-80GB", 1): ("a2-ultragpu-1g",),
    ("A100-80GB", 2): ("a2-ultragpu-2g",),
    ("A100-80GB", 4): ("a2-ultragpu-4g",),
    ("A100-80GB", 8): ("a2-ultragpu-8g",),
    ("L4", 1): (
        "g2-standard-4",
        "g2-standard-8",
        "g2-standard-12",
        "g2-standard-16",
        "g2-standard-32",
    ),
    ("L4", 2): ("g2-standard-24",),
    ("L4", 4): ("g2-standard-48",),
    ("L4", 8): ("g2-standard-96",),
    ("H100", 1): ("a3-highgpu-1g",),
    ("H100", 2): ("a3-highgpu-2g",),
    ("H100", 4): ("a3-highgpu-4g",),
    ("H100", 8): ("a3-highgpu-8g",),
    ("H100-MEGA", 8): ("a3-megagpu-8g",),
    ("H200", 8): ("a3-ultragpu-8g",),
    ("B200", 8): ("a4-highgpu-8g",),
}
GCP_HOST_TYPES = frozenset(host for hosts in GCP_HOSTS.values() for host in hosts)


def cloud_of(platform_slug: str) -> str:
    """The SkyPilot cloud whose dialect a platform's catalog is read in."""
    slug = platform_slug.strip().lower()
    return CLOUD_OF_PLATFORM.get(slug, slug)


def read(text: Text, parsed: Parsed, *, cloud: str = "") -> Iterator[OfferRow]:
    """The file's offers, read in the dialect of `cloud` (a platform slug or a SkyPilot cloud)."""
    reader = _Reader(cloud_of(cloud))
    return offer_rows(text, parsed, required=REQUIRED, offers=reader.offers)


def reader_for(cloud: str) -> Reader:
    """`read` in the dialect of `cloud` (a platform slug or a SkyPilot cloud)."""
    return partial(read, cloud=cloud)


def parse(text: Text, cloud: str = "") -> Parsed:
    return parse_all(text, reader_for(cloud), same_unit=SAME_UNIT)


# --- GpuInfo -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GpuInfo:
    """What a GpuInfo cell states: the GPU's name and the two memory figures, in MiB as written
    (what they mean depends on the cloud: `memory_per_gpu_gib`)."""

    name: str
    size_mib: Decimal | None = None
    total_mib: Decimal | None = None


# JSON's words, which a Python literal spells None, True and False (Hyperstack writes
# `'Manufacturer': null` inside an otherwise Python dict).
JSON_WORDS: dict[str, bool | None] = {"null": None, "true": True, "false": False}
# A GpuInfo that is only the GPU's name (Azure): letters, digits and a few separators.
GPU_NAME = re.compile(r"[A-Za-z][A-Za-z0-9 ._+-]{0,99}")


class _JsonWords(ast.NodeTransformer):
    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in JSON_WORDS:
            return ast.copy_location(ast.Constant(JSON_WORDS[node.id]), node)
        return node


def _literal(raw: str) -> object:
    """The value of a Python literal, JSON's null/true/false allowed; ValueError if it is not one.

    Only literals are accepted (`ast.literal_eval` on the parsed tree: no names, calls or
    attributes), so a crafted cell cannot run code.
    """
    try:
        tree = _JsonWords().visit(ast.parse(raw, mode="eval"))
        return ast.literal_eval(tree)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise ValueError(raw) from None


# A catalog repeats a few GpuInfo values over all its rows; reading one is most of a row's cost.
@lru_cache(maxsize=256)
def gpu_info(raw: str) -> GpuInfo:
    """What a GpuInfo cell states; an empty GpuInfo() when the cell is empty."""
    if not raw:
        return GpuInfo("")
    if len(raw) > MAX_GPU_INFO:
        raise RowError(f"GpuInfo is longer than {MAX_GPU_INFO} characters")
    try:
        info = _literal(raw)
    except ValueError:
        if GPU_NAME.fullmatch(raw):
            return GpuInfo(raw.strip())
        raise RowError("GpuInfo is not a Python literal") from None
    gpus = info.get("Gpus") if isinstance(info, dict) else None
    if not isinstance(gpus, list) or not gpus or not isinstance(gpus[0], dict):
        raise RowError("GpuInfo has no 'Gpus' list")
    first = gpus[0]
    memory = first.get("MemoryInfo")
    size = memory.get("SizeInMiB") if isinstance(memory, dict) else None
    assert isinstance(info, dict)
    return GpuInfo(
        name=str(first.get("Name") or ""),
        size_mib=_mib(size, "SizeInMiB"),
        total_mib=_mib(info.get("TotalGpuMemoryInMiB"), "TotalGpuMemoryInMiB"),
    )


def _mib(value: object, what: str) -> Decimal | None:
    """A memory figure of GpuInfo: None when absent or not above 0; an error when not finite or
    too large to be memory (1e400)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        size = Decimal(str(value))
    except (InvalidOperation, ValueError):  # an int of more than 4,300 digits
        raise RowError(f"GpuInfo {what} is too large") from None
    if not size.is_finite():
        raise RowError(f"GpuInfo {what} is not a finite number: {shown(str(value))}")
    if size and size.adjusted() >= MAX_INTEGER_DIGITS:
        raise RowError(f"GpuInfo {what} is too large: {shown(str(value))}")
    return size if size > 0 else None


def mib_to_gib(size_in_mib: Decimal | None) -> Decimal | None:
    """GiB from a SizeInMiB figure; values under 1024 are GiB already (RunPod's catalog)."""
    if size_in_mib is None or size_in_mib <= 0:
        return None
    if size_in_mib < MIB_PER_GIB:
        return size_in_mib
    return (size_in_mib / MIB_PER_GIB).quantize(Decimal("0.01"))


def memory_per_gpu_gib(info: GpuInfo, count: int, cloud: str = "") -> Decimal | None:
    """Memory per GPU in GiB, read as `cloud` writes it (see the module's docstring)."""
    size = info.size_mib
    if size is None:
        return None
    if cloud in SIZE_IS_TOTAL:
        return mib_to_gib(size / count)
    if count > 1 and info.total_mib == size and cloud not in TOTAL_IS_PER_GPU:
        raise RowError(
            f"GpuInfo gives {size:f} MiB both as SizeInMiB and as TotalGpuMemoryInMiB for "
            f"{count} GPUs: per GPU on some clouds (lambda), the total on others (vast), so it "
            "cannot be read for this platform"
        )
    return mib_to_gib(size)


# Verda writes the instance's total after the card's own size: `A100-80GB-640GB` for 8 GPUs.
TOTAL_SUFFIX = re.compile(r"(?P<card>.*?(?P<each>\d+)\s*GB?)[-_ ](?P<total>\d+)\s*GB?", re.I)


def card_name(name: str, count: int) -> str:
    """The GPU's name without a suffix that is the instance's total memory."""
    found = TOTAL_SUFFIX.fullmatch(name)
    if found and int(found["total"]) == int(found["each"]) * count:
        return found["card"]
    return name


# --- rows ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Host:
    """A GCP host VM row: its prices, to be added to its GPUs' rows."""

    line: int
    region: str
    price: Decimal | None
    spot: Decimal | None
    vcpus: Decimal | None
    ram_gib: Decimal | None


class _Reader:
    """Reads one file's rows in one cloud's dialect. Holds the GCP host VM rows read so far (a
    few hundred small records), so a reader is made per pass over a file."""

    def __init__(self, cloud: str) -> None:
        self.cloud = cloud
        self.hosts: dict[tuple[str, str], _Host] = {}

    def offers(self, line: int, row: dict[str, str]) -> list[OfferRow]:
        instance = row["InstanceType"]
        accelerator = row["AcceleratorName"]
        if not instance:
            return self._gpu_priced_apart(line, row)
        if not accelerator and not row["GpuInfo"]:
            if instance in GCP_HOST_TYPES:
                self._remember_host(line, row)
                raise Skip("GCP host VM: priced with the rows of its GPUs")
            if self.cloud in NAMELESS_GPUS:
                raise Skip("no GPU named (CPU-only, or a GPU the catalog leaves unnamed)")
            raise Skip("CPU-only instance (no GPU)")
        count = self._count(row)
        info = gpu_info(row["GpuInfo"])
        price, spot = self._prices(row)
        return self._offerings(
            line,
            instance=instance,
            region=row["Region"],
            accelerator=accelerator or info.name,
            info=info,
            count=count,
            price=price,
            spot=spot,
            vcpus=decimal_value(row, "vCPUs", required=False),
            ram=decimal_value(row, "MemoryGiB", required=False),
        )

    def _count(self, row: dict[str, str]) -> int:
        count = decimal_value(row, "AcceleratorCount")
        if count == 0:
            raise Skip("CPU-only instance (no GPU)")
        if count != count.to_integral_value():
            raise Skip("fractional GPU count (a share of one GPU)")
        wrong = WRONG_COUNTS.get(row["InstanceType"])
        if wrong is not None and wrong[0] != count:
            raise Skip(
                "GPU count contradicts the instance type's documentation",
                f"AcceleratorCount {count:f} for {row['InstanceType']}, which has {wrong[0]} GPUs "
                f"({wrong[1]})",
            )
        return int(count)

    def _prices(self, row: dict[str, str]) -> tuple[Decimal, Decimal | None]:
        """(on-demand, spot or None); a row without an on-demand price is skipped."""
        if not row["Price"]:
            raise Skip("no on-demand price (Price is empty)")
        price = price_value(row, "Price")
        if price == 0:
            raise Skip("on-demand price is 0")
        spot = price_value(row, "SpotPrice") if row.get("SpotPrice") else None
        return price, spot or None

    def _offerings(
        self,
        line: int,
        *,
        instance: str,
        region: str,
        accelerator: str,
        info: GpuInfo,
        count: int,
        price: Decimal,
        spot: Decimal | None,
        vcpus: Decimal | None,
        ram: Decimal | None,
    ) -> list[OfferRow]:
        # Vast writes "State, CC, Continent" with the state possibly empty (", US, NA").
        region = region.strip(" ,")
        if not region:
            raise RowError("Region is empty")
        memory = memory_per_gpu_gib(info, count, self.cloud)
        name = card_name(accelerator, count)
        if self.cloud in NO_HOST_FIGURES:
            vcpus = ram = None
        interconnect, bandwidth = interconnect_for(instance, count, f"{name} {info.name}")
        key = f"{instance}@{region}"
        offer = OfferRow(
            lines=[line],
            external_id=key,
            name=f"{instance} ({region})",
            accelerator_name=name,
            gpu_count=count,
            gpu_memory_gib=memory,
            prices=[PriceRow(unit="hour", amount=price, currency="USD")],
            vcpus=None if vcpus is None else max(1, int(vcpus.to_integral_value())),
            ram_gib=ram_value(ram),
            region=region,
            # The catalog says nothing about links: the sourced family table (interconnect.py) does.
            interconnect=interconnect,
            interconnect_bandwidth_gbps=bandwidth,
            hint=f"{instance} {info.name}",
        )
        offers = [offer]
        if spot:
            offers.append(
                replace(
                    offer,
                    lines=[line],
                    external_id=f"{key}:spot",
                    name=f"{instance} ({region}, spot)",
                    name_zh=f"{instance}（{region}，抢占式）",
                    interruptible=True,
                    prices=[PriceRow(unit="hour", amount=spot, currency="USD")],
                )
            )
        return offers

    # --- GCP: GPUs priced apart from their host VM ---------------------------------------------

    def _remember_host(self, line: int, row: dict[str, str]) -> None:
        zone = row.get("AvailabilityZone") or row["Region"]
        self.hosts[(row["InstanceType"], zone)] = _Host(
            line=line,
            region=row["Region"],
            price=price_value(row, "Price") if row["Price"] else None,
            spot=price_value(row, "SpotPrice") if row.get("SpotPrice") else None,
            vcpus=decimal_value(row, "vCPUs", required=False),
            ram_gib=decimal_value(row, "MemoryGiB", required=False),
        )

    def _gpu_priced_apart(self, line: int, row: dict[str, str]) -> list[OfferRow]:
        """A GCP GPU row (no InstanceType), joined to its host VM row of the same zone."""
        accelerator = row["AcceleratorName"]
        if not accelerator:
            raise RowError("InstanceType and AcceleratorName are both empty")
        if accelerator.lower().startswith("tpu-"):
            raise Skip("TPU (not a GPU)")
        count = self._count(row)
        hosts = GCP_HOSTS.get((accelerator, count))
        if hosts is None:
            raise Skip(
                "GPU priced apart from a host VM of the renter's choosing",
                f"{count}x {shown(accelerator)} has no one host machine type: GCP attaches it "
                "to an N1 VM the renter chooses",
            )
        zone = row.get("AvailabilityZone") or row["Region"]
        found = [(host, self.hosts[(host, zone)]) for host in hosts if (host, zone) in self.hosts]
        priced = [(host, stated) for host, stated in found if stated.price is not None]
        if not priced:
            raise Skip(
                "GPU priced apart from its host VM, and the host has no priced row in its zone",
                f"no priced {' or '.join(hosts)} row for zone {zone} before this line",
            )
        gpu_price, gpu_spot = self._prices(row)
        info = gpu_info(row["GpuInfo"])
        offers = []
        for host, stated in priced:
            assert stated.price is not None
            spot = None
            if gpu_spot is not None and stated.spot is not None:
                spot = (gpu_spot + stated.spot).quantize(PRICE_PLACES)
            offers += self._offerings(
                line,
                instance=host,
                region=row["Region"],
                accelerator=accelerator,
                info=info,
                count=count,
                price=(gpu_price + stated.price).quantize(PRICE_PLACES),
                spot=spot,
                vcpus=stated.vcpus,
                ram=stated.ram_gib,
            )
        return offers
