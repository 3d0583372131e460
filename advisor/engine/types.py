"""Plain data the advisor engine works on: scenarios in, hardware and offerings as inputs.

Everything here is a frozen dataclass with no behaviour beyond small derived properties, so the
engine's modules (memory, placement, cost, ranking) can share them without importing each other.
Sizes are bytes (int) inside the engine; GiB appears only at the edges and in labels.
Money is Decimal, never float.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from decimal import Decimal
from functools import cached_property
from typing import Any, Literal

from advisor.engine import vocab
from advisor.engine.pricing.kind import PriceKind

GiB = 2**30
GB = 10**9


def hash_once(self: Any) -> int:
    """The `__hash__` of a frozen dataclass used as a key again and again (a card's spec, a task,
    a task's placement needs): the dataclass's own hash, over the fields it compares, computed on
    first use and kept on the instance (`HashOnce`). Set in the class body (`__hash__ =
    hash_once`), where `dataclass` leaves an explicit hash alone."""
    found = self.__dict__.get("_hash_once")
    if found is None:
        names = (f.name for f in fields(self) if (f.compare if f.hash is None else f.hash))
        found = self.__dict__["_hash_once"] = hash(tuple(getattr(self, n) for n in names))
    return found  # type: ignore[no-any-return]


class HashOnce:
    """Pickled and copied without the kept hash (hash_once): a string's hash differs from one
    process to another."""

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_hash_once", None)
        return state


# The closed sets shared with the Django side are vocab's enums (StrEnum: each member equals its
# string value); the sets only the engine knows stay Literal types.
TaskKind = vocab.TaskKind
Precision = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4"]
Optimizer = Literal["adamw", "adamw_8bit", "sgd_momentum"]
Sharding = Literal["none", "zero1", "zero2", "zero3"]
Offload = Literal["none", "optimizer", "optimizer_and_params"]
Checkpointing = Literal["none", "selective", "full"]
# How attention is computed (FlashAttention and PyTorch SDPA keep no s² scores), which trainer
# runs the job (its loss, kernels and QLoRA path), which linear layers LoRA adapts, and how a
# server holds its KV cache (docs/memory-model.md).
Attention = Literal["flash", "eager"]
Framework = Literal["hf", "pytorch", "liger", "torchtune", "unsloth"]
LoraTargets = Literal["attention", "all_linear"]
Serving = Literal["paged", "hf_generate"]
# How a mixture of experts runs its experts in training (docs/time-model.md, "Mixture of
# experts"): Transformers' loop over them, grouped GEMM kernels, or Megatron-style expert
# parallelism (the experts split over the GPUs, tokens sent to them by all-to-all).
MoeImplementation = Literal["expert_loop", "grouped_gemm", "expert_parallel"]
# Serving workload shape (docs/time-model.md, "Serving"): the kind of use whose prompt and output
# lengths apply when the task does not state them, and the engine family whose measured
# efficiency applies.
Workload = Literal["chat", "rag", "batch"]
ServingEngine = Literal["vllm", "sglang", "tensorrt_llm", "llama_cpp", "hf"]
# Diffusion pipelines: where the text encoders (and the VAE) are while the denoiser runs: on the
# GPU, moved there only for their own pass (diffusers' model CPU offload), or not loaded at all
# because their outputs (and the latents) were computed beforehand (docs/memory-model.md).
TextEncoders = Literal["gpu", "offload", "cached"]
Denoiser = Literal["unet", "mmdit", "flux"]
# The throughput figure a fixed task's time is scaled by from its reference accelerator.
ScaleBy = Literal["fp32", "fp64", "bf16", "bandwidth"]
When = vocab.When
Isolation = vocab.Isolation
Objective = vocab.Objective
SharingMode = vocab.SharingMode
Interconnect = vocab.Interconnect
MultiTask = vocab.MultiTask
BillingUnit = vocab.BillingUnit
Currency = vocab.Currency
StorageUnit = vocab.StorageUnit
Confidence = Literal["verified", "secondary", "unverified"]

# Seconds per billing unit (vocab.BillingUnit.seconds). A month is 30 days (720 h), the convention
# of the Chinese platforms' 包月 plans and of the break-even figures in docs/billing-rules.md.
BILLING_UNIT_SECONDS: dict[str, int] = {unit.value: unit.seconds for unit in vocab.BillingUnit}
HOURS_PER_MONTH = vocab.HOURS_PER_MONTH


@dataclass(frozen=True)
class DiffusionArch:
    """A diffusion pipeline by component, and the denoiser's shape the activations follow
    (docs/memory-model.md, "Diffusion models"). Parameter counts are the checkpoints' own.

    Transformer denoisers (SD3's MMDiT, Flux) have `blocks` joint (double-stream) blocks and
    `single_blocks` single-stream ones of width `hidden`; a UNet has one (channels, transformer
    depth) pair per resolution level, `layers_per_block` ResNets per level on the way down (one
    more on the way up) and a middle block of `mid_depth` transformer layers.
    """

    denoiser: Denoiser
    denoiser_params: int
    text_encoders: tuple[tuple[str, int], ...]  # (name, params), in the order the pipeline runs
    vae_params: int
    native_resolution: int  # pixels on a side the model was trained at
    latent_channels: int = 4
    vae_factor: int = 8  # pixels per latent pixel on a side
    # Classifier-free guidance: each image is denoised with and without its prompt (batch × 2).
    # Flux dev is guidance-distilled and Flux schnell timestep-distilled: one pass.
    cfg: bool = True
    vae_fp32: bool = False  # the VAE decodes in fp32 whatever the pipeline's dtype (SDXL)
    # transformer denoisers
    blocks: int = 0
    single_blocks: int = 0
    hidden: int = 0
    mlp_ratio: int = 4
    patch: int = 2
    text_tokens: int = 0  # text tokens in the joint attention
    # UNet
    levels: tuple[tuple[int, int], ...] = ()
    layers_per_block: int = 2
    mid_depth: int = 0
    context_dim: int = 0

    @property
    def text_encoder_params(self) -> int:
        return sum(params for _, params in self.text_encoders)


@dataclass(frozen=True)
class ModelArch:
    """Published architecture of a model (its config.json; docs/memory-model.md)."""

    params: int
    layers: int | None = None
    hidden: int | None = None
    heads: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None
    intermediate: int | None = None
    vocab: int | None = None
    # Multi-head latent attention (DeepSeek-V2/V3): cached width per token per layer.
    mla_kv_lora_rank: int | None = None
    mla_rope_head_dim: int | None = None
    # Mixture of experts: parameters touched per token (compute), all params still held in memory.
    active_params: int | None = None
    # Mixture of experts: routed experts per MoE layer and those each token is sent to (the
    # config's num_experts and num_experts_per_tok); None when not given.
    experts: int | None = None
    experts_per_token: int | None = None
    family: Literal["llm", "diffusion"] = "llm"
    # A diffusion pipeline's components and denoiser shape (family "diffusion"); `variant` names
    # the architecture it follows (a preset id: "flux.1-dev", "sdxl", ...).
    diffusion: DiffusionArch | None = None
    variant: str | None = None


@dataclass(frozen=True)
class OnHardware:
    """`on`: evaluate a task on named hardware instead of searching the catalogue."""

    accelerator: str
    count: int = 1
    mig_profile: str | None = None
    mfu: float | None = None
    # A task over more GPUs than one machine holds: GPUs per machine (None: 8, an HGX board) and
    # the network between machines, Gb/s per machine (None: the stated default,
    # docs/time-model.md "Several machines").
    gpus_per_node: int | None = None
    network: vocab.Network | None = None
    network_gbps: float | None = None


@dataclass(frozen=True)
class Task(HashOnce):
    __hash__ = hash_once

    name: str
    kind: TaskKind
    model: str | None = None
    arch: ModelArch | None = None  # resolved from the preset or given; params always set
    precision: Precision = "bf16"
    optimizer: Optimizer = "adamw"
    master_weights: bool = True
    sharding: Sharding = "none"
    offload: Offload = "none"
    activation_checkpointing: Checkpointing = "none"
    activation_offload: bool = False  # saved activations (or checkpoints) kept in host RAM
    attention: Attention = "flash"
    framework: Framework = "hf"
    lora_targets: LoraTargets = "all_linear"
    fused_optimizer_step: bool = False  # optimizer step in the backward: no full gradient buffer
    # A mixture of experts' training: how its experts run (None: Transformers' loop, the default
    # of the Hugging Face stack; docs/time-model.md, "Mixture of experts").
    moe_implementation: MoeImplementation | None = None
    micro_batch: int = 1
    # Micro-batches per optimizer step: gradients are synchronised (DDP, ZeRO-1) and the
    # optimizer runs once per step, not once per micro-batch (docs/time-model.md).
    gradient_accumulation: int = 1
    seq_len: int = 2048
    lora_rank: int = 16
    tokens: float | None = None
    context_len: int = 4096
    concurrent_sequences: int = 1
    kv_precision: Precision = "bf16"
    serving: Serving = "paged"
    # Inference workload: prompt and output tokens per request (None: the workload's defaults,
    # serving.WORKLOAD_SHAPES) and the serving engine (None: vLLM for a paged cache, Hugging
    # Face generate for `hf_generate`).
    workload: Workload = "chat"
    prompt_tokens: int | None = None
    output_tokens: int | None = None
    serving_engine: ServingEngine | None = None
    vram_gib: float | None = None
    # Diffusion models: the image's side in pixels (None: the model's native resolution), where
    # the text encoders are (None: cached for training, as kohya's and SimpleTuner's guides
    # recommend, on the GPU for inference, as a diffusers pipeline is) and their precision (None:
    # the task's).
    resolution: int | None = None
    text_encoders: TextEncoders | None = None
    text_encoder_precision: Precision | None = None
    # Fixed tasks (rendering, simulation, video): a time from frames × seconds per frame on a
    # reference accelerator, scaled by a throughput figure; and what the card must have.
    frames: float | None = None
    seconds_per_frame: float | None = None
    reference_accelerator: str | None = None
    scale_by: ScaleBy = "fp32"
    min_fp64_tflops: float | None = None
    needs_rt_cores: bool = False
    needs_nvenc: bool = False
    # The task's own code runs on any compute stack (OpenCL, CPU, a vendor's build); False: it
    # is CUDA code, which runs elsewhere only through a port (stacks.py).
    portable_code: bool = False
    gpus: int = 1
    when: When = When.ALWAYS
    # Services: busy hours a month (None = always on, 720). Jobs (training with `tokens`): the
    # window they may run in each month (None = around the clock); usage.py.
    hours_per_month: float | None = None
    jobs_per_month: float | None = None  # a job that recurs; None = it runs once
    isolation: Isolation = Isolation.HARD
    on: OnHardware | None = None


@dataclass(frozen=True)
class Constraints:
    budget_per_month: Decimal | None = None
    currency: Currency = Currency.CNY
    deadline_hours: float | None = None
    physically_exclusive: bool = False
    require_nvlink: bool = False
    domestic_only: bool = False
    platforms: tuple[str, ...] = ()
    # Stale prices are included (each with its age and a warning) unless `fresh_only`.
    fresh_only: bool = False
    # Interruptible (spot) capacity (docs/advisor-rules.md, "Spot"): None (not said) lets jobs
    # use it and keeps it from user-facing services; True allows it for every task; False
    # leaves it out for every task.
    allow_interruptible: bool | None = None
    # A job on spot (restarts.py): a checkpoint every `checkpoint_minutes` of work (0: none, a
    # restart starts over), and `restart_minutes` to run again after an interruption.
    checkpoint_minutes: float = 30.0
    restart_minutes: float = 10.0
    # Market floors ("from", the lowest listed offer) and statistics (a median) are ranked as if
    # bookable only when asked for (vocab.PriceBasis); by default they are left out.
    include_market_statistics: bool = False
    # Cards that run the tasks' software only through a port to their stack (vLLM-Ascend,
    # torch_npu, torch_musa, ...: stacks.py) are proposed only when allowed (or domestic_only).
    allow_ports: bool = False
    # Data kept on the platform's storage (datasets, checkpoints), GB (1e9 B) as storage is sold;
    # priced with the platform's StoragePriceSpec (billing.storage_monthly_cost).
    storage_gb: float = 0.0
    # The renter's price tier: each offering is priced at this tier's price where the platform
    # states one, else at its list price (the catalogue loader picks; advisor/services.py).
    price_tier: vocab.PriceTier = vocab.PriceTier.LIST
    # Start-up time of each run (boot, image pull, loading the model), minutes: billed per run
    # where the platform bills start-up time (idle.py). 0: not counted.
    startup_minutes: float = 0.0
    # A plan across platforms keeps the data on both; moving it instead takes storage_gb at this
    # link speed (Mbit/s). None: plans.DEFAULT_TRANSFER_MBPS, stated as an assumption.
    transfer_mbps: float | None = None
    # Where and how an offering is rented, and by whom (ranking.constraint_miss; README "The
    # scenario"). Empty or None: no such constraint. An offering that does not state what a
    # constraint reads is left out with a reason of its own ("... not stated").
    countries: tuple[str, ...] = ()  # ISO 3166-1 alpha-2, upper case ("CN", "US")
    regions: tuple[str, ...] = ()  # region codes as platforms name them, lower case
    delivery_forms: tuple[vocab.DeliveryForm, ...] = ()
    min_vcpus_per_gpu: float | None = None
    min_ram_gib_per_gpu: float | None = None
    min_disk_gb_per_gpu: float | None = None
    # The renter has no mainland Chinese real-name ID or phone and pays with a card issued abroad:
    # only platforms that state they accept such a renter.
    foreign_renter: bool = False


@dataclass(frozen=True)
class Scenario:
    tasks: tuple[Task, ...]
    constraints: Constraints = field(default_factory=Constraints)
    objective: Objective = Objective.BALANCED
    # The seed article's scenario this is (an advisor preset id): its claims are checked.
    preset: str | None = None


@dataclass(frozen=True)
class MigProfile:
    """One MIG GPU-instance profile (NVIDIA MIG User Guide; docs/accelerators.md)."""

    name: str  # e.g. "3g.40gb"
    memory_gib: float  # nominal memory of the slice
    memory_slices: int  # of the card's memory slots (8 on A100/H100 class, 4 on A30)
    compute_slices: int  # "g" in the name
    max_count: int
    starts: tuple[int, ...]  # allowed start slots
    media_extensions: bool = False  # the "+me" variants; at most one per card


@dataclass(frozen=True)
class AcceleratorSpec(HashOnce):
    __hash__ = hash_once

    slug: str
    name: str
    vendor: str
    vram_gib: float  # nominal capacity as marketed; NVIDIA's "80 GB" HBM is 80 GiB (81920 MiB)
    memory_bandwidth_gbps: float | None  # GB/s (1e9 B/s)
    bf16_tflops: float | None  # dense tensor BF16/FP16 (FP32-accumulate on GeForce)
    fp32_tflops: float | None = None
    nvlink: bool = False
    nvlink_bandwidth_gbps: float | None = None  # total bidirectional, GB/s
    pcie_gen: int | None = None
    tdp_w: int | None = None
    domestic: bool = False
    aliases: tuple[str, ...] = ()
    architecture: str = ""
    mig_slots: int = 0  # memory slots; 0 = no MIG
    mig_max_compute: int = 0
    mig_profiles: tuple[MigProfile, ...] = ()
    confidence: Confidence = "secondary"
    # NVLink only through a 2-GPU bridge (A40, A30, H100 PCIe/NVL, RTX 3090): beyond a pair,
    # collectives cross PCIe (docs/accelerators.md; NVIDIA/nccl#1161 for 2×H100 PCIe + bridge).
    nvlink_bridge: bool = False
    # For fixed tasks (docs/accelerators.md, "FP64, RT cores, video encoders"): dense FP64
    # (vector, not tensor-core) TFLOPS, RT cores and NVENC engines; None = not stated.
    fp64_tflops: float | None = None
    rt_cores: int | None = None
    nvenc: int | None = None
    # Software (docs/accelerators.md, "Compute stacks and precisions"; stacks.py reads them):
    # `bf16_tflops` is BF16 only, `fp16_tflops` the FP16 tensor rate (V100, Turing: no BF16);
    # the compute stack (vocab.Stack), NVIDIA's compute capability (None elsewhere) and each
    # precision's support (vocab.PrecisionSupport; absent = unverified).
    fp16_tflops: float | None = None
    stack: str = "cuda"
    compute_capability: float | None = None
    precisions: tuple[tuple[str, str], ...] = ()

    def precision(self, name: str) -> str:
        """This card's support of precision `name` ("unverified" where none is stated)."""
        return dict(self.precisions).get(name, "unverified")


@dataclass(frozen=True)
class PriceSpec:
    """The current price of an offering for one billing unit."""

    unit: BillingUnit
    amount: Decimal
    currency: Currency
    observed_at: datetime
    source: str = ""
    # vendor_claim | competitor_claim | documentation | third_party | measured | import | manual
    source_kind: str = "manual"
    stale: bool = False
    # Metering step in seconds; usage is rounded up to it. None = the unit's default
    # (billing.DEFAULT_GRANULARITY_SECONDS: per second for second/minute/hour prices,
    # whole units for day/week/month plans).
    granularity_seconds: int | None = None
    # Smallest charge per metered session (AutoDL: 0.01, its billing docs; docs/billing-rules.md).
    min_charge: Decimal = Decimal("0")
    # Whose price this is: the list price, or a member, student or enterprise price.
    tier: vocab.PriceTier = vocab.PriceTier.LIST
    # The platform bills each run's start-up time (boot, image pull) on this metered price;
    # None: not stated, counted as billed (pricing.kind.Metering.startup_seconds).
    startup_billed: bool | None = None
    # What the price is: a bookable offer, a market floor or statistic (shown, not ranked unless
    # the scenario includes them), or a competitor's claim (ranked with its badge, after a
    # platform's own price at equal cost). Not part of the kind: it changes no charge.
    basis: vocab.PriceBasis = vocab.PriceBasis.OFFER

    @cached_property
    def amount_float(self) -> float:
        """`amount` as a float, for ranking thousands of offerings (money shown stays Decimal)."""
        return float(self.amount)

    @property
    def kind(self) -> PriceKind:
        """Everything of this price but its amount that its charge depends on (pricing.kind),
        made on first use and kept on the price (read for every price of the catalogue)."""
        found: PriceKind | None = self.__dict__.get("_kind")
        if found is None:
            found = self.__dict__["_kind"] = PriceKind.of(
                self.unit,
                self.granularity_seconds,
                self.startup_billed,
                self.min_charge,
                self.currency,
                self.tier,
            )
        return found


@dataclass(frozen=True)
class BillingRulesSpec:
    """A platform's billing rules as its documents state them (platforms.models.BillingRules,
    docs/billing-rules.md); None means not stated.

    The metering step and minimum charge already reach each metered price
    (PriceSpec.granularity_seconds, min_charge). The rest is carried for advice that uses it, such
    as the cost of idle time between runs: what a stopped or idle instance still costs, and when
    its data goes.
    """

    metering_seconds: int | None = None  # 1 per second, 60 per minute, 3600 per started hour
    min_charge: Decimal | None = None
    min_charge_currency: str = ""
    startup_billed: bool | None = None  # start-up (boot, image pull) time is billed
    # No-GPU (idle) mode: whether offered, and its latest price per `idle_mode_unit`.
    idle_mode: bool | None = None
    idle_mode_price: Decimal | None = None
    idle_mode_unit: str = ""
    idle_mode_currency: str = ""
    storage_billed_while_stopped: bool | None = None
    release_after_stopped_days: int | None = None  # the instance and its data are released
    release_after_expiry_days: int | None = None
    system_disk_kept_on_delete: bool | None = None
    idle_shutdown_seconds: int | None = None  # sessions stopped after this long idle
    credit_name: str = ""  # prices are in platform credits (趋动云: 算力点)


@dataclass(frozen=True)
class RentalFacts:
    """Where an offering runs (its region is OfferingSpec.region), how it is handed over, what of
    the host comes with it and who may rent it: what the location, delivery and renter
    constraints read (ranking.constraint_miss). None or empty: not stated, never zero."""

    country: str = ""  # ISO 3166-1 alpha-2 of the offering's region, else of its platform's market
    # The offering's delivery form, else its platform's only one (empty: not stated).
    delivery_forms: tuple[vocab.DeliveryForm, ...] = ()
    vcpus: float | None = None  # per instance
    ram_gib: float | None = None  # per instance
    disk_gb: float | None = None  # per instance
    # Signing up or renting on the platform needs a mainland Chinese ID card or phone number
    # (real-name verification); it accepts cards issued outside mainland China. None: no
    # source says.
    cn_identity_required: bool | None = None
    foreign_cards: bool | None = None


NO_RENTAL_FACTS = RentalFacts()


@dataclass(frozen=True)
class OfferingSpec:
    """An instance type a platform rents, flattened for the engine."""

    id: int | str
    platform: str  # slug
    platform_name: str
    name: str
    accelerator: AcceleratorSpec
    gpu_count: int = 1
    sharing: SharingMode = SharingMode.EXCLUSIVE
    pooled_vram_gib: float | None = None  # memory of a pooled slice, when sold as one
    mig_profile: str | None = None  # when the offering is one MIG slice
    interconnect: Interconnect = Interconnect.PCIE
    interconnect_bandwidth_gbps: float | None = None
    # Between instances (a task spanning several): kind and Gb/s per instance; None = not stated.
    network: vocab.Network | None = None
    network_gbps: float | None = None
    multi_task: MultiTask = MultiTask.INSTANCE  # the platform's finest multi-task granularity
    physically_exclusive: bool | None = False  # None = unknown
    interruptible: bool = False
    # Interruptions per day of running on the platform's spot capacity, as its source states;
    # None: not stated (restarts.DEFAULT_INTERRUPTIONS_PER_DAY is assumed, and said).
    interruptions_per_day: float | None = None
    region: str = ""
    retention_after_expiry: bool | None = None  # None = unknown
    vendor_claim: bool = False  # facts about this platform come from its own marketing
    # Facts about this platform come from a competitor's description: that competitor's name.
    competitor_claim_by: str = ""
    prices: tuple[PriceSpec, ...] = ()
    billing_rules: BillingRulesSpec | None = None  # None: the platform has none recorded
    # A per-card marketplace (hosts.py): the most cards of this offering one instance can rent
    # on one host, how they are linked and who says so; None: not stated (one card).
    max_per_host: int | None = None
    host_interconnect: Interconnect = Interconnect.PCIE
    host_source: str = ""
    # This spec is `host_cards` cards of a one-card offering on one host (hosts.host_variants),
    # billed per card; 0: the offering as listed.
    host_cards: int = 0
    # Location, delivery form, host resources and who may rent it (the renters' filters).
    rental: RentalFacts = NO_RENTAL_FACTS
    # Where a renter books it: its page, or its price list, on its platform's own site where a
    # source cites one, else the platform's site ("": none stated).
    url: str = ""

    @property
    def market_figure(self) -> bool:
        """A price of it is a market floor or statistic (vocab.PriceBasis.market): the offering
        is a figure of a market, not an instance one can book at that price."""
        return any(p.basis in _MARKET for p in self.prices)

    @property
    def claimed(self) -> bool:
        """A price of it is a competitor's claim (vocab.PriceBasis.CLAIM)."""
        return any(p.basis == vocab.PriceBasis.CLAIM for p in self.prices)


_MARKET = frozenset(b for b in vocab.PriceBasis if b.market)


@dataclass(frozen=True)
class StoragePriceSpec:
    """A platform's price for persistent storage (data disk, file storage, cluster storage)."""

    platform: str  # slug
    unit: StorageUnit
    amount: Decimal
    currency: Currency
    observed_at: datetime
    free_gb: float = 0.0  # free quota per instance or account, GB
    # AutoDL paid data disk: billed while shut down; 恒源云 /hy-tmp: only while running
    # (docs/billing-rules.md, "Storage").
    billed_while_stopped: bool = True
    name: str = ""
    source: str = ""


@dataclass(frozen=True)
class ExchangeRateSpec:
    """Units of `quote` per one unit of `base` on `as_of` (e.g. USD->CNY 6.7351)."""

    base: str
    quote: str
    rate: Decimal
    as_of: datetime
    source: str = ""
