"""Messages are data: a code with parameters, rendered in the reader's language at the edge.

The engine never writes prose. Every reason, warning, note, suggestion, fit verdict, formula
and error it produces is a `Message`: a `Code` and parameters that keep numbers as numbers with
their unit (`Quantity`, `Money`), vocabulary values as enum members and nested messages as
`Message`. Each code has one English template here, marked with `gettext_noop` so that Django's
`makemessages` extracts it into the translation catalogue; the Django edge
(`wording/messages.py`) translates the template and formats the parameters by locale, and
`english()` renders it for the CLI and for debugging. Nothing may decide anything by reading a
rendered message: compare codes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from typing import Union

GiB = 2**30


def gettext_noop(text: str) -> str:
    """Marks `text` for translation; the Django edge translates it (makemessages extracts it)."""
    return text


class Unit(StrEnum):
    """Units a `Quantity` carries; the edge formats each (bytes as GiB)."""

    BYTES = "bytes"
    HOURS = "hours"
    DAYS = "days"
    FRACTION = "fraction"  # 0..1, shown as a percentage
    GB = "gb"  # decimal gigabytes, as storage is sold
    TOKENS_PER_S = "tokens_per_s"
    COUNT = "count"


@dataclass(frozen=True)
class Quantity:
    value: float
    unit: Unit
    places: int | None = None  # decimals to show; None = the unit's default


@dataclass(frozen=True)
class Money:
    amount: Decimal
    currency: str
    per: str = ""  # a billing unit when the amount is a price per unit


def gib(n: float) -> Quantity:
    return Quantity(n, Unit.BYTES)


def hours(n: float, places: int | None = None) -> Quantity:
    return Quantity(n, Unit.HOURS, places)


def fraction(n: float) -> Quantity:
    return Quantity(n, Unit.FRACTION)


Param = Union[
    str, int, float, bool, Decimal, Quantity, Money, StrEnum, "Message", tuple["Param", ...], None
]


class Code(StrEnum):
    """Every message the engine can produce. Templates: TEMPLATES."""

    # validation of the scenario (field named by the error)
    MUST_BE_OBJECT = "must_be_object"
    KEYS_MUST_BE_STRINGS = "keys_must_be_strings"
    UNKNOWN_FIELD = "unknown_field"
    UNKNOWN_FIELD_DID_YOU_MEAN = "unknown_field_did_you_mean"
    MUST_BE_NON_EMPTY_STRING = "must_be_non_empty_string"
    STRING_TOO_LONG = "string_too_long"
    MUST_BE_ONE_OF = "must_be_one_of"
    MUST_BE_BOOLEAN = "must_be_boolean"
    MUST_BE_NUMBER = "must_be_number"
    MUST_BE_FINITE = "must_be_finite"
    OUT_OF_RANGE = "out_of_range"
    MUST_BE_WHOLE = "must_be_whole"
    MUST_BE_LIST = "must_be_list"
    LIST_LENGTH = "list_length"
    GENERIC_INVALID = "generic_invalid"
    # catch-all for validation rules written as their own code below
    UNKNOWN_ACCELERATOR = "unknown_accelerator"
    UNKNOWN_MODEL = "unknown_model"
    NO_MIG = "no_mig"
    NO_MIG_PROFILE = "no_mig_profile"
    NO_EXCHANGE_RATE = "no_exchange_rate"
    NO_EXCHANGE_RATE_ANY = "no_exchange_rate_any"
    TIME_NOT_NEGATIVE = "time_not_negative"
    SESSIONS_AT_LEAST_ONE = "sessions_at_least_one"
    STORAGE_NOT_NEGATIVE = "storage_not_negative"
    BUSY_HOURS_RANGE = "busy_hours_range"
    HOURS_OVER_MONTH = "hours_over_month"
    BREAK_EVEN_ONE_CURRENCY = "break_even_one_currency"
    # scenario validation rules (scenario.py) and named hardware (hardware.py, mig.py, timing.py)
    RANGE_CLOSED = "range_closed"  # the `range` of OUT_OF_RANGE: [low, high]
    RANGE_LOW_OPEN = "range_low_open"  # (low, high]
    AMOUNT_OUT_OF_RANGE = "amount_out_of_range"
    MUST_BE_PLATFORM_LIST = "must_be_platform_list"
    UNKNOWN_MODEL_DID_YOU_MEAN = "unknown_model_did_you_mean"
    UNKNOWN_ACCELERATOR_DID_YOU_MEAN = "unknown_accelerator_did_you_mean"
    ACTIVE_PARAMS_EXCEED_PARAMS = "active_params_exceed_params"
    MODEL_AND_PARAMS = "model_and_params"
    ARCH_NEEDS_PARAMS = "arch_needs_params"
    MODEL_REQUIRED = "model_required"
    ACCELERATOR_REQUIRED = "accelerator_required"
    FIXED_NEEDS_VRAM = "fixed_needs_vram"
    JOBS_NEED_TOKENS = "jobs_need_tokens"
    VRAM_ONLY_FOR_FIXED = "vram_only_for_fixed"
    TRAINING_PRECISION = "training_precision"
    PARAM_OFFLOAD_NEEDS_ZERO3 = "param_offload_needs_zero3"
    ON_COUNT_DIFFERS = "on_count_differs"
    KIND_REQUIRED = "kind_required"
    SCENARIO_MUST_BE_OBJECT = "scenario_must_be_object"
    TASKS_REQUIRED = "tasks_required"
    TOO_MANY_TASKS = "too_many_tasks"
    DUPLICATE_TASK_NAME = "duplicate_task_name"
    TOKENS_REQUIRED = "tokens_required"
    NO_THROUGHPUT_FIGURE = "no_throughput_figure"
    # diffusion pipelines (diffusion.py) and fixed tasks (timing.py, needs.py)
    ONLY_FOR_DIFFUSION = "only_for_diffusion"
    ONLY_FOR_FIXED = "only_for_fixed"
    ONLY_FOR_LLM_ARCH = "only_for_llm_arch"
    DIFFUSION_NEEDS_VARIANT = "diffusion_needs_variant"
    RESOLUTION_MULTIPLE = "resolution_multiple"
    FIXED_TIME_FIELDS = "fixed_time_fields"
    FIXED_NO_FIGURE = "fixed_no_figure"
    MEMORY_NOTE_DIFFUSION_RESOLUTION = "memory_note_diffusion_resolution"
    MEMORY_NOTE_TEXT_ENCODERS_GPU = "memory_note_text_encoders_gpu"
    MEMORY_NOTE_TEXT_ENCODERS_OFFLOADED = "memory_note_text_encoders_offloaded"
    MEMORY_NOTE_TEXT_ENCODERS_CACHED = "memory_note_text_encoders_cached"
    MEMORY_NOTE_CFG = "memory_note_cfg"
    MEMORY_NOTE_VAE_FP32 = "memory_note_vae_fp32"
    MEMORY_NOTE_DIFFUSION_ALLOCATOR = "memory_note_diffusion_allocator"
    MEMORY_NOTE_DIFFUSION_SDPA = "memory_note_diffusion_sdpa"
    MEMORY_NOTE_DIFFUSION_LORA = "memory_note_diffusion_lora"
    LORA_TARGETS_BLOCK_ATTENTION = "lora_targets_block_attention"
    LORA_TARGETS_BLOCK_ALL_LINEAR = "lora_targets_block_all_linear"
    FORMULA_DIFFUSION_COMPONENT = "formula_diffusion_component"
    FORMULA_PLUS = "formula_plus"
    FORMULA_DIT_ACTIVATIONS = "formula_dit_activations"
    FORMULA_DIT_ACTIVATIONS_CHECKPOINTED = "formula_dit_activations_checkpointed"
    FORMULA_UNET_ACTIVATIONS = "formula_unet_activations"
    FORMULA_UNET_ACTIVATIONS_CHECKPOINTED = "formula_unet_activations_checkpointed"
    FORMULA_UNET_INFERENCE = "formula_unet_inference"
    FORMULA_DIT_INFERENCE = "formula_dit_inference"
    FORMULA_VAE_DECODE = "formula_vae_decode"
    FORMULA_VAE_ENCODE = "formula_vae_encode"
    FIX_CACHE_TEXT_ENCODERS = "fix_cache_text_encoders"
    FIX_OFFLOAD_CHECKPOINTS = "fix_offload_checkpoints"
    FIX_OPTIMIZER_8BIT = "fix_optimizer_8bit"
    FIX_OFFLOAD_TEXT_ENCODERS = "fix_offload_text_encoders"
    FIX_TEXT_ENCODER_PRECISION = "fix_text_encoder_precision"
    FIX_WEIGHTS_AND_TEXT_ENCODERS = "fix_weights_and_text_encoders"
    FIX_MAX_IMAGES = "fix_max_images"
    TIME_NOTE_FIXED = "time_note_fixed"
    TIME_NOTE_FIXED_RANGE = "time_note_fixed_range"
    REJECT_NO_FP64 = "reject_no_fp64"
    REJECT_NO_RT_CORES = "reject_no_rt_cores"
    REJECT_NO_NVENC = "reject_no_nvenc"
    WARN_FIGURE_NOT_STATED = "warn_figure_not_stated"
    FIGURE_FP32 = "figure_fp32"
    FIGURE_FP64 = "figure_fp64"
    FIGURE_BF16 = "figure_bf16"
    FIGURE_BANDWIDTH = "figure_bandwidth"
    FIGURE_RT_CORES = "figure_rt_cores"
    FIGURE_NVENC = "figure_nvenc"
    NO_BANDWIDTH_FIGURE = "no_bandwidth_figure"
    # memory (memory.py): notes of a MemoryPlan
    MEMORY_NOTE_FIXED_STATED = "memory_note_fixed_stated"
    MEMORY_NOTE_QLORA_BF16 = "memory_note_qlora_bf16"
    MEMORY_NOTE_QLORA_FP32_KEPT = "memory_note_qlora_fp32_kept"
    MEMORY_NOTE_LORA_TARGETS = "memory_note_lora_targets"
    LORA_TARGETS_ATTENTION = "lora_targets_attention"  # the `targets` of MEMORY_NOTE_LORA_TARGETS
    LORA_TARGETS_ALL_LINEAR = "lora_targets_all_linear"
    MEMORY_NOTE_ACTIVATIONS_SAVED = "memory_note_activations_saved"
    MEMORY_NOTE_FROZEN_INPUTS = "memory_note_frozen_inputs"
    MEMORY_NOTE_HOST_RAM_ACTIVATIONS = "memory_note_host_ram_activations"
    MEMORY_NOTE_PAGED_PREALLOCATES = "memory_note_paged_preallocates"
    MEMORY_NOTE_ACTIVATIONS_PER_GPU = "memory_note_activations_per_gpu"
    MEMORY_NOTE_SHAPE_ASSUMED = "memory_note_shape_assumed"
    MEMORY_NOTE_HOST_RAM = "memory_note_host_ram"
    MEMORY_NOTE_MOE_ALL_EXPERTS = "memory_note_moe_all_experts"
    # memory (memory.py): formulas of a MemoryPlan, by component; composed by nesting
    PARAMS_BILLIONS = "params_billions"  # "7.5B params"
    PARAMS_MILLIONS = "params_millions"  # "350M params"
    FORMULA_RESULT = "formula_result"  # "<formula> = <bytes>"
    FORMULA_SHARDED = "formula_sharded"  # "<formula> ÷ N GPUs (zero3)"
    FORMULA_TENSOR_PARALLEL = "formula_tensor_parallel"
    FORMULA_FIXED = "formula_fixed"
    FORMULA_WEIGHTS = "formula_weights"
    FORMULA_WEIGHTS_NF4 = "formula_weights_nf4"
    FORMULA_WEIGHTS_NF4_FP32_KEPT = "formula_weights_nf4_fp32_kept"
    FORMULA_PLUS_ADAPTERS = "formula_plus_adapters"
    FORMULA_WEIGHTS_OFFLOADED = "formula_weights_offloaded"
    FORMULA_GRADIENTS = "formula_gradients"
    FORMULA_GRADIENTS_STREAMED = "formula_gradients_streamed"
    FORMULA_OPTIMIZER = "formula_optimizer"
    FORMULA_OPTIMIZER_MASTER = "formula_optimizer_master"
    FORMULA_OPTIMIZER_OFFLOADED = "formula_optimizer_offloaded"
    FORMULA_ACTIVATIONS_LAYERS = "formula_activations_layers"
    FORMULA_ACTIVATIONS_INPUTS = "formula_activations_inputs"
    FORMULA_ACTIVATIONS_IN_FLIGHT = "formula_activations_in_flight"
    ATTENTION_FLASH = "attention_flash"  # the `attention` of the activation formulas
    ATTENTION_EAGER = "attention_eager"
    ATTENTION_RECOMPUTED = "attention_recomputed"
    FORMULA_PLUS_OUTSIDE_LAYERS = "formula_plus_outside_layers"
    FORMULA_PLUS_CAUSAL_MASK = "formula_plus_causal_mask"
    FORMULA_PLUS_LARGER_OF = "formula_plus_larger_of"
    FORMULA_PLUS_BACKWARD = "formula_plus_backward"
    FORMULA_LOSS = "formula_loss"
    FORMULA_FUSED_LOSS = "formula_fused_loss"
    FORMULA_LAYER_BACKWARD = "formula_layer_backward"
    FORMULA_RECOMPUTED_BACKWARD = "formula_recomputed_backward"
    FORMULA_GRADIENTS_FUSED_STEP = "formula_gradients_fused_step"
    FORMULA_PREFILL_WORKSPACE = "formula_prefill_workspace"
    FORMULA_PLUS_PREFILL_SCORES = "formula_plus_prefill_scores"
    FORMULA_KV_PAGED = "formula_kv_paged"
    FORMULA_KV_CONCAT = "formula_kv_concat"
    FORMULA_OVERHEAD = "formula_overhead"
    FORMULA_PLUS_PREALLOCATION = "formula_plus_preallocation"
    FORMULA_PLUS_ZERO3_GATHER = "formula_plus_zero3_gather"
    FORMULA_PLUS_ZERO3_GRADIENT = "formula_plus_zero3_gradient"
    # memory (memory.py): suggest_fixes, what would make a task fit; composed by nesting
    FIX_PER_GPU = "fix_per_gpu"  # "<fix>: <bytes> per GPU"
    FIX_PER_GPU_HOST_RAM = "fix_per_gpu_host_ram"
    FIX_WITH_FULL_CHECKPOINTING = "fix_with_full_checkpointing"  # "<fix> with full ..."
    FIX_WITH_LIGER_KERNELS = "fix_with_liger_kernels"  # "<fix> with Liger kernels"
    FIX_FULL_CHECKPOINTING = "fix_full_checkpointing"
    FIX_FLASH_ATTENTION = "fix_flash_attention"
    FIX_LIGER_KERNELS = "fix_liger_kernels"
    FIX_OFFLOAD_ACTIVATIONS = "fix_offload_activations"
    FIX_FUSED_OPTIMIZER_STEP = "fix_fused_optimizer_step"
    FIX_PAGED_SERVING = "fix_paged_serving"
    FIX_OFFLOAD_OPTIMIZER = "fix_offload_optimizer"
    FIX_ZERO3_OFFLOAD = "fix_zero3_offload"
    FIX_LORA = "fix_lora"
    FIX_QLORA = "fix_qlora"
    FIX_HOW_TENSOR_PARALLEL = "fix_how_tensor_parallel"
    FIX_HOW_ZERO3 = "fix_how_zero3"
    FIX_MORE_GPUS = "fix_more_gpus"
    FIX_MORE_GPUS_MACHINES = "fix_more_gpus_machines"
    FIX_MORE_GPUS_MACHINES_MINIMUM = "fix_more_gpus_machines_minimum"
    FIX_WEIGHTS_PRECISION = "fix_weights_precision"
    FIX_KV_PRECISION = "fix_kv_precision"
    FIX_MAX_SEQUENCES = "fix_max_sequences"
    FIX_BIGGER_GPU = "fix_bigger_gpu"
    # training time (timing.py): warnings and notes of a TimeEstimate
    TIME_WARN_MFU_HIGH = "time_warn_mfu_high"
    TIME_WARN_SCALING = "time_warn_scaling"
    TIME_NOTE_MFU = "time_note_mfu"
    TIME_NOTE_BUSBW = "time_note_busbw"
    TIME_NOTE_QLORA_DEQUANT = "time_note_qlora_dequant"
    TIME_NOTE_MFU_BAND = "time_note_mfu_band"
    TIME_NOTE_ATTENTION = "time_note_attention"
    TIME_NOTE_NODES = "time_note_nodes"
    TIME_NOTE_NETWORK_ASSUMED = "time_note_network_assumed"
    NETWORK_WHY_PARTIAL_MACHINE = "network_why_partial_machine"
    NETWORK_WHY_DGX = "network_why_dgx"
    NETWORK_WHY_PCIE_MACHINE = "network_why_pcie_machine"
    TIME_NOTE_OFFLOAD = "time_note_offload"
    BUSBW_SOURCE_PCIE = "busbw_source_pcie"
    BUSBW_SOURCE_NVLINK = "busbw_source_nvlink"
    BUSBW_SOURCE_NVLINK_SCALED = "busbw_source_nvlink_scaled"
    # mixture-of-experts and diffusion training time (timing.py, diffusion.py, scenario.py)
    MOE_IMPLEMENTATION_NEEDS_MOE = "moe_implementation_needs_moe"
    EXPERT_PARALLEL_NEEDS_GPUS = "expert_parallel_needs_gpus"
    EXPERTS_PER_TOKEN_EXCEED_EXPERTS = "experts_per_token_exceed_experts"
    MOE_EXPERT_LOOP = "moe_expert_loop"
    MOE_GROUPED_GEMM = "moe_grouped_gemm"
    MOE_EXPERT_PARALLEL = "moe_expert_parallel"
    TIME_NOTE_MOE = "time_note_moe"
    TIME_NOTE_MOE_ZERO3_EXPERTS = "time_note_moe_zero3_experts"
    TIME_NOTE_EXPERT_PARALLEL = "time_note_expert_parallel"
    MEMORY_NOTE_EXPERT_PARALLEL = "memory_note_expert_parallel"
    FORMULA_EXPERTS_SPLIT = "formula_experts_split"
    FIX_EXPERT_PARALLEL = "fix_expert_parallel"
    DIFFUSION_NO_TIME_MODEL = "diffusion_no_time_model"
    TIME_NOTE_DIFFUSION = "time_note_diffusion"
    TIME_NOTE_DIFFUSION_TEXT_CACHED = "time_note_diffusion_text_cached"
    TIME_NOTE_DIFFUSION_TEXT_RUN = "time_note_diffusion_text_run"
    # ranking: why a recommendation
    REASON_RUNS_ALL = "reason_runs_all"
    REASON_BEST_BY_COST = "reason_best_by_cost"
    REASON_BEST_BY_TIME = "reason_best_by_time"
    REASON_BEST_BY_BALANCED = "reason_best_by_balanced"
    REASON_PARETO = "reason_pareto"
    REASON_CHEAPEST_BILLING = "reason_cheapest_billing"
    REASON_CHEAPEST_BILLING_MIXED = "reason_cheapest_billing_mixed"
    REASON_BREAK_EVEN = "reason_break_even"
    REASON_TRAINING_TIME = "reason_training_time"
    REASON_CHEAPEST_BILLING_JOB = "reason_cheapest_billing_job"
    REASON_CHEAPEST_BILLING_JOB_MIXED = "reason_cheapest_billing_job_mixed"
    REASON_REGIONS = "reason_regions"
    REASON_CARDS_ON_ONE_HOST = "reason_cards_on_one_host"
    PLATFORMS_ONE_CARD = "platforms_one_card"
    REASON_PLAN_OF_LEGS = "reason_plan_of_legs"
    REASON_PLAN_LEG = "reason_plan_leg"
    REASON_VERSUS_FIRST = "reason_versus_first"
    REASON_TIED_WITH_FIRST = "reason_tied_with_first"
    DIFF_COSTS_MORE = "diff_costs_more"
    DIFF_COSTS_LESS = "diff_costs_less"
    DIFF_SAME_COST = "diff_same_cost"
    DIFF_SLOWER = "diff_slower"
    DIFF_FASTER = "diff_faster"
    DIFF_VENDOR_CLAIM = "diff_vendor_claim"
    DIFF_STALE_PRICE = "diff_stale_price"
    WARN_JOB_SPANS_MONTHS = "warn_job_spans_months"
    WARN_JOBS_ON_PARALLEL_INSTANCES = "warn_jobs_on_parallel_instances"
    WARN_STORAGE_ASSUMED = "warn_storage_assumed"
    WARN_METERING_ASSUMED = "warn_metering_assumed"
    # ranking: the time between runs (idle.py)
    IDLE_STOPPED = "idle_stopped"
    IDLE_STOPPED_STORAGE = "idle_stopped_storage"
    IDLE_KEPT_IDLE_MODE = "idle_kept_idle_mode"
    IDLE_KEPT_RUNNING = "idle_kept_running"
    IDLE_RELEASED = "idle_released"
    IDLE_PREPAID = "idle_prepaid"
    IDLE_STARTUP_BILLED = "idle_startup_billed"
    IDLE_STARTUP_ASSUMED = "idle_startup_assumed"
    IDLE_STARTUP_FREE = "idle_startup_free"
    IDLE_STARTUP_NOT_GIVEN = "idle_startup_not_given"
    WARN_RELEASED_BETWEEN_RUNS = "warn_released_between_runs"
    WARN_KEPT_FROM_RELEASE = "warn_kept_from_release"
    WARN_RELEASED_AFTER_EXPIRY = "warn_released_after_expiry"
    REJECT_INTERRUPTIBLE_SERVICE = "reject_interruptible_service"
    REASON_TRAINING_TIME_SCALING = "reason_training_time_scaling"
    # ranking: warnings
    WARN_VENDOR_CLAIM = "warn_vendor_claim"
    WARN_STALE_PRICE = "warn_stale_price"
    WARN_NO_RETENTION = "warn_no_retention"
    WARN_INTERRUPTIBLE = "warn_interruptible"
    WARN_NO_STORAGE_PRICE = "warn_no_storage_price"
    WARN_NO_TIME_ESTIMATE = "warn_no_time_estimate"
    WARN_SHARED_COMPUTE = "warn_shared_compute"
    # a task over several instances: the network between them, stated or assumed; idle GPUs
    WARN_SPANS_MACHINES_STATED = "warn_spans_machines_stated"
    WARN_SPANS_MACHINES_ASSUMED = "warn_spans_machines_assumed"
    WARN_IDLE_MACHINE_GPUS = "warn_idle_machine_gpus"
    WARN_TASK = "warn_task"  # "<task>: <message>"
    # ranking: rejections and "nothing fits"
    REJECT_NOT_ON_PLATFORMS = "reject_not_on_platforms"
    REJECT_NOT_DOMESTIC = "reject_not_domestic"
    REJECT_NO_NVLINK = "reject_no_nvlink"
    REJECT_NOT_EXCLUSIVE = "reject_not_exclusive"
    REJECT_NOT_REQUESTED_HARDWARE = "reject_not_requested_hardware"
    REJECT_NO_CURRENT_PRICE = "reject_no_current_price"
    REJECT_DOES_NOT_FIT = "reject_does_not_fit"
    REJECT_MISSES_DEADLINE = "reject_misses_deadline"
    REJECT_NO_TIME_ESTIMATE = "reject_no_time_estimate"
    REJECT_OVER_BUDGET = "reject_over_budget"
    REJECT_COUNT = "reject_count"
    NO_FIT = "no_fit"
    NO_FIT_NO_OFFERINGS = "no_fit_no_offerings"
    NO_FIT_CLOSEST = "no_fit_closest"
    PLATFORMS_NOT_PRICED = "platforms_not_priced"
    OFFERING_ON_PLATFORM = "offering_on_platform"
    # estimate on given hardware (`on`)
    FIT_MIG_NO_P2P = "fit_mig_no_p2p"
    FIT_NEEDS = "fit_needs"
    FIT_OOM_RISK = "fit_oom_risk"
    FIT_FITS = "fit_fits"
    WARN_NO_TIME_ESTIMATE_HERE = "warn_no_time_estimate_here"
    WARN_NO_DECODE_ESTIMATE = "warn_no_decode_estimate"
    # serving (serving.py): notes of a ServingEstimate
    SERVING_NOTE_DECODE = "serving_note_decode"
    SERVING_NOTE_ALLREDUCE = "serving_note_allreduce"
    SERVING_NOTE_TTFT = "serving_note_ttft"
    WARN_UNVERIFIED_FIGURES = "warn_unverified_figures"
    # placement
    CAPACITY_MIG_SLICE = "capacity_mig_slice"
    CAPACITY_POOLED_SHARE = "capacity_pooled_share"
    CAPACITY_GPU = "capacity_gpu"
    MISS_MEMORY = "miss_memory"
    MISS_SHARDED_ON_SLICES = "miss_sharded_on_slices"
    MISS_SPANS_ON_SLICES = "miss_spans_on_slices"
    MISS_HARD_ON_POOLED = "miss_hard_on_pooled"
    WARN_OOM_RISK = "warn_oom_risk"
    WARN_POOLED_SOFT = "warn_pooled_soft"
    WARN_SHARED_NO_ISOLATION = "warn_shared_no_isolation"
    WARN_MIG_NO_P2P = "warn_mig_no_p2p"
    UNKNOWN_PRESET = "unknown_preset"
    # who says what about whom (sources)
    REJECT_EXCLUSIVE_UNKNOWN = "reject_exclusive_unknown"
    WARN_COMPETITOR_CLAIM = "warn_competitor_claim"
    REASON_RESTS_ON_VENDOR_CLAIM = "reason_rests_on_vendor_claim"
    DIFF_COMPETITOR_CLAIM = "diff_competitor_claim"
    # suggest.py: what would fit, each a scenario to run again
    SUGGEST_TASK_CHANGE = "suggest_task_change"
    SUGGEST_ANY_HARDWARE = "suggest_any_hardware"
    SUGGEST_BUDGET = "suggest_budget"
    SUGGEST_DEADLINE = "suggest_deadline"
    SUGGEST_NOT_EXCLUSIVE = "suggest_not_exclusive"
    SUGGEST_NO_NVLINK = "suggest_no_nvlink"
    SUGGEST_NOT_DOMESTIC_ONLY = "suggest_not_domestic_only"
    SUGGEST_ALL_PLATFORMS = "suggest_all_platforms"
    SUGGEST_STALE_PRICES = "suggest_stale_prices"
    SUGGEST_INTERRUPTIBLE = "suggest_interruptible"
    # plans.py: plans of legs across platforms
    PLAN_MIXED_WINS = "plan_mixed_wins"
    PLAN_NONE_BEATS = "plan_none_beats"
    PLAN_NONE_FOUND = "plan_none_found"
    PLAN_SPLIT_BURST = "plan_split_burst"
    PLAN_SPLIT_KIND = "plan_split_kind"
    PLAN_SPLIT_TASKS = "plan_split_tasks"
    PLAN_SPLIT_SHARE = "plan_split_share"
    PLAN_TASK_SHARE = "plan_task_share"
    PLAN_LEG = "plan_leg"
    PLAN_DATA_TWICE = "plan_data_twice"
    PLAN_TRANSFER = "plan_transfer"
    PLAN_OVER_BUDGET = "plan_over_budget"
    PLAN_MIXED_ONLY = "plan_mixed_only"
    PLAN_LEG_LABEL = "plan_leg_label"
    PLAN_LEGS = "plan_legs"
    PLAN_MBPS_STATED = "plan_mbps_stated"
    PLAN_MBPS_ASSUMED = "plan_mbps_assumed"
    # verdict.py: the article's pick against the advisor's answer
    VERDICT_PICK_WINS = "verdict_pick_wins"
    VERDICT_PICK_CLOSE = "verdict_pick_close"
    VERDICT_OTHER_CHEAPER = "verdict_other_cheaper"
    VERDICT_OTHER_FASTER = "verdict_other_faster"
    VERDICT_PICK_CANNOT_RUN = "verdict_pick_cannot_run"
    VERDICT_PICK_UNPRICED = "verdict_pick_unpriced"
    VERDICT_NOTHING_RUNS = "verdict_nothing_runs"
    VERDICT_PART_COSTS_MORE = "verdict_part_costs_more"
    # premises.py: the seed article's claims, checked
    PREMISE_CLAIM_RULE_OF_THUMB = "premise_claim_rule_of_thumb"
    PREMISE_CLAIM_FIT_ON = "premise_claim_fit_on"
    PREMISE_CLAIM_CASE_COST = "premise_claim_case_cost"
    PREMISE_CLAIM_ONE_CARD = "premise_claim_one_card"
    PREMISE_CLAIM_MIXED_SAVING = "premise_claim_mixed_saving"
    PREMISE_CLAIM_MIG_INSTANCES = "premise_claim_mig_instances"
    PREMISE_CLAIM_MIG_FOR_PRODUCTION = "premise_claim_mig_for_production"
    PREMISE_CLAIM_FIVE_CARDS = "premise_claim_five_cards"
    PREMISE_CLAIM_MIG_BREAK_EVEN = "premise_claim_mig_break_even"
    PREMISE_CLAIM_EXCLUSIVE_CONTRACT = "premise_claim_exclusive_contract"
    PREMISE_CLAIM_POOLED_SHARES = "premise_claim_pooled_shares"
    PREMISE_CLAIM_NVLINK_GAIN = "premise_claim_nvlink_gain"
    PREMISE_CLAIM_PER_CARD = "premise_claim_per_card"
    PREMISE_MODEL_PARAMS = "premise_model_params"
    PREMISE_TWENTY_BYTES = "premise_twenty_bytes"
    PREMISE_WEIGHTS_ONLY = "premise_weights_only"
    PREMISE_SHARDED = "premise_sharded"
    PREMISE_USABLE = "premise_usable"
    PREMISE_FITS = "premise_fits"
    PREMISE_DOES_NOT_FIT = "premise_does_not_fit"
    PREMISE_SEE_MEMORY_PLAN = "premise_see_memory_plan"
    PREMISE_PRORATED = "premise_prorated"
    PREMISE_DAYS_WORTH = "premise_days_worth"
    PREMISE_TASK_GIB = "premise_task_gib"
    PREMISE_PLUS = "premise_plus"
    PREMISE_SUM_GIB = "premise_sum_gib"
    PREMISE_CARD_BOTH = "premise_card_both"
    PREMISE_FIT = "premise_fit"
    PREMISE_DO_NOT_FIT = "premise_do_not_fit"
    PREMISE_BEST_SINGLE = "premise_best_single"
    PREMISE_PART_ALONE = "premise_part_alone"
    PREMISE_CANNOT_SAVE = "premise_cannot_save"
    PREMISE_ARTICLE_PLAN = "premise_article_plan"
    PREMISE_CHEAPEST_CROSS = "premise_cheapest_cross"
    PREMISE_JUDGED_ON_CROSS = "premise_judged_on_cross"
    PREMISE_SPLIT_THRESHOLD = "premise_split_threshold"
    PREMISE_MIG_MOST = "premise_mig_most"
    PREMISE_REC_ON = "premise_rec_on"
    PREMISE_CHEAPEST_RUNS = "premise_cheapest_runs"
    PREMISE_SOFT_CHEAPEST = "premise_soft_cheapest"
    PREMISE_NOTHING_ON = "premise_nothing_on"
    PREMISE_CHEAPEST_ON = "premise_cheapest_on"
    PREMISE_PICK_LEG = "premise_pick_leg"
    PREMISE_CARDS = "premise_cards"
    PREMISE_BREAK_EVEN = "premise_break_even"
    PREMISE_EXCLUSIVE = "premise_exclusive"
    PREMISE_UNKNOWN = "premise_unknown"
    PREMISE_VENDOR_ONLY = "premise_vendor_only"
    PREMISE_POOLED_COUNT = "premise_pooled_count"
    PREMISE_EXCLUSIVE_VS_FREE = "premise_exclusive_vs_free"
    PREMISE_NVLINK_HOURS = "premise_nvlink_hours"
    PREMISE_NVLINK_FASTER = "premise_nvlink_faster"
    PREMISE_PER_CARD = "premise_per_card"
    PREMISE_CARDS_USED = "premise_cards_used"
    BECAUSE_FEWER_GPUS = "because_fewer_gpus"
    BECAUSE_CHEAPER_GPU_HOUR = "because_cheaper_gpu_hour"
    BECAUSE_FASTER_GPUS = "because_faster_gpus"
    BECAUSE_BILLING_UNIT = "because_billing_unit"
    BECAUSE_SPLIT = "because_split"
    BECAUSE_ONE_LEG = "because_one_leg"
    BECAUSE_CHEAPER_PLAN = "because_cheaper_plan"
    # Models by name and pasted config.json (model_catalogue.py, hf_config.py)
    MODEL_NOT_ESTIMABLE = "model_not_estimable"
    CONFIG_AND_MODEL = "config_and_model"
    CONFIG_MUST_BE_OBJECT = "config_must_be_object"
    CONFIG_FIELD_MISSING = "config_field_missing"
    CONFIG_NOT_A_WHOLE_NUMBER = "config_not_a_whole_number"
    CONFIG_NOT_A_BOOLEAN = "config_not_a_boolean"
    CONFIG_VALUE_OUT_OF_RANGE = "config_value_out_of_range"
    CONFIG_TOO_LARGE = "config_too_large"
    EXCLUDED_NO_COUNT = "excluded_no_count"
    EXCLUDED_SHAPE_NOT_COUNTED = "excluded_shape_not_counted"
    EXCLUDED_TIE_UNKNOWN = "excluded_tie_unknown"
    # serving as it is measured: the workload's fields, what engines reach, the network
    SERVING_ONLY_FOR_INFERENCE = "serving_only_for_inference"
    SERVING_WORKLOAD_OVER_CONTEXT = "serving_workload_over_context"
    SERVING_NOTE_MEASURED = "serving_note_measured"
    SERVING_NOTE_NETWORK = "serving_note_network"
    # What a price is (vocab.PriceBasis) and the headroom rule (docs/advisor-rules.md, "What a
    # price is", "Headroom"): market figures left out, claims and tight fits ranked after.
    REJECT_MARKET_FIGURE = "reject_market_figure"
    WARN_MARKET_FIGURE = "warn_market_figure"
    WARN_CLAIMED_PRICE = "warn_claimed_price"
    DIFF_CLAIMED_PRICE = "diff_claimed_price"
    WARN_TIGHT_TRAINING = "warn_tight_training"
    DIFF_TIGHT_HEADROOM = "diff_tight_headroom"
    FIT_ENGINE_POOL = "fit_engine_pool"
    SUGGEST_INCLUDE_MARKET = "suggest_include_market"
    # Spot capacity (ranking.spot_refusal, restarts.py): left out when asked, restarts priced
    REJECT_INTERRUPTIBLE_NOT_ALLOWED = "reject_interruptible_not_allowed"
    WARN_SPOT_RESTARTS = "warn_spot_restarts"
    WARN_SPOT_RESTART_COST = "warn_spot_restart_cost"
    WARN_SPOT_RATE_ASSUMED = "warn_spot_rate_assumed"
    WARN_SPOT_DEADLINE = "warn_spot_deadline"
    SUGGEST_INTERRUPTIBLE_JOBS = "suggest_interruptible_jobs"
    # stacks.py: software stacks, ports and precisions (docs/advisor-rules.md, "Software stacks")
    REJECT_STACK_UNKNOWN = "reject_stack_unknown"
    REJECT_STACK_PYTORCH = "reject_stack_pytorch"
    REJECT_STACK_BITSANDBYTES = "reject_stack_bitsandbytes"
    REJECT_STACK_VLLM = "reject_stack_vllm"
    REJECT_STACK_SGLANG = "reject_stack_sglang"
    REJECT_STACK_TENSORRT_LLM = "reject_stack_tensorrt_llm"
    REJECT_STACK_LLAMA_CPP = "reject_stack_llama_cpp"
    REJECT_STACK_INT4 = "reject_stack_int4"
    REJECT_STACK_DIFFUSERS = "reject_stack_diffusers"
    REJECT_STACK_CUDA_APP = "reject_stack_cuda_app"
    REJECT_STACK_OPTIX = "reject_stack_optix"
    REJECT_STACK_FP64 = "reject_stack_fp64"
    REJECT_STACK_PORT_ONLY = "reject_stack_port_only"
    REJECT_NO_FP8 = "reject_no_fp8"
    REJECT_FP64_NOT_STATED = "reject_fp64_not_stated"
    NEED_PYTORCH = "need_pytorch"
    NEED_BITSANDBYTES_4BIT = "need_bitsandbytes_4bit"
    NEED_FLASH_ATTENTION = "need_flash_attention"
    NEED_VLLM = "need_vllm"
    NEED_SGLANG = "need_sglang"
    NEED_TENSORRT_LLM = "need_tensorrt_llm"
    NEED_LLAMA_CPP = "need_llama_cpp"
    NEED_INT4_WEIGHTS = "need_int4_weights"
    NEED_DIFFUSERS = "need_diffusers"
    NEED_CUDA_APP = "need_cuda_app"
    NEED_OPTIX = "need_optix"
    NEED_FP64_CODE = "need_fp64_code"
    LIMIT_VENDOR_IMAGE = "limit_vendor_image"
    LIMIT_CUDA_WHEELS = "limit_cuda_wheels"
    LIMIT_ASCEND_QUANTIZATION = "limit_ascend_quantization"
    LIMIT_VLLM_MUSA_S4000 = "limit_vllm_musa_s4000"
    LIMIT_BNB_SOURCE_BUILD = "limit_bnb_source_build"
    LIMIT_LLAMA_CPP_CANN_TYPES = "limit_llama_cpp_cann_types"
    LIMIT_NPU_NO_BACKWARD = "limit_npu_no_backward"
    LIMIT_MUSIFY = "limit_musify"
    LIMIT_HIP_PORT = "limit_hip_port"
    LIMIT_UNSOURCED = "limit_unsourced"
    FALLBACK_LEGACY_TOOLCHAIN = "fallback_legacy_toolchain"
    FALLBACK_BNB_CUDA12 = "fallback_bnb_cuda12"
    FALLBACK_SDPA = "fallback_sdpa"
    FALLBACK_GPTQ_ONLY = "fallback_gptq_only"
    FALLBACK_ROCM_INT4 = "fallback_rocm_int4"
    WARN_STACK_PORT = "warn_stack_port"
    WARN_STACK_FALLBACK = "warn_stack_fallback"
    WARN_BF16_AS_FP16 = "warn_bf16_as_fp16"
    WARN_VLLM_DTYPE_HALF = "warn_vllm_dtype_half"
    WARN_PRECISION_UNVERIFIED = "warn_precision_unverified"
    WARN_FP8_AS_W8A16 = "warn_fp8_as_w8a16"
    SUGGEST_ALLOW_PORTS = "suggest_allow_ports"
    WARN_STACK_CC_UNSTATED = "warn_stack_cc_unstated"
    WARN_BF16_NO_TENSOR_CORES = "warn_bf16_no_tensor_cores"
    SERVING_ENGINE_NEEDS_SERVING = "serving_engine_needs_serving"
    SERVING_ENGINE_LLM_ONLY = "serving_engine_llm_only"
    # ---- renters' filters: location, delivery form, host resources, who may rent (scenario.py,
    # ranking.constraint_miss, suggest.py)
    MUST_BE_COUNTRY_LIST = "must_be_country_list"
    MUST_BE_REGION_LIST = "must_be_region_list"
    MUST_BE_DELIVERY_FORM_LIST = "must_be_delivery_form_list"
    REJECT_NOT_IN_COUNTRIES = "reject_not_in_countries"
    REJECT_COUNTRY_UNKNOWN = "reject_country_unknown"
    REJECT_NOT_IN_REGIONS = "reject_not_in_regions"
    REJECT_REGION_UNKNOWN = "reject_region_unknown"
    REJECT_NOT_DELIVERY_FORM = "reject_not_delivery_form"
    REJECT_DELIVERY_FORM_UNKNOWN = "reject_delivery_form_unknown"
    REJECT_FEW_VCPUS = "reject_few_vcpus"
    REJECT_VCPUS_UNKNOWN = "reject_vcpus_unknown"
    REJECT_LITTLE_RAM = "reject_little_ram"
    REJECT_RAM_UNKNOWN = "reject_ram_unknown"
    REJECT_LITTLE_DISK = "reject_little_disk"
    REJECT_DISK_UNKNOWN = "reject_disk_unknown"
    REJECT_CN_IDENTITY_REQUIRED = "reject_cn_identity_required"
    REJECT_NO_FOREIGN_CARDS = "reject_no_foreign_cards"
    REJECT_RENTER_UNKNOWN = "reject_renter_unknown"
    # A renter paying in USD told who may rent a platform in mainland China (ranking.py)
    WARN_RENTER_ABROAD_UNKNOWN = "warn_renter_abroad_unknown"
    WARN_RENTER_NEEDS_CN_IDENTITY = "warn_renter_needs_cn_identity"
    WARN_RENTER_CARDS_UNVERIFIED = "warn_renter_cards_unverified"
    SUGGEST_ANY_COUNTRY = "suggest_any_country"
    SUGGEST_ANY_REGION = "suggest_any_region"
    SUGGEST_ANY_DELIVERY_FORM = "suggest_any_delivery_form"
    SUGGEST_ANY_HOST_SIZE = "suggest_any_host_size"


TEMPLATES: dict[Code, str] = {
    Code.MUST_BE_OBJECT: gettext_noop("must be an object"),
    Code.KEYS_MUST_BE_STRINGS: gettext_noop("keys must be strings, got %(key)s"),
    Code.UNKNOWN_FIELD: gettext_noop("unknown field"),
    Code.UNKNOWN_FIELD_DID_YOU_MEAN: gettext_noop("unknown field; did you mean '%(suggestion)s'?"),
    Code.MUST_BE_NON_EMPTY_STRING: gettext_noop("must be a non-empty string"),
    Code.STRING_TOO_LONG: gettext_noop("must be at most %(max)s characters"),
    Code.MUST_BE_ONE_OF: gettext_noop("must be one of %(choices)s"),
    Code.MUST_BE_BOOLEAN: gettext_noop("must be true or false"),
    Code.MUST_BE_NUMBER: gettext_noop("must be a number"),
    Code.MUST_BE_FINITE: gettext_noop("must be a finite number"),
    Code.OUT_OF_RANGE: gettext_noop("must be in %(range)s"),
    Code.MUST_BE_WHOLE: gettext_noop("must be a whole number"),
    Code.MUST_BE_LIST: gettext_noop("must be a list"),
    Code.LIST_LENGTH: gettext_noop("must have between %(low)s and %(high)s items"),
    Code.GENERIC_INVALID: gettext_noop("is not valid"),
    Code.UNKNOWN_ACCELERATOR: gettext_noop("unknown accelerator '%(name)s'"),
    Code.UNKNOWN_MODEL: gettext_noop("unknown model '%(name)s'"),
    Code.NO_MIG: gettext_noop("%(accelerator)s does not support MIG"),
    Code.NO_MIG_PROFILE: gettext_noop(
        "%(accelerator)s has no MIG profile '%(profile)s'; it has %(profiles)s"
    ),
    Code.NO_EXCHANGE_RATE: gettext_noop(
        "no %(base)s/%(quote)s exchange rate dated on or before %(date)s; add one"
    ),
    # scenario validation rules (scenario.py) and named hardware (hardware.py, mig.py, timing.py)
    Code.RANGE_CLOSED: gettext_noop("[%(low)s, %(high)s]"),
    Code.RANGE_LOW_OPEN: gettext_noop("(%(low)s, %(high)s]"),
    Code.AMOUNT_OUT_OF_RANGE: gettext_noop("must be a finite amount between 0 and 1e15"),
    Code.MUST_BE_PLATFORM_LIST: gettext_noop("must be a list of platform slugs"),
    Code.UNKNOWN_MODEL_DID_YOU_MEAN: gettext_noop(
        "unknown model '%(name)s'; did you mean %(suggestions)s?"
    ),
    Code.UNKNOWN_ACCELERATOR_DID_YOU_MEAN: gettext_noop(
        "unknown accelerator '%(name)s'; did you mean %(suggestions)s?"
    ),
    Code.ACTIVE_PARAMS_EXCEED_PARAMS: gettext_noop("cannot exceed params"),
    Code.MODEL_AND_PARAMS: gettext_noop("give either a model preset or params/arch, not both"),
    Code.ARCH_NEEDS_PARAMS: gettext_noop("arch needs params"),
    Code.MODEL_REQUIRED: gettext_noop("give a model preset or params"),
    Code.ACCELERATOR_REQUIRED: gettext_noop("name the accelerator"),
    Code.JOBS_NEED_TOKENS: gettext_noop(
        "only a job (a training task with tokens, a fixed task with frames) runs a number of "
        "times a month"
    ),
    Code.FIXED_NEEDS_VRAM: gettext_noop("kind fixed needs vram_gib"),
    Code.VRAM_ONLY_FOR_FIXED: gettext_noop("vram_gib applies only to kind fixed"),
    Code.TRAINING_PRECISION: gettext_noop("%(kind)s trains in %(precisions)s"),
    Code.PARAM_OFFLOAD_NEEDS_ZERO3: gettext_noop(
        "offloading parameters needs sharding zero3 (fsdp)"
    ),
    Code.ON_COUNT_DIFFERS: gettext_noop("on.count (%(count)s) differs from gpus (%(gpus)s)"),
    Code.KIND_REQUIRED: gettext_noop("give the task's kind"),
    Code.SCENARIO_MUST_BE_OBJECT: gettext_noop(
        "the scenario must be a JSON object with a tasks list"
    ),
    Code.TASKS_REQUIRED: gettext_noop("give a non-empty list of tasks"),
    Code.TOO_MANY_TASKS: gettext_noop("at most %(max)s tasks"),
    Code.DUPLICATE_TASK_NAME: gettext_noop("duplicate task name '%(name)s'"),
    Code.TOKENS_REQUIRED: gettext_noop("give the training tokens to estimate time"),
    Code.NO_THROUGHPUT_FIGURE: gettext_noop("no throughput figure for %(accelerator)s"),
    # diffusion pipelines (diffusion.py) and fixed tasks (timing.py, needs.py)
    Code.ONLY_FOR_DIFFUSION: gettext_noop(
        "applies only to diffusion models (sd-1.5, sdxl, sd3, sd3.5, flux.1)"
    ),
    Code.ONLY_FOR_FIXED: gettext_noop("applies only to kind fixed"),
    Code.ONLY_FOR_LLM_ARCH: gettext_noop(
        "a diffusion model takes its shape from its variant; give params and the variant only"
    ),
    Code.DIFFUSION_NEEDS_VARIANT: gettext_noop(
        "a diffusion arch needs a variant: the preset it is built like, one of %(choices)s"
    ),
    Code.RESOLUTION_MULTIPLE: gettext_noop("must be a multiple of %(multiple)s pixels"),
    Code.FIXED_TIME_FIELDS: gettext_noop(
        "frames, seconds_per_frame and reference_accelerator go together"
    ),
    Code.FIXED_NO_FIGURE: gettext_noop("%(accelerator)s has no %(figure)s figure"),
    Code.MEMORY_NOTE_DIFFUSION_RESOLUTION: gettext_noop(
        "images of %(pixels)s × %(pixels)s pixels (the model's native size: %(native)s)"
    ),
    Code.MEMORY_NOTE_TEXT_ENCODERS_GPU: gettext_noop("text encoders on the GPU: %(encoders)s"),
    Code.MEMORY_NOTE_TEXT_ENCODERS_OFFLOADED: gettext_noop(
        "%(encoders)s and the VAE wait in host RAM and move to the GPU for their own pass "
        "(diffusers enable_model_cpu_offload)"
    ),
    Code.MEMORY_NOTE_TEXT_ENCODERS_CACHED: gettext_noop(
        "%(encoders)s not loaded: their outputs (for training, the latents too) are computed "
        "beforehand, as kohya's --cache_text_encoder_outputs --cache_latents and SimpleTuner do"
    ),
    Code.MEMORY_NOTE_CFG: gettext_noop(
        "classifier-free guidance denoises each image with and without its prompt: batch %(batch)s"
    ),
    Code.MEMORY_NOTE_VAE_FP32: gettext_noop(
        "the VAE decodes in fp32 (its config's force_upcast), its weights included"
    ),
    Code.MEMORY_NOTE_DIFFUSION_ALLOCATOR: gettext_noop(
        "PyTorch's caching allocator keeps the denoiser's blocks while the VAE decodes: both "
        "workspaces are counted"
    ),
    Code.MEMORY_NOTE_DIFFUSION_SDPA: gettext_noop(
        "attention through PyTorch SDPA keeps no score matrix; cuDNN convolution workspaces are "
        "not counted"
    ),
    Code.MEMORY_NOTE_DIFFUSION_LORA: gettext_noop(
        "LoRA rank %(rank)s on %(targets)s: %(trainable)s trainable params (Σ r·(d_in + d_out))"
    ),
    Code.LORA_TARGETS_BLOCK_ATTENTION: gettext_noop(
        "the attention q, k, v and output of every block"
    ),
    Code.LORA_TARGETS_BLOCK_ALL_LINEAR: gettext_noop(
        "the attention and MLP linear layers of every block"
    ),
    Code.FORMULA_DIFFUSION_COMPONENT: gettext_noop(
        "%(component)s %(params)s × %(bytes_per_param)s B (%(precision)s)"
    ),
    Code.FORMULA_PLUS: gettext_noop("%(a)s + %(b)s"),
    Code.FORMULA_DIT_ACTIVATIONS: gettext_noop(
        "%(blocks)s blocks × %(tokens)s tokens (%(image)s image + %(text)s text) × %(batch)s × "
        "%(per_token)s B kept per token + %(workspace)s B per token of backward workspace"
    ),
    Code.FORMULA_DIT_ACTIVATIONS_CHECKPOINTED: gettext_noop(
        "%(blocks)s block inputs × %(tokens)s tokens (%(image)s image + %(text)s text) × "
        "%(batch)s × %(input)s B + one block recomputed with its backward workspace, "
        "%(per_token)s B per token"
    ),
    Code.FORMULA_UNET_ACTIVATIONS: gettext_noop(
        "UNet at %(latent)s² latent pixels: %(saved)s channel-values kept + %(workspace)s of "
        "backward workspace, × %(batch)s × 2 B"
    ),
    Code.FORMULA_UNET_ACTIVATIONS_CHECKPOINTED: gettext_noop(
        "UNet at %(latent)s² latent pixels: %(checkpoints)s channel-values of block inputs + "
        "%(recomputed)s for one block recomputed and its backward, × %(batch)s × 2 B"
    ),
    Code.FORMULA_UNET_INFERENCE: gettext_noop(
        "UNet at %(latent)s² latent pixels: %(skips)s channel-values of skip connections + "
        "%(live)s of one layer, × %(batch)s × 2 B"
    ),
    Code.FORMULA_DIT_INFERENCE: gettext_noop(
        "%(tokens)s tokens × %(batch)s × %(per_token)s B of one block"
    ),
    Code.FORMULA_VAE_DECODE: gettext_noop(
        "VAE decode %(pixels)s² pixels × %(images)s × %(per_pixel)s B"
    ),
    Code.FORMULA_VAE_ENCODE: gettext_noop(
        "VAE encode %(pixels)s² pixels × %(images)s × %(per_pixel)s B"
    ),
    Code.FIX_CACHE_TEXT_ENCODERS: gettext_noop(
        "text-encoder outputs and latents cached (kohya --cache_text_encoder_outputs "
        "--cache_latents)"
    ),
    Code.FIX_OFFLOAD_CHECKPOINTS: gettext_noop(
        "checkpoints offloaded to CPU (kohya --cpu_offload_checkpointing)"
    ),
    Code.FIX_OPTIMIZER_8BIT: gettext_noop("8-bit AdamW (bitsandbytes)"),
    Code.FIX_OFFLOAD_TEXT_ENCODERS: gettext_noop(
        "text encoders and VAE on the CPU between their passes (enable_model_cpu_offload)"
    ),
    Code.FIX_TEXT_ENCODER_PRECISION: gettext_noop("%(precision)s text encoders"),
    Code.FIX_WEIGHTS_AND_TEXT_ENCODERS: gettext_noop(
        "%(precision)s weights, text encoders included"
    ),
    Code.FIX_MAX_IMAGES: gettext_noop("images at once: at most %(images)s"),
    Code.TIME_NOTE_FIXED: gettext_noop(
        "%(frames)s frames × %(seconds)s s on %(reference)s × %(reference_figure)s ÷ "
        "%(figure)s (%(scale_by)s) ÷ %(gpus)s GPUs"
    ),
    Code.TIME_NOTE_FIXED_RANGE: gettext_noop(
        "range: a job bound by %(scale_by)s or by %(other)s scales with that figure (roofline), "
        "%(fast)s to %(slow)s s per frame"
    ),
    Code.REJECT_NO_FP64: gettext_noop("FP64 below the task's need"),
    Code.REJECT_NO_RT_CORES: gettext_noop("no RT cores"),
    Code.REJECT_NO_NVENC: gettext_noop("no video encoder (NVENC)"),
    Code.WARN_FIGURE_NOT_STATED: gettext_noop(
        "%(accelerator)s: %(figure)s not stated, so the task's need for it is not checked"
    ),
    Code.FIGURE_FP32: gettext_noop("FP32 TFLOPS"),
    Code.FIGURE_FP64: gettext_noop("FP64 TFLOPS"),
    Code.FIGURE_BF16: gettext_noop("BF16 TFLOPS"),
    Code.FIGURE_BANDWIDTH: gettext_noop("memory bandwidth (GB/s)"),
    Code.FIGURE_RT_CORES: gettext_noop("RT cores"),
    Code.FIGURE_NVENC: gettext_noop("video encoders (NVENC)"),
    Code.NO_BANDWIDTH_FIGURE: gettext_noop("no memory bandwidth figure for %(accelerator)s"),
    # memory (memory.py): notes of a MemoryPlan
    Code.MEMORY_NOTE_FIXED_STATED: gettext_noop(
        "stated working set of a non-ML workload (vram_gib), taken as given"
    ),
    Code.MEMORY_NOTE_QLORA_BF16: gettext_noop(
        "QLoRA keeps embeddings and LM head in bf16; linear layers in NF4"
    ),
    Code.MEMORY_NOTE_QLORA_FP32_KEPT: gettext_noop(
        "QLoRA through PEFT's prepare_model_for_kbit_training (the Hugging Face stack) keeps "
        "embeddings and LM head in fp32; linear layers in NF4"
    ),
    Code.MEMORY_NOTE_LORA_TARGETS: gettext_noop(
        "LoRA rank %(rank)s on %(targets)s of every layer: %(trainable)s trainable params "
        "(Σ r·(d_in + d_out))"
    ),
    Code.LORA_TARGETS_ATTENTION: gettext_noop("q, k, v, o"),
    Code.LORA_TARGETS_ALL_LINEAR: gettext_noop("q, k, v, o, gate, up, down"),
    Code.MEMORY_NOTE_ACTIVATIONS_SAVED: gettext_noop(
        "activations are the tensors autograd keeps for the backward pass, counted per layer of a "
        "LLaMA-style block (RMSNorm, SwiGLU MLP) after Korthikanti et al.; %(attention)s"
    ),
    Code.MEMORY_NOTE_FROZEN_INPUTS: gettext_noop(
        "frozen base weights need no weight gradients, so the inputs of linear layers without an "
        "adapter are not kept"
    ),
    Code.MEMORY_NOTE_HOST_RAM_ACTIVATIONS: gettext_noop(
        "needs ~%(host)s of host RAM per GPU for offloaded activations"
    ),
    Code.MEMORY_NOTE_PAGED_PREALLOCATES: gettext_noop(
        "a paged-KV server (vLLM, SGLang) takes %(utilization)s of the GPU at start-up whatever "
        "its load; nothing else fits beside it"
    ),
    Code.MEMORY_NOTE_ACTIVATIONS_PER_GPU: gettext_noop(
        "each data-parallel GPU holds the activations of its own micro-batch"
    ),
    Code.MEMORY_NOTE_SHAPE_ASSUMED: gettext_noop(
        "shape not given: assumed params ≈ 12·L·h² with h = 128·L, giving L=%(layers)s, "
        "h=%(hidden)s (activation, LoRA and ZeRO-3 layer figures are approximate)"
    ),
    Code.MEMORY_NOTE_HOST_RAM: gettext_noop(
        "needs ~%(host)s of host RAM for offloaded states, job-wide"
    ),
    Code.MEMORY_NOTE_MOE_ALL_EXPERTS: gettext_noop(
        "mixture of experts: every expert is held in memory, not only active ones"
    ),
    # memory (memory.py): formulas of a MemoryPlan, by component; composed by nesting
    Code.PARAMS_BILLIONS: gettext_noop("%(billions)sB params"),
    Code.PARAMS_MILLIONS: gettext_noop("%(millions)sM params"),
    Code.FORMULA_RESULT: gettext_noop("%(formula)s = %(bytes)s"),
    Code.FORMULA_SHARDED: gettext_noop("%(formula)s ÷ %(gpus)s GPUs (%(sharding)s)"),
    Code.FORMULA_TENSOR_PARALLEL: gettext_noop("%(formula)s ÷ %(gpus)s GPUs (tensor parallel)"),
    Code.FORMULA_FIXED: gettext_noop("vram_gib %(vram_gib)s × 2^30"),
    Code.FORMULA_WEIGHTS: gettext_noop("%(params)s × %(bytes_per_param)s B (%(precision)s)"),
    Code.FORMULA_WEIGHTS_NF4: gettext_noop(
        "%(quantized)s × %(bytes_per_param)s B (NF4 + double quant) + %(kept)s embeddings × 2 B "
        "(bf16)"
    ),
    Code.FORMULA_WEIGHTS_NF4_FP32_KEPT: gettext_noop(
        "%(quantized)s × %(bytes_per_param)s B (NF4 + double quant) + %(kept)s embeddings × 4 B "
        "(fp32)"
    ),
    Code.FORMULA_PLUS_ADAPTERS: gettext_noop(
        "%(formula)s + %(adapters)s adapters × %(bytes_per_param)s B"
    ),
    Code.FORMULA_WEIGHTS_OFFLOADED: gettext_noop(
        "offloaded to CPU (ZeRO-Infinity/FSDP CPU offload)"
    ),
    Code.FORMULA_GRADIENTS: gettext_noop(
        "%(params)s × %(bytes_per_param)s B (%(precision)s gradients)"
    ),
    Code.FORMULA_GRADIENTS_STREAMED: gettext_noop(
        "streamed to CPU in buckets (DeepSpeed ZeRO-Offload)"
    ),
    Code.FORMULA_OPTIMIZER: gettext_noop("%(params)s × %(bytes_per_param)s B (%(optimizer)s)"),
    Code.FORMULA_OPTIMIZER_MASTER: gettext_noop(
        "%(params)s × %(bytes_per_param)s B (%(optimizer)s, fp32 master copy)"
    ),
    Code.FORMULA_OPTIMIZER_OFFLOADED: gettext_noop("offloaded to CPU"),
    Code.FORMULA_ACTIVATIONS_LAYERS: gettext_noop(
        "%(layers)s layers × %(tokens)s tokens × %(per_token)s B kept per token (%(attention)s)"
    ),
    Code.FORMULA_ACTIVATIONS_INPUTS: gettext_noop(
        "%(layers)s layer inputs × %(tokens)s tokens × %(input)s B"
    ),
    Code.FORMULA_ACTIVATIONS_IN_FLIGHT: gettext_noop(
        "%(formula)s, with %(kept)s of %(layers)s layers on the GPU and the rest offloaded to "
        "host RAM"
    ),
    Code.ATTENTION_FLASH: gettext_noop("FlashAttention/SDPA, no s² scores"),
    Code.ATTENTION_EAGER: gettext_noop("eager attention with its s² scores"),
    Code.ATTENTION_RECOMPUTED: gettext_noop("eager attention, scores recomputed"),
    Code.FORMULA_PLUS_OUTSIDE_LAYERS: gettext_noop(
        "%(formula)s + final norm and RoPE tables %(tokens)s tokens × %(per_token)s B"
    ),
    Code.FORMULA_PLUS_CAUSAL_MASK: gettext_noop(
        "%(formula)s + causal mask %(tokens)s × %(tokens)s × %(bytes_per_entry)s B"
    ),
    Code.FORMULA_PLUS_LARGER_OF: gettext_noop(
        "%(formula)s + the larger of the loss, %(loss)s, and %(backward)s"
    ),
    Code.FORMULA_PLUS_BACKWARD: gettext_noop("%(formula)s + %(backward)s"),
    Code.FORMULA_LOSS: gettext_noop(
        "%(tokens)s tokens × %(vocab)s vocab × %(bytes_per_entry)s B (%(loss)s)"
    ),
    Code.FORMULA_FUSED_LOSS: gettext_noop(
        "%(tokens)s tokens × %(per_token)s B (%(loss)s, no vocabulary-wide logits)"
    ),
    Code.FORMULA_LAYER_BACKWARD: gettext_noop(
        "one layer's backward %(tokens)s tokens × %(per_token)s B"
    ),
    Code.FORMULA_RECOMPUTED_BACKWARD: gettext_noop(
        "one layer recomputed with its backward %(tokens)s tokens × %(per_token)s B (%(attention)s)"
    ),
    Code.FORMULA_GRADIENTS_FUSED_STEP: gettext_noop(
        "largest tensor %(params)s × %(bytes_per_param)s B (optimizer step fused into the "
        "backward pass)"
    ),
    Code.FORMULA_PREFILL_WORKSPACE: gettext_noop(
        "prefill %(tokens)s tokens × %(per_token)s B + sampling logits %(sequences)s × "
        "%(vocab)s vocab × %(bytes_per_entry)s B"
    ),
    Code.FORMULA_PLUS_PREFILL_SCORES: gettext_noop(
        "%(formula)s + eager attention scores %(heads)s heads × %(tokens)s² tokens × "
        "%(sequences)s sequences × 6 B"
    ),
    Code.FORMULA_KV_PAGED: gettext_noop(
        "%(bytes_per_token)s B/token (%(kv_precision)s) × %(blocked)s tokens (%(context_len)s "
        "context in %(block)s-token blocks) × %(sequences)s sequences"
    ),
    Code.FORMULA_KV_CONCAT: gettext_noop(
        "%(bytes_per_token)s B/token (%(kv_precision)s) × %(context_len)s context × "
        "%(sequences)s sequences × 2 (generate concatenates: old and new cache coexist)"
    ),
    Code.FORMULA_OVERHEAD: gettext_noop("CUDA context + allocator %(bytes)s"),
    Code.FORMULA_PLUS_PREALLOCATION: gettext_noop(
        "%(formula)s + %(unused)s left unused by the server (gpu_memory_utilization "
        "%(utilization)s)"
    ),
    Code.FORMULA_PLUS_ZERO3_GATHER: gettext_noop(
        "%(formula)s + ZeRO-3 gathered %(units)s units × %(params)s × %(bytes_per_param)s B "
        "(%(precision)s)"
    ),
    Code.FORMULA_PLUS_ZERO3_GRADIENT: gettext_noop(
        "%(formula)s + one unit's unsharded gradient %(params)s × %(bytes_per_param)s B"
    ),
    # memory (memory.py): suggest_fixes, what would make a task fit; composed by nesting
    Code.FIX_PER_GPU: gettext_noop("%(fix)s: %(per_gpu)s per GPU"),
    Code.FIX_PER_GPU_HOST_RAM: gettext_noop(
        "%(fix)s: %(per_gpu)s per GPU, needs ~%(host)s of host RAM"
    ),
    Code.FIX_WITH_FULL_CHECKPOINTING: gettext_noop("%(fix)s with full activation checkpointing"),
    Code.FIX_WITH_LIGER_KERNELS: gettext_noop("%(fix)s with Liger kernels"),
    Code.FIX_FULL_CHECKPOINTING: gettext_noop("full activation checkpointing"),
    Code.FIX_FLASH_ATTENTION: gettext_noop("FlashAttention or SDPA instead of eager attention"),
    Code.FIX_LIGER_KERNELS: gettext_noop(
        "Liger kernels (use_liger_kernel: fused RMSNorm, SwiGLU and linear cross-entropy, no "
        "logits kept)"
    ),
    Code.FIX_OFFLOAD_ACTIVATIONS: gettext_noop(
        "activations offloaded to CPU (Unsloth gradient checkpointing, torchtune activation "
        "offloading)"
    ),
    Code.FIX_FUSED_OPTIMIZER_STEP: gettext_noop(
        "optimizer step fused into the backward pass (torchtune optimizer_in_bwd)"
    ),
    Code.FIX_PAGED_SERVING: gettext_noop("a paged KV cache (vLLM, SGLang) instead of generate"),
    Code.FIX_OFFLOAD_OPTIMIZER: gettext_noop("offload optimizer states to CPU"),
    Code.FIX_ZERO3_OFFLOAD: gettext_noop("ZeRO-3 with optimizer and parameters offloaded to CPU"),
    Code.FIX_LORA: gettext_noop("LoRA (rank %(rank)s)"),
    Code.FIX_QLORA: gettext_noop("QLoRA (NF4, rank %(rank)s)"),
    Code.FIX_HOW_TENSOR_PARALLEL: gettext_noop("tensor parallel"),
    Code.FIX_HOW_ZERO3: gettext_noop("ZeRO-3 (FSDP)"),
    Code.FIX_MORE_GPUS: gettext_noop("%(how)s over %(gpus)s GPUs of this size"),
    Code.FIX_MORE_GPUS_MACHINES: gettext_noop(
        "%(how)s over %(gpus)s GPUs of this size (%(machines)s machines of %(per_machine)s)"
    ),
    Code.FIX_MORE_GPUS_MACHINES_MINIMUM: gettext_noop(
        "%(how)s over %(gpus)s GPUs of this size (%(machines)s machines of %(per_machine)s; "
        "%(minimum)s is the minimum)"
    ),
    Code.FIX_WEIGHTS_PRECISION: gettext_noop("%(precision)s weights"),
    Code.FIX_KV_PRECISION: gettext_noop("%(precision)s KV cache"),
    Code.FIX_MAX_SEQUENCES: gettext_noop(
        "at most %(sequences)s concurrent sequences of %(context_len)s tokens fit"
    ),
    Code.FIX_BIGGER_GPU: gettext_noop("a GPU with at least %(bytes)s of usable memory"),
    # training time (timing.py): warnings and notes of a TimeEstimate
    Code.TIME_WARN_MFU_HIGH: gettext_noop(
        "MFU %(mfu)s is above the 60 %% no published run reaches"
    ),
    Code.TIME_WARN_SCALING: gettext_noop(
        "scaling efficiency %(efficiency)s: gradient all-reduce dominates on this interconnect"
    ),
    Code.TIME_NOTE_MFU: gettext_noop("MFU %(mfu)s of dense peak %(peak)s TFLOPS"),
    Code.TIME_NOTE_BUSBW: gettext_noop("all-reduce busbw %(busbw)s GB/s (%(source)s)"),
    Code.TIME_NOTE_QLORA_DEQUANT: gettext_noop(
        "QLoRA dequantization adds about %(seconds)s s per micro-batch (%(source)s)"
    ),
    Code.TIME_NOTE_MFU_BAND: gettext_noop(
        "MFU %(low)s to %(high)s, from published runs on hardware of %(ridge)s FLOPs per byte "
        "of memory bandwidth and a model of %(params)s parameters"
    ),
    Code.TIME_NOTE_ATTENTION: gettext_noop(
        "attention adds %(share)s to the 6ND FLOPs at %(seq_len)s tokens per sequence"
    ),
    Code.TIME_NOTE_NODES: gettext_noop(
        "%(nodes)s machines of %(per_node)s GPUs, joined by %(network)s at %(gbps)s Gb/s each: "
        "all-reduce busbw %(busbw)s GB/s between machines"
    ),
    Code.NETWORK_WHY_PARTIAL_MACHINE: gettext_noop(
        "a container or VM on part of a machine, e.g. Lambda on-demand's 10 Gbps"
    ),
    Code.NETWORK_WHY_DGX: gettext_noop(
        "NVIDIA DGX reference: one %(gbps)s Gb/s InfiniBand NIC per GPU"
    ),
    Code.NETWORK_WHY_PCIE_MACHINE: gettext_noop("an 8-GPU PCIe cloud instance, e.g. g5.48xlarge"),
    Code.TIME_NOTE_NETWORK_ASSUMED: gettext_noop(
        "the network between machines is not stated; assumed %(network)s at %(gbps)s Gb/s per "
        "machine (%(source)s)"
    ),
    Code.TIME_NOTE_OFFLOAD: gettext_noop(
        "offload costs %(pcie)s s over PCIe and %(cpu)s s of CPU Adam per optimizer step"
    ),
    Code.BUSBW_SOURCE_PCIE: gettext_noop("PCIe: %(source)s"),
    Code.BUSBW_SOURCE_NVLINK: gettext_noop("NVLink: %(source)s"),
    Code.BUSBW_SOURCE_NVLINK_SCALED: gettext_noop(
        "NVLink: %(source)s, scaled by NVLink %(bandwidth)s/%(anchor_bandwidth)s GB/s"
    ),
    Code.NO_EXCHANGE_RATE_ANY: gettext_noop("no %(base)s/%(quote)s exchange rate; add one"),
    Code.TIME_NOT_NEGATIVE: gettext_noop("time must be zero or more, got %(seconds)s"),
    Code.SESSIONS_AT_LEAST_ONE: gettext_noop("sessions must be at least 1"),
    Code.STORAGE_NOT_NEGATIVE: gettext_noop("storage must be zero GB or more"),
    Code.BUSY_HOURS_RANGE: gettext_noop(
        "busy hours per month must be between 0 and %(high)s, got %(hours)s"
    ),
    Code.HOURS_OVER_MONTH: gettext_noop(
        "at most %(high)s: the billing month is %(days)s days (%(high)s)"
    ),
    Code.BREAK_EVEN_ONE_CURRENCY: gettext_noop(
        "break-even needs one currency; got %(a)s and %(b)s"
    ),
    Code.REASON_RUNS_ALL: gettext_noop(
        "Runs all %(tasks)s task(s) on %(instances)s instance(s) of %(gpus)s× %(accelerator)s "
        "(%(modes)s)"
    ),
    Code.REASON_BEST_BY_COST: gettext_noop(
        "Best of %(fitting)s fitting offerings by lowest cost (%(basis)s)"
    ),
    Code.REASON_BEST_BY_TIME: gettext_noop(
        "Best of %(fitting)s fitting offerings by shortest training time"
    ),
    Code.REASON_BEST_BY_BALANCED: gettext_noop(
        "Best of %(fitting)s fitting offerings by cost (%(basis)s) and time"
    ),
    Code.REASON_PARETO: gettext_noop(
        "On the Pareto front: nothing else is both cheaper and faster"
    ),
    Code.REASON_CHEAPEST_BILLING: gettext_noop("Cheapest billing here: %(unit)s plan, %(monthly)s"),
    Code.REASON_CHEAPEST_BILLING_MIXED: gettext_noop(
        "Cheapest billing here: mixed plan, %(monthly)s"
    ),
    Code.REASON_BREAK_EVEN: gettext_noop(
        "The %(prepaid_unit)s plan (%(prepaid)s) beats %(metered)s above %(hours)s of use per "
        "%(prepaid_unit)s"
    ),
    Code.REASON_CHEAPEST_BILLING_JOB: gettext_noop(
        "Cheapest billing here for the whole job: %(unit)s plan, %(cost)s"
    ),
    Code.REASON_CHEAPEST_BILLING_JOB_MIXED: gettext_noop(
        "Cheapest billing here for the whole job: mixed plan, %(cost)s"
    ),
    Code.REASON_REGIONS: gettext_noop("The same offer and price in these regions: %(regions)s"),
    Code.REASON_PLAN_OF_LEGS: gettext_noop("A plan of %(count)s legs: %(legs)s"),
    Code.REASON_PLAN_LEG: gettext_noop("%(leg)s runs %(tasks)s: %(cost)s"),
    Code.PLATFORMS_ONE_CARD: gettext_noop(
        "These platforms list single cards and state no host size, so a task over several GPUs "
        "is rented one card per instance there, over the network between instances: "
        "%(platforms)s"
    ),
    Code.REASON_CARDS_ON_ONE_HOST: gettext_noop(
        "%(cards)s cards of one host rented as one instance, each at the card's price (the "
        "platform rents up to %(most)s cards of one host, linked by %(interconnect)s: %(source)s)"
    ),
    Code.REASON_VERSUS_FIRST: gettext_noop("Against #1: %(differences)s"),
    Code.REASON_TIED_WITH_FIRST: gettext_noop(
        "Tied with #1 (within %(limit)s on the objective): %(differences)s"
    ),
    Code.DIFF_COSTS_MORE: gettext_noop("%(amount)s more"),
    Code.DIFF_COSTS_LESS: gettext_noop("%(amount)s less"),
    Code.DIFF_SAME_COST: gettext_noop("the same cost"),
    Code.DIFF_SLOWER: gettext_noop("%(hours)s slower"),
    Code.DIFF_FASTER: gettext_noop("%(hours)s faster"),
    Code.DIFF_VENDOR_CLAIM: gettext_noop("its price is the platform's own claim"),
    Code.DIFF_STALE_PRICE: gettext_noop("its price is stale"),
    Code.WARN_JOB_SPANS_MONTHS: gettext_noop(
        "needs %(hours)s, more than its window of %(window)s a month: it spans %(months)s months "
        "and is costed for all of them"
    ),
    Code.WARN_JOBS_ON_PARALLEL_INSTANCES: gettext_noop(
        "%(jobs)s runs a month need %(hours)s, more than one instance's window of %(window)s a "
        "month: costed on %(instances)s instances side by side"
    ),
    Code.WARN_METERING_ASSUMED: gettext_noop(
        "%(platform)s does not state how it meters pay-as-you-go time: assumed per second; "
        "billed per started hour, this plan would cost %(more)s more"
    ),
    Code.WARN_STORAGE_ASSUMED: gettext_noop(
        "No storage price recorded for %(platform)s; assumed %(cost)s, the median of "
        "%(platforms)s platforms' prices"
    ),
    Code.IDLE_STOPPED: gettext_noop(
        "Runs: %(runs)s, about %(gap)s apart; idle %(hours)s: stopped, which costs nothing"
    ),
    Code.IDLE_STOPPED_STORAGE: gettext_noop(
        "Runs: %(runs)s, about %(gap)s apart; idle %(hours)s: stopped; its data is billed "
        "while stopped, %(storage)s of the storage cost"
    ),
    Code.IDLE_KEPT_IDLE_MODE: gettext_noop(
        "Runs: %(runs)s, about %(gap)s apart; idle %(hours)s: stopped for %(days)s at a "
        "time, then kept in the no-GPU mode for %(kept)s so that it and its data are not "
        "released, %(cost)s"
    ),
    Code.IDLE_KEPT_RUNNING: gettext_noop(
        "Runs: %(runs)s, about %(gap)s apart; idle %(hours)s: stopped for %(days)s at a "
        "time, then kept running for %(kept)s so that it and its data are not released, "
        "%(cost)s"
    ),
    Code.IDLE_RELEASED: gettext_noop(
        "Runs: %(runs)s, about %(gap)s apart; idle %(hours)s: stopped, and released with "
        "its data after %(days)s"
    ),
    Code.IDLE_PREPAID: gettext_noop("Idle %(hours)s: the prepaid plan already pays for it"),
    Code.IDLE_STARTUP_BILLED: gettext_noop(
        "Start-up time billed: %(hours)s in all (starts: %(runs)s), %(cost)s"
    ),
    Code.IDLE_STARTUP_ASSUMED: gettext_noop(
        "%(platform)s does not say whether start-up time is billed: it is counted as billed"
    ),
    Code.IDLE_STARTUP_FREE: gettext_noop(
        "%(platform)s bills from the moment the instance runs: start-up time is free"
    ),
    Code.IDLE_STARTUP_NOT_GIVEN: gettext_noop(
        "%(platform)s bills each run's start-up time; give the start-up time per run to count it"
    ),
    Code.WARN_RELEASED_BETWEEN_RUNS: gettext_noop(
        "Runs are about %(gap)s apart, longer than the %(days)s after which %(platform)s "
        "releases a stopped instance and its data: keep the data elsewhere, or re-create the "
        "instance for each run"
    ),
    Code.WARN_KEPT_FROM_RELEASE: gettext_noop(
        "Runs are about %(gap)s apart, longer than the %(days)s after which %(platform)s "
        "releases a stopped instance and its data: the cost keeps it powered on after that "
        "(%(cost)s); or keep the data elsewhere and re-create the instance for each run"
    ),
    Code.WARN_RELEASED_AFTER_EXPIRY: gettext_noop(
        "%(platform)s releases a prepaid instance and its data %(days)s after its plan expires: "
        "renew the plan in time or keep the data elsewhere"
    ),
    Code.REASON_TRAINING_TIME: gettext_noop("Training takes about %(hours)s (%(low)s to %(high)s)"),
    Code.REASON_TRAINING_TIME_SCALING: gettext_noop(
        "Training takes about %(hours)s (%(low)s to %(high)s), scaling efficiency %(efficiency)s"
    ),
    Code.WARN_VENDOR_CLAIM: gettext_noop(
        "Facts about this platform come from its own marketing (vendor claim)"
    ),
    Code.WARN_STALE_PRICE: gettext_noop("The %(unit)s price is stale (%(age)s old)"),
    Code.WARN_NO_RETENTION: gettext_noop(
        "Data is not kept after the plan expires or the instance is released"
    ),
    Code.WARN_INTERRUPTIBLE: gettext_noop(
        "Interruptible (spot) capacity: the job can be stopped at any time"
    ),
    Code.WARN_NO_STORAGE_PRICE: gettext_noop(
        "No storage price recorded for %(platform)s; storage not included"
    ),
    Code.WARN_NO_TIME_ESTIMATE: gettext_noop("no time estimate on %(accelerator)s (%(reason)s)"),
    Code.WARN_SHARED_COMPUTE: gettext_noop(
        "time assumes the task has the shared GPU's compute to itself"
    ),
    Code.WARN_SPANS_MACHINES_STATED: gettext_noop(
        "runs on %(machines)s instances of %(per_machine)s GPUs (%(gpus)s GPUs), joined by "
        "%(network)s at %(gbps)s Gb/s per instance as the platform states: all-reduce busbw "
        "%(busbw)s GB/s between instances"
    ),
    Code.WARN_SPANS_MACHINES_ASSUMED: gettext_noop(
        "runs on %(machines)s instances of %(per_machine)s GPUs (%(gpus)s GPUs); the platform "
        "states no network between its instances, so %(network)s at %(gbps)s Gb/s per instance "
        "is assumed (%(source)s): all-reduce busbw %(busbw)s GB/s between instances. A platform "
        "renting single containers may join them by no fast network at all"
    ),
    Code.WARN_IDLE_MACHINE_GPUS: gettext_noop(
        "%(idle)s GPUs of its %(machines)s instances are idle and billed (%(gpus)s GPUs asked; a "
        "multiple of %(per_machine)s uses them all)"
    ),
    Code.WARN_TASK: gettext_noop("%(task)s: %(message)s"),
    Code.REJECT_NOT_ON_PLATFORMS: gettext_noop("not on the chosen platforms"),
    Code.REJECT_NOT_DOMESTIC: gettext_noop("not a domestic accelerator"),
    Code.REJECT_NO_NVLINK: gettext_noop("no NVLink"),
    Code.REJECT_NOT_EXCLUSIVE: gettext_noop("not physically exclusive"),
    Code.REJECT_NOT_REQUESTED_HARDWARE: gettext_noop("not the requested hardware"),
    Code.REJECT_NO_CURRENT_PRICE: gettext_noop("no current price"),
    Code.REJECT_DOES_NOT_FIT: gettext_noop("does not fit"),
    Code.REJECT_MISSES_DEADLINE: gettext_noop("misses the deadline"),
    Code.REJECT_NO_TIME_ESTIMATE: gettext_noop("no time estimate to hold to the deadline"),
    Code.REJECT_OVER_BUDGET: gettext_noop("over budget"),
    Code.REJECT_INTERRUPTIBLE_SERVICE: gettext_noop(
        "interruptible (spot) capacity for a user-facing service"
    ),
    Code.NO_FIT: gettext_noop("None of %(total)s offerings can run this scenario (%(counts)s)."),
    Code.NO_FIT_NO_OFFERINGS: gettext_noop(
        "None of %(total)s offerings can run this scenario (no offerings given)."
    ),
    Code.NO_FIT_CLOSEST: gettext_noop("%(head)s Closest miss (%(reason)s): %(miss)s"),
    Code.PLATFORMS_NOT_PRICED: gettext_noop(
        "No current price for %(count)s platform(s), so they are not ranked: %(platforms)s"
    ),
    Code.REJECT_COUNT: gettext_noop("%(reason)s: %(count)s"),
    Code.OFFERING_ON_PLATFORM: gettext_noop("%(offering)s on %(platform)s: %(detail)s"),
    Code.FIT_MIG_NO_P2P: gettext_noop(
        "MIG slices have no GPU-to-GPU peer-to-peer (PCIe or NVLink), so a task spanning several "
        "GPUs cannot run on slices"
    ),
    Code.FIT_NEEDS: gettext_noop("needs %(need)s per GPU, %(usable)s usable"),
    Code.FIT_OOM_RISK: gettext_noop("fits (%(need)s of %(usable)s usable), above 90 %%: OOM risk"),
    Code.FIT_FITS: gettext_noop("fits: %(need)s of %(usable)s usable per GPU"),
    Code.WARN_NO_TIME_ESTIMATE_HERE: gettext_noop("no time estimate: %(reason)s"),
    Code.WARN_NO_DECODE_ESTIMATE: gettext_noop("no decode estimate: %(reason)s"),
    Code.SERVING_NOTE_DECODE: gettext_noop(
        "decode upper bound: each step reads the weights once for all %(sequences)s sequences "
        "and each sequence's KV cache at half its %(context_len)s-token context on average, at "
        "%(bandwidth)s GB/s, FLOPs at dense peak %(peak)s TFLOPS; prefill of new requests not "
        "counted"
    ),
    Code.SERVING_NOTE_ALLREDUCE: gettext_noop(
        "tensor parallel over %(gpus)s GPUs: %(allreduces)s all-reduces per step (2 per layer, "
        "Megatron-LM), %(latency)s µs each plus the activations at %(busbw)s GB/s (%(source)s)"
    ),
    Code.SERVING_NOTE_TTFT: gettext_noop(
        "time to first token: one prompt of %(prompt)s tokens alone, its FLOPs at %(mfu)s of "
        "dense peak or one read of the weights, whichever is slower, plus %(overhead)s ms per "
        "step"
    ),
    Code.WARN_UNVERIFIED_FIGURES: gettext_noop(
        "figures for %(accelerator)s are unverified (no datasheet found)"
    ),
    Code.CAPACITY_MIG_SLICE: gettext_noop("a %(accelerator)s MIG %(profile)s slice"),
    Code.CAPACITY_POOLED_SHARE: gettext_noop("a pooled %(size)s share of a %(accelerator)s"),
    Code.CAPACITY_GPU: gettext_noop("a %(accelerator)s"),
    Code.MISS_MEMORY: gettext_noop(
        "%(task)s needs %(need)s per GPU; %(capacity)s holds %(usable)s usable"
    ),
    Code.MISS_SHARDED_ON_SLICES: gettext_noop(
        "%(task)s is sharded; slices have no peer-to-peer between them"
    ),
    Code.MISS_SPANS_ON_SLICES: gettext_noop(
        "%(task)s spans %(gpus)s GPUs; slices have no peer-to-peer between them"
    ),
    Code.MISS_HARD_ON_POOLED: gettext_noop(
        "%(task)s needs hard isolation; a pooled share is soft-isolated"
    ),
    Code.WARN_OOM_RISK: gettext_noop(
        "OOM risk: %(task)s leaves %(headroom)s of %(usable)s usable (%(filled)s full, "
        "above %(limit)s)"
    ),
    Code.WARN_POOLED_SOFT: gettext_noop(
        "Pooled sharing is soft isolation: memory limits only, a shared scheduler, and "
        "neighbours can slow each other down"
    ),
    Code.WARN_SHARED_NO_ISOLATION: gettext_noop(
        "Several of your tasks share one GPU without isolation: one task's memory spike can "
        "stop the others"
    ),
    Code.WARN_MIG_NO_P2P: gettext_noop(
        "MIG slices have no peer-to-peer (NVLink or PCIe) between them"
    ),
    Code.UNKNOWN_PRESET: gettext_noop("no preset %(name)s; the presets are %(presets)s"),
    Code.REJECT_EXCLUSIVE_UNKNOWN: gettext_noop("physical exclusivity unknown"),
    Code.WARN_COMPETITOR_CLAIM: gettext_noop(
        "Facts about this platform come from a competitor's description (%(speaker)s), not from "
        "the platform itself"
    ),
    Code.REASON_RESTS_ON_VENDOR_CLAIM: gettext_noop(
        "This answer rests on %(platform)s's own statements about itself (its prices or facts); "
        "no other source confirms them"
    ),
    Code.DIFF_COMPETITOR_CLAIM: gettext_noop("its facts are a competitor's description"),
    Code.SUGGEST_TASK_CHANGE: gettext_noop("%(task)s: %(change)s"),
    Code.SUGGEST_ANY_HARDWARE: gettext_noop(
        "%(task)s: on whatever hardware fits, not only %(accelerator)s"
    ),
    Code.SUGGEST_BUDGET: gettext_noop("a budget of %(budget)s"),
    Code.SUGGEST_DEADLINE: gettext_noop("a deadline of %(hours)s"),
    Code.SUGGEST_NOT_EXCLUSIVE: gettext_noop(
        "GPUs not known to be physically exclusive allowed too"
    ),
    Code.SUGGEST_NO_NVLINK: gettext_noop("without requiring NVLink"),
    Code.SUGGEST_NOT_DOMESTIC_ONLY: gettext_noop("any accelerator, not only domestic ones"),
    Code.SUGGEST_ALL_PLATFORMS: gettext_noop("every platform, not only %(platforms)s"),
    Code.SUGGEST_STALE_PRICES: gettext_noop("stale prices allowed too (each shown with its age)"),
    Code.SUGGEST_INTERRUPTIBLE: gettext_noop("interruptible (spot) capacity allowed"),
    Code.PLAN_MIXED_WINS: gettext_noop(
        "A plan across %(platforms)s costs %(cost)s: %(saving)s (%(fraction)s) less than the "
        "best single-platform plan, %(single)s (%(single_cost)s), because %(why)s."
    ),
    Code.PLAN_NONE_BEATS: gettext_noop(
        "No plan across platforms beats the best single-platform plan (%(single)s, "
        "%(single_cost)s) by more than %(limit)s: the best one, %(legs)s, costs %(cost)s "
        "(%(difference)s)."
    ),
    Code.PLAN_NONE_FOUND: gettext_noop(
        "No plan across two platforms could be priced: no split of the tasks (%(splits)s) runs "
        "on two platforms."
    ),
    Code.PLAN_SPLIT_BURST: gettext_noop(
        "the steady load (%(steady)s) is on one platform and the bursts (%(burst)s) on another"
    ),
    Code.PLAN_SPLIT_KIND: gettext_noop(
        "training (%(training)s) is on one platform and the rest (%(rest)s) on another"
    ),
    Code.PLAN_SPLIT_TASKS: gettext_noop("%(first)s run on one platform and %(second)s on another"),
    Code.PLAN_SPLIT_SHARE: gettext_noop(
        "%(task)s runs the hours that fill whole prepaid periods (%(periods)s × %(unit)s, "
        "%(hours)s) on one platform and the rest of its hours metered on another"
    ),
    Code.PLAN_TASK_SHARE: gettext_noop("%(task)s: %(hours)s of %(total)s"),
    Code.PLAN_LEG_LABEL: gettext_noop("%(offering)s on %(platform)s, by the %(unit)s"),
    Code.PLAN_LEGS: gettext_noop("%(first)s + %(second)s"),
    Code.PLAN_LEG: gettext_noop("%(offering)s, %(unit)s, for %(tasks)s: %(cost)s"),
    Code.PLAN_DATA_TWICE: gettext_noop(
        "The data (%(size)s) is kept on both platforms; the storage of each is in its leg's cost."
    ),
    Code.PLAN_TRANSFER: gettext_noop(
        "Moving it between them instead takes %(hours)s each way at %(mbps)s Mbit/s (%(basis)s)."
    ),
    Code.PLAN_OVER_BUDGET: gettext_noop(
        "The plan's busiest month (%(monthly)s) is over the budget (%(budget)s)."
    ),
    Code.PLAN_MIXED_ONLY: gettext_noop(
        "No single platform runs every task; a plan across %(platforms)s does, for %(cost)s, "
        "because %(why)s."
    ),
    Code.PLAN_MBPS_STATED: gettext_noop("the scenario's link speed"),
    Code.PLAN_MBPS_ASSUMED: gettext_noop("an assumed link; set constraints.transfer_mbps"),
    Code.VERDICT_PICK_WINS: gettext_noop(
        "The article recommends %(pick)s; for this workload it is also the advisor's best "
        "(%(cost)s)."
    ),
    Code.VERDICT_PICK_CLOSE: gettext_noop(
        "The article recommends %(pick)s (%(pick_cost)s); for this workload it is within "
        "%(limit)s of the advisor's best, %(best)s (%(best_cost)s)."
    ),
    Code.VERDICT_OTHER_CHEAPER: gettext_noop(
        "The article recommends %(pick)s (%(pick_cost)s); for this workload %(best)s costs "
        "%(saving)s less (%(best_cost)s), because %(because)s."
    ),
    Code.VERDICT_OTHER_FASTER: gettext_noop(
        "The article recommends %(pick)s (%(pick_time)s); for this workload %(best)s is "
        "%(ratio)s× faster (%(best_time)s), because %(because)s."
    ),
    Code.VERDICT_PICK_CANNOT_RUN: gettext_noop(
        "The article recommends %(pick)s, but it cannot run this workload: %(reason)s"
    ),
    Code.VERDICT_PICK_UNPRICED: gettext_noop(
        "The article recommends %(pick)s, but the catalogue has no current price for %(what)s, "
        "so it cannot be compared."
    ),
    Code.VERDICT_NOTHING_RUNS: gettext_noop(
        "The article recommends %(pick)s; nothing in the catalogue can run this workload, the "
        "article's pick included."
    ),
    Code.VERDICT_PART_COSTS_MORE: gettext_noop(
        "The article recommends %(pick)s. The catalogue has no current price for %(what)s, but "
        "the rest of it, %(part)s, already costs %(part_cost)s: more than the advisor's whole "
        "answer, %(best)s (%(best_cost)s), whatever %(what)s would cost."
    ),
    Code.PREMISE_CLAIM_RULE_OF_THUMB: gettext_noop(
        "“Params × 20 bytes: a 70B model needs about %(gb)s GB.”"
    ),
    Code.PREMISE_CLAIM_FIT_ON: gettext_noop(
        "“A 70B full fine-tune runs on one 8× A100 80G machine.”"
    ),
    Code.PREMISE_CLAIM_CASE_COST: gettext_noop(
        "“8 days on a %(monthly)s CNY/month machine cost about %(total)s CNY.”"
    ),
    Code.PREMISE_CLAIM_ONE_CARD: gettext_noop(
        "“24 GB is probably not enough for both; 48 GB has room.”"
    ),
    Code.PREMISE_CLAIM_MIXED_SAVING: gettext_noop(
        "“The mixed plan cuts the total cost by %(low)s–%(high)s %%.”"
    ),
    Code.PREMISE_CLAIM_MIG_INSTANCES: gettext_noop(
        "“MIG splits one A100 into at most 7 isolated instances.”"
    ),
    Code.PREMISE_CLAIM_MIG_FOR_PRODUCTION: gettext_noop(
        "“Production inference that needs deterministic latency should use MIG.”"
    ),
    Code.PREMISE_CLAIM_FIVE_CARDS: gettext_noop(
        "“On 矩池云, five parallel tasks need five cards.”"
    ),
    Code.PREMISE_CLAIM_MIG_BREAK_EVEN: gettext_noop(
        "“One card cut into MIG instances costs less per unit of compute.”"
    ),
    Code.PREMISE_CLAIM_EXCLUSIVE_CONTRACT: gettext_noop(
        "“智星云's contract guarantees physically exclusive GPUs.”"
    ),
    Code.PREMISE_CLAIM_POOLED_SHARES: gettext_noop(
        "“Pooled platforms such as 趋动云 share one physical card among tenants.”"
    ),
    Code.PREMISE_CLAIM_NVLINK_GAIN: gettext_noop(
        "“Eight A100s on NVLink are %(low)s–%(high)s %% more efficient than over PCIe.”"
    ),
    Code.PREMISE_CLAIM_PER_CARD: gettext_noop(
        "“12,000 CNY a month for eight cards: 1,500 per card.”"
    ),
    Code.PREMISE_MODEL_PARAMS: gettext_noop("%(model)s has %(params)s parameters."),
    Code.PREMISE_TWENTY_BYTES: gettext_noop(
        "%(params)s × 20 B = %(gb)s GB (%(tb)s TB), not %(claim)s GB."
    ),
    Code.PREMISE_WEIGHTS_ONLY: gettext_noop(
        "%(claim)s GB is only the weights in BF16 (%(params)s × 2 B = %(w)s GB); "
        "gradients, AdamW states and the FP32 master copy add 14 B more per parameter."
    ),
    Code.PREMISE_SHARDED: gettext_noop(
        "Sharded over %(gpus)s GPUs, each GPU needs %(need)s GiB; all %(gpus)s hold %(all)s GiB."
    ),
    Code.PREMISE_USABLE: gettext_noop("A %(gpu)s has %(usable)s GiB usable, so it %(verdict)s."),
    Code.PREMISE_FITS: gettext_noop("fits"),
    Code.PREMISE_DOES_NOT_FIT: gettext_noop("does not fit"),
    Code.PREMISE_SEE_MEMORY_PLAN: gettext_noop("The memory plan below lists what would fit."),
    Code.PREMISE_PRORATED: gettext_noop(
        "%(monthly)s × %(days)s / %(month_days)s days = %(prorated)s CNY if billed by the day;"
    ),
    Code.PREMISE_DAYS_WORTH: gettext_noop(
        "%(total)s CNY is %(days)s days' worth; a monthly plan is bought whole."
    ),
    Code.PREMISE_TASK_GIB: gettext_noop("%(gib)s GiB (%(task)s)"),
    Code.PREMISE_PLUS: gettext_noop("%(a)s + %(b)s"),
    Code.PREMISE_SUM_GIB: gettext_noop("%(terms)s = %(total)s GiB"),
    Code.PREMISE_CARD_BOTH: gettext_noop(
        "%(cap)s GB card: %(usable)s GiB usable, so both at once %(verdict)s."
    ),
    Code.PREMISE_FIT: gettext_noop("fit"),
    Code.PREMISE_DO_NOT_FIT: gettext_noop("do not fit"),
    Code.PREMISE_BEST_SINGLE: gettext_noop("Best single-platform plan: %(plan)s, %(cost)s."),
    Code.PREMISE_PART_ALONE: gettext_noop(
        "Of the article's plan, %(part)s alone costs %(cost)s; the rest has no price."
    ),
    Code.PREMISE_CANNOT_SAVE: gettext_noop(
        "That is already more than %(limit)s of the single-platform plan: the plan cannot "
        "save %(low)s, whatever the rest costs."
    ),
    Code.PREMISE_ARTICLE_PLAN: gettext_noop(
        "The article's plan, %(plan)s: %(cost)s, %(share)s less."
    ),
    Code.PREMISE_CHEAPEST_CROSS: gettext_noop(
        "The cheapest plan across two platforms in the catalogue, %(plan)s: %(cost)s, "
        "%(share)s less than the single-platform plan."
    ),
    Code.PREMISE_JUDGED_ON_CROSS: gettext_noop(
        "The claim is judged on that plan, the nearest the catalogue prices."
    ),
    Code.PREMISE_SPLIT_THRESHOLD: gettext_noop(
        "The article claims %(low)s to %(high)s less; the advisor proposes a split only "
        "above %(limit)s."
    ),
    Code.PREMISE_MIG_MOST: gettext_noop(
        "%(gpu)s: at most %(n)s instances (%(count)s× %(profile)s)."
    ),
    Code.PREMISE_REC_ON: gettext_noop("%(offering)s on %(platform)s"),
    Code.PREMISE_CHEAPEST_RUNS: gettext_noop(
        "As given, the cheapest is %(rec)s at %(cost)s; %(task)s runs %(mode)s."
    ),
    Code.PREMISE_SOFT_CHEAPEST: gettext_noop(
        "With every task on soft isolation (pooled sharing allowed), the cheapest is "
        "%(rec)s at %(cost)s: hard isolation costs %(extra)s more."
    ),
    Code.PREMISE_NOTHING_ON: gettext_noop("Nothing on %(platform)s runs these tasks."),
    Code.PREMISE_CHEAPEST_ON: gettext_noop(
        "Cheapest on %(platform)s: %(n)s× %(offering)s, %(cost)s."
    ),
    Code.PREMISE_PICK_LEG: gettext_noop(
        "%(platform)s: %(offering)s, %(n)s card(s), tasks on %(modes)s, %(cost)s."
    ),
    Code.PREMISE_CARDS: gettext_noop("%(platform)s: %(n)s× %(offering)s, %(cost)s."),
    Code.PREMISE_BREAK_EVEN: gettext_noop(
        "The %(n)s cards cost %(rate)s per busy hour together; the prepaid %(flat)s pays "
        "off above %(hours)s busy hours a month (this scenario: %(busy)s)."
    ),
    Code.PREMISE_EXCLUSIVE: gettext_noop("%(platform)s: physically exclusive %(value)s (%(who)s)."),
    Code.PREMISE_UNKNOWN: gettext_noop("unknown"),
    Code.PREMISE_VENDOR_ONLY: gettext_noop(
        "智星云's exclusivity is its own statement about itself; no other source in the "
        "catalogue confirms it."
    ),
    Code.PREMISE_POOLED_COUNT: gettext_noop(
        "%(platform)s: %(pooled)s of %(all)s offerings are pooled slices of a shared card."
    ),
    Code.PREMISE_EXCLUSIVE_VS_FREE: gettext_noop(
        "Physically exclusive, the cheapest is %(rec)s at %(cost)s; without that "
        "constraint, %(other)s at %(other_cost)s."
    ),
    Code.PREMISE_NVLINK_HOURS: gettext_noop(
        "%(task)s on %(n)s× %(gpu)s: %(nvlink)s h with NVLink (scaling %(e1)s), %(pcie)s "
        "h over PCIe (scaling %(e2)s)."
    ),
    Code.PREMISE_NVLINK_FASTER: gettext_noop(
        "NVLink is %(gain)s faster for this job; the article says %(low)s to %(high)s."
    ),
    Code.PREMISE_PER_CARD: gettext_noop(
        "%(monthly)s ÷ %(cards)s cards = %(per_card)s CNY per card and month (%(hour)s "
        "per card-hour at %(month)s h)."
    ),
    Code.PREMISE_CARDS_USED: gettext_noop(
        "This workload uses %(used)s of its %(cards)s cards: %(each)s CNY a month for "
        "each card it uses."
    ),
    Code.BECAUSE_FEWER_GPUS: gettext_noop("it bills %(gpus)s GPUs, not %(pick_gpus)s"),
    Code.BECAUSE_CHEAPER_GPU_HOUR: gettext_noop(
        "a GPU-hour of it costs %(price)s, not %(pick_price)s"
    ),
    Code.BECAUSE_FASTER_GPUS: gettext_noop(
        "%(gpus)s× %(accelerator)s train faster than %(pick_gpus)s× %(pick_accelerator)s"
    ),
    Code.BECAUSE_BILLING_UNIT: gettext_noop(
        "it is billed by the %(unit)s, not by the %(pick_unit)s"
    ),
    Code.BECAUSE_SPLIT: gettext_noop("it splits the tasks between %(platforms)s"),
    Code.BECAUSE_ONE_LEG: gettext_noop("one platform runs every task"),
    Code.BECAUSE_CHEAPER_PLAN: gettext_noop("its plan costs less for the same busy hours"),
    # Models by name and pasted config.json (model_catalogue.py, hf_config.py)
    Code.MODEL_NOT_ESTIMABLE: gettext_noop(
        "%(model)s is in the model catalogue, but its sources give too little for an estimate "
        "(%(reason)s): paste its config.json or give its parameter count"
    ),
    Code.CONFIG_AND_MODEL: gettext_noop(
        "give one of a model, a config.json or params/arch, not two"
    ),
    Code.CONFIG_MUST_BE_OBJECT: gettext_noop(
        "a config.json must be a JSON object, such as the config.json of a Hugging Face model"
    ),
    Code.CONFIG_FIELD_MISSING: gettext_noop(
        "the config.json has no usable '%(key)s': it is needed to read the architecture"
    ),
    Code.CONFIG_NOT_A_WHOLE_NUMBER: gettext_noop(
        "'%(key)s' in the config.json must be a whole number"
    ),
    Code.CONFIG_NOT_A_BOOLEAN: gettext_noop("'%(key)s' in the config.json must be true or false"),
    Code.CONFIG_VALUE_OUT_OF_RANGE: gettext_noop("'%(key)s' in the config.json is out of range"),
    Code.CONFIG_TOO_LARGE: gettext_noop(
        "the config.json describes more parameters than the %(most)s a scenario may have"
    ),
    Code.EXCLUDED_NO_COUNT: gettext_noop(
        "no parameter count is published and its sources give no full shape to count"
    ),
    Code.EXCLUDED_SHAPE_NOT_COUNTED: gettext_noop(
        "no parameter count is published and its layers are not the kind the counter reads"
    ),
    Code.EXCLUDED_TIE_UNKNOWN: gettext_noop(
        "no parameter count is published and its sources do not say whether its input and "
        "output embeddings are one matrix"
    ),
    # mixture-of-experts and diffusion training time (timing.py, diffusion.py, scenario.py)
    Code.MOE_IMPLEMENTATION_NEEDS_MOE: gettext_noop(
        "applies only to a mixture of experts (a model with arch.active_params)"
    ),
    Code.EXPERT_PARALLEL_NEEDS_GPUS: gettext_noop(
        "expert parallelism splits the experts over GPUs: it needs gpus of 2 or more"
    ),
    Code.EXPERTS_PER_TOKEN_EXCEED_EXPERTS: gettext_noop("experts_per_token cannot exceed experts"),
    Code.MOE_EXPERT_LOOP: gettext_noop("Transformers' loop over the experts"),
    Code.MOE_GROUPED_GEMM: gettext_noop("grouped GEMM kernels"),
    Code.MOE_EXPERT_PARALLEL: gettext_noop("Megatron expert parallelism"),
    Code.TIME_NOTE_MOE: gettext_noop(
        "mixture of experts run by %(implementation)s: utilisation %(factor)s of a dense "
        "model's (%(source)s)"
    ),
    Code.TIME_NOTE_MOE_ZERO3_EXPERTS: gettext_noop(
        "ZeRO-3 gathers each of the %(experts)s experts of %(layers)s layers as a module of its "
        "own: %(seconds)s s per micro-batch (%(source)s)"
    ),
    Code.TIME_NOTE_EXPERT_PARALLEL: gettext_noop(
        "experts split over %(ep)s GPUs and never gathered; each micro-batch sends its tokens "
        "to their %(top_k)s experts and back (all-to-all, %(seconds)s s)"
    ),
    Code.MEMORY_NOTE_EXPERT_PARALLEL: gettext_noop(
        "the routed experts, %(share)s of the weights, are split over %(gpus)s GPUs: each keeps "
        "its own whole, the rest as the sharding says"
    ),
    Code.FORMULA_EXPERTS_SPLIT: gettext_noop("%(formula)s, the experts ÷ %(gpus)s GPUs"),
    Code.FIX_EXPERT_PARALLEL: gettext_noop(
        "split the experts over %(gpus)s GPUs (expert parallelism, as Megatron runs it)"
    ),
    Code.DIFFUSION_NO_TIME_MODEL: gettext_noop(
        "no training time for %(model)s: the work of a UNet's step has no sourced model here"
    ),
    Code.TIME_NOTE_DIFFUSION: gettext_noop(
        "image model: %(images)s training images of %(pixels)s px, each %(image_tokens)s image "
        "and %(text_tokens)s text tokens through %(params)s weights per token of the denoiser"
    ),
    Code.TIME_NOTE_DIFFUSION_TEXT_CACHED: gettext_noop(
        "the text encoders' outputs are cached before training and not counted"
    ),
    Code.TIME_NOTE_DIFFUSION_TEXT_RUN: gettext_noop(
        "the text encoders run for every image: %(share)s of the work"
    ),
    # serving as it is measured: the workload's fields, what engines reach, the network
    Code.SERVING_ONLY_FOR_INFERENCE: gettext_noop("applies only to kind inference"),
    Code.SERVING_WORKLOAD_OVER_CONTEXT: gettext_noop(
        "prompt and output of %(total)s tokens exceed the context of %(context_len)s tokens"
    ),
    Code.SERVING_NOTE_MEASURED: gettext_noop(
        "expected output: requests of %(prompt)s prompt and %(output)s output tokens, their "
        "prefill counted (%(share)s of the GPU time); the engine reads at %(bandwidth)s of the "
        "memory bandwidth (%(slow)s to %(fast)s in published runs), computes at %(mfu)s of "
        "dense peak and loses %(overhead)s ms per step"
    ),
    Code.SERVING_NOTE_NETWORK: gettext_noop(
        "tensor parallel over %(nodes)s machines: each all-reduce also crosses the %(network)s "
        "network, %(latency)s µs plus the activations at %(busbw)s GB/s"
    ),
    # What a price is, and the headroom rule
    Code.REJECT_MARKET_FIGURE: gettext_noop(
        "a market floor or statistic, not a price one can book"
    ),
    Code.WARN_MARKET_FIGURE: gettext_noop(
        "Its price is a %(basis)s, ranked as if bookable because the scenario includes market "
        "statistics: an instance at this price may not be there to rent"
    ),
    Code.WARN_CLAIMED_PRICE: gettext_noop(
        "Its price is a competitor's claim (%(source)s), not the platform's own price list: "
        "ranked after a platform's own price at equal cost"
    ),
    Code.DIFF_CLAIMED_PRICE: gettext_noop("its price is a competitor's claim"),
    Code.WARN_TIGHT_TRAINING: gettext_noop(
        "%(task)s leaves only %(headroom)s of %(usable)s usable (%(filled)s full), less than "
        "the %(limit)s a training run's peak memory can differ from the estimate: ranked after "
        "plans with headroom at equal cost"
    ),
    Code.DIFF_TIGHT_HEADROOM: gettext_noop("a training task leaves it almost no memory headroom"),
    Code.FIT_ENGINE_POOL: gettext_noop(
        "fits (%(need)s of %(usable)s usable, the serving engine's memory pool of %(utilization)s "
        "of the card included)"
    ),
    Code.SUGGEST_INCLUDE_MARKET: gettext_noop(
        "Include market floors and statistics (include_market_statistics), knowing that no "
        "instance may be for rent at such a price"
    ),
    # Spot capacity (ranking.spot_refusal, restarts.py)
    Code.REJECT_INTERRUPTIBLE_NOT_ALLOWED: gettext_noop(
        "interruptible (spot) capacity, which the scenario does not allow"
    ),
    Code.WARN_SPOT_RESTARTS: gettext_noop(
        "on spot, expect %(interruptions)s interruptions (%(per_day)s a day of running): with a "
        "checkpoint every %(checkpoint)s min and %(restart)s min to restart, %(work)s of work "
        "takes %(hours)s, all of it billed; up to %(high)s at %(factor)s× that rate"
    ),
    Code.WARN_SPOT_RESTART_COST: gettext_noop(
        "Restarts after interruptions add about %(cost)s to the job's cost"
    ),
    Code.WARN_SPOT_RATE_ASSUMED: gettext_noop(
        "%(platform)s states no interruption rate for its spot capacity: %(rate)s a day of "
        "running is assumed (Google Cloud's preemptible VMs stop after 24 hours at most)"
    ),
    Code.WARN_SPOT_DEADLINE: gettext_noop(
        "Spot under a deadline of %(deadline)s: held to and ranked by %(high)s, the time at "
        "%(factor)s× the expected rate of interruptions; on-demand capacity has no such risk"
    ),
    Code.SUGGEST_INTERRUPTIBLE_JOBS: gettext_noop("interruptible (spot) capacity allowed for jobs"),
    # stacks.py: software stacks, ports and precisions
    Code.REJECT_STACK_UNKNOWN: gettext_noop(
        "no known way to run the task's software on this card's compute stack"
    ),
    Code.REJECT_STACK_PYTORCH: gettext_noop("no PyTorch for this card's compute stack"),
    Code.REJECT_STACK_BITSANDBYTES: gettext_noop(
        "needs CUDA or ROCm for bitsandbytes 4-bit (QLoRA)"
    ),
    Code.REJECT_STACK_VLLM: gettext_noop("vLLM does not run on this card's compute stack"),
    Code.REJECT_STACK_SGLANG: gettext_noop("SGLang does not run on this card's compute stack"),
    Code.REJECT_STACK_TENSORRT_LLM: gettext_noop(
        "TensorRT-LLM needs CUDA on an Ampere or newer NVIDIA GPU"
    ),
    Code.REJECT_STACK_LLAMA_CPP: gettext_noop(
        "llama.cpp has no backend for this card's compute stack"
    ),
    Code.REJECT_STACK_INT4: gettext_noop("no int4 (AWQ, GPTQ) kernels for this card"),
    Code.REJECT_STACK_DIFFUSERS: gettext_noop(
        "diffusers does not run on this card's compute stack"
    ),
    Code.REJECT_STACK_CUDA_APP: gettext_noop("needs CUDA for the task's code"),
    Code.REJECT_STACK_OPTIX: gettext_noop("needs CUDA and OptiX for rendering"),
    Code.REJECT_STACK_FP64: gettext_noop("no usable FP64 on this card's compute stack"),
    Code.REJECT_STACK_PORT_ONLY: gettext_noop(
        "runs the task's software only through a port to another compute stack (ports not allowed)"
    ),
    Code.REJECT_NO_FP8: gettext_noop("no FP8 on this card"),
    Code.REJECT_FP64_NOT_STATED: gettext_noop(
        "FP64 rate not stated (an FP64 need is met only by a stated figure)"
    ),
    Code.NEED_PYTORCH: gettext_noop("PyTorch"),
    Code.NEED_BITSANDBYTES_4BIT: gettext_noop("bitsandbytes 4-bit (QLoRA)"),
    Code.NEED_FLASH_ATTENTION: gettext_noop("FlashAttention"),
    Code.NEED_VLLM: gettext_noop("vLLM"),
    Code.NEED_SGLANG: gettext_noop("SGLang"),
    Code.NEED_TENSORRT_LLM: gettext_noop("TensorRT-LLM"),
    Code.NEED_LLAMA_CPP: gettext_noop("llama.cpp"),
    Code.NEED_INT4_WEIGHTS: gettext_noop("int4 weights (AWQ, GPTQ)"),
    Code.NEED_DIFFUSERS: gettext_noop("diffusers"),
    Code.NEED_CUDA_APP: gettext_noop("the task's CUDA code"),
    Code.NEED_OPTIX: gettext_noop("OptiX rendering"),
    Code.NEED_FP64_CODE: gettext_noop("FP64 code"),
    Code.LIMIT_VENDOR_IMAGE: gettext_noop(
        "the vendor's image with its matching driver, toolkit and PyTorch plugin versions"
    ),
    Code.LIMIT_CUDA_WHEELS: gettext_noop(
        "CUDA-only packages (flash-attn, bitsandbytes, FlashInfer, xFormers) missing or replaced by"
        " vendor kernels"
    ),
    Code.LIMIT_ASCEND_QUANTIZATION: gettext_noop(
        "quantized weights must be made with ModelSlim or compressed-tensors; AWQ checkpoints "
        "reported failing"
    ),
    Code.LIMIT_VLLM_MUSA_S4000: gettext_noop(
        "vLLM-MUSA's recipes target the S5000 and do not name the S4000; the wheel tested on it is "
        "vLLM 0.4.2"
    ),
    Code.LIMIT_BNB_SOURCE_BUILD: gettext_noop(
        "bitsandbytes built from its old NPU branch with double quantization off; ms-swift does not"
        " support QLoRA on NPUs"
    ),
    Code.LIMIT_LLAMA_CPP_CANN_TYPES: gettext_noop("only FP16, Q8_0 and Q4_0 weights"),
    Code.LIMIT_NPU_NO_BACKWARD: gettext_noop(
        "the NPU attention backend has no backward pass; float64 steps cast to float32"
    ),
    Code.LIMIT_MUSIFY: gettext_noop("the CUDA code ported with Moore Threads' musify tools"),
    Code.LIMIT_HIP_PORT: gettext_noop("the CUDA code ported to HIP"),
    Code.LIMIT_UNSOURCED: gettext_noop("no source found that this path works"),
    Code.FALLBACK_LEGACY_TOOLCHAIN: gettext_noop(
        "end-of-life toolchain: a CUDA 12.x image and PyTorch's cu126 legacy build, whose removal "
        "is proposed for PyTorch 2.15"
    ),
    Code.FALLBACK_BNB_CUDA12: gettext_noop(
        "bitsandbytes' CUDA 13 wheels start at compute capability 7.5: a CUDA 12.x build"
    ),
    Code.FALLBACK_SDPA: gettext_noop(
        "no FlashAttention-2 below compute capability 8.0: PyTorch SDPA, slower"
    ),
    Code.FALLBACK_GPTQ_ONLY: gettext_noop(
        "AWQ needs compute capability 7.5: GPTQ weights only, on the slow path"
    ),
    Code.FALLBACK_ROCM_INT4: gettext_noop(
        "vLLM marks AWQ, GPTQ and Marlin unsupported on AMD GPUs"
    ),
    Code.WARN_STACK_PORT: gettext_noop(
        "%(accelerator)s runs %(stack)s, not CUDA: %(need)s only through %(port)s; not verified "
        "here: %(limits)s"
    ),
    Code.WARN_STACK_FALLBACK: gettext_noop("%(accelerator)s, %(need)s: %(fallback)s"),
    Code.WARN_BF16_AS_FP16: gettext_noop(
        "%(accelerator)s has no BF16: %(tasks)s run in FP16, timed at its FP16 rate (%(tflops)s "
        "TFLOPS); a model trained in BF16 may overflow in FP16 (NaN, black images), and training "
        "needs loss scaling"
    ),
    Code.WARN_VLLM_DTYPE_HALF: gettext_noop(
        "vLLM refuses BF16 on %(accelerator)s (compute capability %(cc)s, below 8.0): start it with"
        " --dtype half"
    ),
    Code.WARN_PRECISION_UNVERIFIED: gettext_noop(
        "%(accelerator)s: native %(precision)s is not verified by a primary source"
    ),
    Code.WARN_FP8_AS_W8A16: gettext_noop(
        "%(accelerator)s has no FP8: FP8 weights load as W8A16 through Marlin, with no FP8 speed-up"
    ),
    Code.WARN_BF16_NO_TENSOR_CORES: gettext_noop(
        "%(accelerator)s has neither BF16 nor FP16 tensor cores: %(tasks)s run in FP16 or FP32 "
        "far below a tensor-core card's rate, and no time is estimated from a BF16 figure"
    ),
    Code.WARN_STACK_CC_UNSTATED: gettext_noop(
        "%(accelerator)s: compute capability not stated, so %(need)s is assumed to run as on a "
        "current card"
    ),
    Code.SUGGEST_ALLOW_PORTS: gettext_noop(
        "ports to other compute stacks allowed (vLLM-Ascend, torch_npu, torch_musa…), each named "
        "with what it leaves unverified"
    ),
    Code.SERVING_ENGINE_NEEDS_SERVING: gettext_noop(
        "serving engine %(engine)s does not go with serving %(serving)s: hf is Hugging Face "
        "generate (serving hf_generate), the others hold a paged KV cache (serving paged)"
    ),
    Code.SERVING_ENGINE_LLM_ONLY: gettext_noop(
        "a serving engine serves a language model (kind inference); a diffusion model is served "
        "with diffusers"
    ),
    # ---- renters' filters: location, delivery form, host resources, who may rent
    Code.MUST_BE_COUNTRY_LIST: gettext_noop(
        "must be a list of two-letter country codes (ISO 3166-1), such as CN or US"
    ),
    Code.MUST_BE_REGION_LIST: gettext_noop("must be a list of region codes, such as us-east-1"),
    Code.MUST_BE_DELIVERY_FORM_LIST: gettext_noop("must be a list of delivery forms: %(choices)s"),
    Code.REJECT_NOT_IN_COUNTRIES: gettext_noop("not in the chosen countries"),
    Code.REJECT_COUNTRY_UNKNOWN: gettext_noop("country not stated"),
    Code.REJECT_NOT_IN_REGIONS: gettext_noop("not in the chosen regions"),
    Code.REJECT_REGION_UNKNOWN: gettext_noop("region not stated"),
    Code.REJECT_NOT_DELIVERY_FORM: gettext_noop("not in the chosen delivery forms"),
    Code.REJECT_DELIVERY_FORM_UNKNOWN: gettext_noop("delivery form not stated"),
    Code.REJECT_FEW_VCPUS: gettext_noop("fewer vCPUs per GPU than asked"),
    Code.REJECT_VCPUS_UNKNOWN: gettext_noop("vCPU count not stated"),
    Code.REJECT_LITTLE_RAM: gettext_noop("less RAM per GPU than asked"),
    Code.REJECT_RAM_UNKNOWN: gettext_noop("RAM not stated"),
    Code.REJECT_LITTLE_DISK: gettext_noop("less disk per GPU than asked"),
    Code.REJECT_DISK_UNKNOWN: gettext_noop("disk not stated"),
    Code.REJECT_CN_IDENTITY_REQUIRED: gettext_noop(
        "sign-up needs a mainland Chinese ID card or phone number (real-name verification)"
    ),
    Code.REJECT_NO_FOREIGN_CARDS: gettext_noop("takes no card issued outside mainland China"),
    Code.REJECT_RENTER_UNKNOWN: gettext_noop(
        "no source says whether a renter from abroad can sign up and pay"
    ),
    Code.WARN_RENTER_ABROAD_UNKNOWN: gettext_noop(
        "%(platform)s rents in mainland China, and no source says whether a renter from abroad "
        "can sign up (real-name verification) and pay there: check before booking, or ask for "
        "platforms that take a renter from abroad"
    ),
    Code.WARN_RENTER_NEEDS_CN_IDENTITY: gettext_noop(
        "%(platform)s requires a mainland Chinese ID card or phone number to rent"
    ),
    Code.WARN_RENTER_CARDS_UNVERIFIED: gettext_noop(
        "%(platform)s accepts identity documents from abroad, but no source says it takes a "
        "card issued outside mainland China"
    ),
    Code.SUGGEST_ANY_COUNTRY: gettext_noop("any country, not only %(countries)s"),
    Code.SUGGEST_ANY_REGION: gettext_noop("any region, not only %(regions)s"),
    Code.SUGGEST_ANY_DELIVERY_FORM: gettext_noop("any delivery form"),
    Code.SUGGEST_ANY_HOST_SIZE: gettext_noop("without the vCPU, RAM and disk minimums"),
}


@dataclass(frozen=True)
class Message:
    code: Code
    params: Mapping[str, Param] = field(default_factory=dict, hash=False, compare=True)

    def english(self) -> str:
        return render(self, lambda template: template, _english_param)

    def __str__(self) -> str:
        return self.english()


def msg(code: Code, **params: Param) -> Message:
    return Message(code, params)


def render(
    message: Message,
    translate: Callable[[str], str],
    format_param: Callable[[Param, Callable[[Message], str]], str],
) -> str:
    """`message` with its template translated and each parameter formatted; nested messages are
    rendered the same way."""

    def nested(m: Message) -> str:
        return render(m, translate, format_param)

    template = translate(TEMPLATES[message.code])
    values = {key: format_param(value, nested) for key, value in message.params.items()}
    return template % values if values else template


def money_places(amount: Decimal) -> int:
    """Decimals to show for an amount: cents, or as many as a small price needs (a per-second
    price of 0.000164 keeps its digits), at most 6."""
    exponent = amount.normalize().as_tuple().exponent
    digits = -exponent if isinstance(exponent, int) else 2
    return min(max(2, digits), 6)


def _english_number(value: float, places: int) -> str:
    return f"{value:,.{places}f}"


def _english_param(value: Param, nested: Callable[[Message], str]) -> str:
    """English formatting of one parameter (the CLI's and the debugger's)."""
    if isinstance(value, Message):
        return nested(value)
    if isinstance(value, Quantity):
        return _english_quantity(value)
    if isinstance(value, Money):
        amount = value.amount.quantize(Decimal(1).scaleb(-money_places(value.amount)))
        per = f"/{value.per}" if value.per else ""
        return f"{amount} {value.currency}{per}"
    if isinstance(value, tuple):
        return ", ".join(_english_param(v, nested) for v in value)
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _english_quantity(q: Quantity) -> str:
    if q.unit is Unit.BYTES:
        return f"{_english_number(q.value / GiB, 2 if q.places is None else q.places)} GiB"
    if q.unit is Unit.HOURS:
        # One decimal, whole hours from 100 h: wording/messages.py's rule for every language.
        places = (0 if abs(q.value) >= 100 else 1) if q.places is None else q.places
        return f"{_english_number(q.value, places)} h"
    if q.unit is Unit.DAYS:
        days = round(q.value)
        return f"{days} day" if days == 1 else f"{days} days"
    if q.unit is Unit.FRACTION:
        return f"{q.value * 100:.{0 if q.places is None else q.places}f}%"
    if q.unit is Unit.GB:
        return f"{_english_number(q.value, 0 if q.places is None else q.places)} GB"
    if q.unit is Unit.TOKENS_PER_S:
        return f"{_english_number(q.value, 1 if q.places is None else q.places)} tokens/s"
    return _english_number(q.value, 0 if q.places is None else q.places)


def as_json(message: Message, render_text: Callable[[Message], str]) -> dict[str, object]:
    """{"code", "params", "message"}: parameters as JSON values, the message as rendered."""
    return {
        "code": message.code.value,
        "params": {k: param_json(v, render_text) for k, v in message.params.items()},
        "message": render_text(message),
    }


def param_json(value: Param, render_text: Callable[[Message], str]) -> object:
    if isinstance(value, Message):
        return as_json(value, render_text)
    if isinstance(value, Quantity):
        return {"value": value.value, "unit": value.unit.value}
    if isinstance(value, Money):
        out: dict[str, object] = {"amount": str(value.amount), "currency": value.currency}
        if value.per:
            out["per"] = value.per
        return out
    if isinstance(value, tuple):
        return [param_json(v, render_text) for v in value]
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, Decimal):
        return str(value)
    return value


__all__ = [
    "TEMPLATES",
    "Code",
    "Message",
    "Money",
    "Param",
    "Quantity",
    "Unit",
    "as_json",
    "fraction",
    "gettext_noop",
    "gib",
    "hours",
    "msg",
    "param_json",
    "render",
]
