"""The advisor page's scenario form: GET parameters <-> the scenario JSON contract (README.md).

The whole scenario lives in the query string, so a result can be shared or bookmarked:
`tasks` (number of task rows), per task `t<i>-<field>` (`t0-kind`, `t0-model`, ...), the
constraint fields unprefixed (`budget_per_month`, `currency`, `platforms`, ...) and `objective`.
Missing non-checkbox task fields take their defaults, so short hand-written URLs work; an absent
checkbox means "off", as a browser submits it.

The form checks types and units (Django fields, `clean_<field>` for billions -> counts); the engine
checks everything else and its `AdvisorError.field` paths (`tasks[1].seq_len`) are mapped back to
the form field that produced them (`add_engine_error`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, cast

from django import forms
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _

from advisor.engine import vocab
from advisor.engine.messages import Code, Message
from advisor.engine.model_catalogue import MODELS
from advisor.engine.presets import MODEL_PRESETS
from advisor.engine.scenario import MAX_TASKS
from platforms.models import DeliveryForm, Platform, PriceTier, platform_names
from wording import choices, messages

# The closed sets come from advisor/engine/vocab.py, labelled in wording/choices.py.
KIND_CHOICES = choices.TaskKind.choices
PRECISION_CHOICES = [(p, p.upper()) for p in ("bf16", "fp16", "fp32", "fp8", "int8", "int4")]
OPTIMIZER_CHOICES = [
    ("adamw", _("AdamW")),
    ("adamw_8bit", _("AdamW 8-bit")),
    ("sgd_momentum", _("SGD with momentum")),
]
SHARDING_CHOICES = [
    ("none", _("None (data parallel)")),
    ("zero1", _("ZeRO-1 (optimizer)")),
    ("zero2", _("ZeRO-2 (optimizer + gradients)")),
    ("zero3", _("ZeRO-3 / FSDP (everything)")),
]
OFFLOAD_CHOICES = [
    ("none", _("None")),
    ("optimizer", _("Optimizer states to CPU")),
    ("optimizer_and_params", _("Optimizer and parameters to CPU")),
]
CHECKPOINTING_CHOICES = [
    ("none", _("None")),
    ("selective", _("Selective")),
    ("full", _("Full (recompute)")),
]
ATTENTION_CHOICES = [
    ("flash", _("FlashAttention / SDPA")),
    ("eager", _("Eager (keeps attention scores)")),
]
FRAMEWORK_CHOICES = [
    ("hf", _("Hugging Face (TRL, PEFT, LLaMA-Factory)")),
    ("liger", _("Hugging Face with Liger kernels")),
    ("pytorch", _("Plain PyTorch (fp32 logits)")),
    ("torchtune", _("torchtune")),
    ("unsloth", _("Unsloth")),
]
LORA_TARGET_CHOICES = [
    ("all_linear", _("All linear layers")),
    ("attention", _("Attention only (q, k, v, o)")),
]
# A mixture of experts' training (docs/time-model.md, "Mixture of experts").
MOE_IMPLEMENTATION_CHOICES = [
    ("", _("Default: a loop over the experts")),
    ("grouped_gemm", _("Grouped GEMM kernels")),
    ("expert_parallel", _("Expert parallelism (Megatron)")),
]
MOE_MODELS = frozenset(k for k, a in MODEL_PRESETS.items() if a.active_params)
SERVING_CHOICES = [
    ("paged", _("Paged KV cache (vLLM, SGLang)")),
    ("hf_generate", _("Hugging Face generate")),
]
# Serving workload (docs/time-model.md, "Serving"): the kind of use and the engine family.
WORKLOAD_CHOICES = [
    ("chat", _("Chat (256 tokens in, 256 out)")),
    ("rag", _("Retrieval-augmented (2,048 in, 256 out)")),
    ("batch", _("Batch generation (500 in, 2,000 out)")),
]
SERVING_ENGINE_CHOICES = [
    ("", _("Default (vLLM; HF for generate)")),
    ("vllm", "vLLM"),
    ("sglang", "SGLang"),
    ("tensorrt_llm", "TensorRT-LLM"),
    ("llama_cpp", "llama.cpp"),
    ("hf", "Hugging Face generate"),
]
# Diffusion models (docs/memory-model.md, "Diffusion models").
TEXT_ENCODER_CHOICES = [
    ("", _("Default: cached to train, on GPU to serve")),
    ("gpu", _("On the GPU")),
    ("offload", _("On the CPU between passes (offload)")),
    ("cached", _("Not loaded: outputs made beforehand")),
]
TEXT_ENCODER_PRECISION_CHOICES = [("", _("As the weights")), *PRECISION_CHOICES]
DIFFUSION_MODELS = frozenset(k for k, a in MODEL_PRESETS.items() if a.family == "diffusion")
# Fixed tasks: the figure a time scales by from the reference card (docs/time-model.md).
SCALE_BY_CHOICES = [
    ("fp32", _("FP32 TFLOPS (rendering)")),
    ("fp64", _("FP64 TFLOPS (double-precision simulation)")),
    ("bf16", _("BF16 tensor TFLOPS")),
    ("bandwidth", _("Memory bandwidth")),
]
WHEN_CHOICES = choices.When.choices
ISOLATION_CHOICES = choices.Isolation.choices
CURRENCY_CHOICES = choices.Currency.choices
OBJECTIVE_CHOICES = choices.Objective.choices


# Any model by name: the model catalogue's pickable models, grouped by family (a <select> with
# <optgroup>s, which static/js/model-search.js lets a reader filter by typing).
def _model_groups() -> list[tuple[str, list[tuple[str, str]]]]:
    groups: dict[str, list[tuple[str, str]]] = {}
    for model in sorted(MODELS.pickable, key=lambda m: (m.arch.params if m.arch else 0, m.name)):
        groups.setdefault(model.group, []).append((model.id, model.name))
    return sorted(groups.items(), key=lambda item: item[0].lower())


MODEL_CHOICES: list[tuple[str, Any]] = [
    ("", _("None: give the parameter count")),
    *_model_groups(),
]
# A pasted config.json: at most this many characters (the largest LLM configs are about 3,000).
MAX_CONFIG_CHARS = 20_000
TRAINING_KINDS = tuple(k.value for k in vocab.TaskKind if k.trains)
BILLION = 1e9


def _number(**kwargs: Any) -> dict[str, Any]:
    # A number box that allows decimals but no spinner-imposed steps.
    return {"widget": forms.NumberInput(attrs={"step": "any"}), **kwargs}


def _positive(form: forms.Form, name: str) -> float | None:
    """A number field that must be above 0 when given: the message names the field."""
    value: float | None = form.cleaned_data[name]
    if value is not None and value <= 0:
        raise forms.ValidationError(
            _("%(field)s must be greater than 0."),
            code="not_positive",
            params={"field": form.fields[name].label},
        )
    return value


class TaskForm(forms.Form):
    """One row of the task list, prefixed `t<i>`."""

    name = forms.CharField(label=_("Name"), required=False, max_length=200)
    kind = forms.ChoiceField(label=_("Kind"), choices=KIND_CHOICES, initial="lora")
    model = forms.ChoiceField(
        label=_("Model"), choices=MODEL_CHOICES, required=False, initial="llama-3.1-8b"
    )
    params_b = forms.FloatField(
        label=_("Parameters (billions)"),
        required=False,
        min_value=0,
        help_text=_("Typed here, it replaces the model chosen above."),
        **_number(),
    )
    config = forms.CharField(
        label=_("Or paste a Hugging Face config.json"),
        required=False,
        max_length=MAX_CONFIG_CHARS,
        widget=forms.Textarea(attrs={"rows": 3, "spellcheck": "false"}),
        help_text=_(
            "Its architecture is read from it and replaces the model chosen above; a "
            "parameter count typed above replaces both."
        ),
    )
    precision = forms.ChoiceField(label=_("Precision"), choices=PRECISION_CHOICES, initial="bf16")
    attention = forms.ChoiceField(label=_("Attention"), choices=ATTENTION_CHOICES, initial="flash")
    gpus = forms.IntegerField(label=_("GPUs"), min_value=1, initial=1)
    on_accelerator = forms.CharField(
        label=_("Evaluate on GPU"),
        required=False,
        max_length=100,
        help_text=_("Optional accelerator, e.g. a100-80gb: only offerings with it are ranked."),
    )
    # Training method.
    optimizer = forms.ChoiceField(label=_("Optimizer"), choices=OPTIMIZER_CHOICES, initial="adamw")
    master_weights = forms.BooleanField(
        label=_("FP32 master weights"), required=False, initial=True
    )
    sharding = forms.ChoiceField(label=_("Sharding"), choices=SHARDING_CHOICES, initial="none")
    offload = forms.ChoiceField(label=_("Offload"), choices=OFFLOAD_CHOICES, initial="none")
    # The form starts where the common trainers do: full recomputation is on by default in
    # LLaMA-Factory (disable_gradient_checkpointing: false), Unsloth (use_gradient_checkpointing)
    # and torchtune's LoRA recipes (enable_activation_checkpointing: True). The JSON contract's
    # default stays "none", the plain training loop.
    activation_checkpointing = forms.ChoiceField(
        label=_("Activation checkpointing"), choices=CHECKPOINTING_CHOICES, initial="full"
    )
    activation_offload = forms.BooleanField(
        label=_("Offload activations to CPU"), required=False, initial=False
    )
    framework = forms.ChoiceField(
        label=_("Trainer"),
        choices=FRAMEWORK_CHOICES,
        initial="hf",
        help_text=_("Its loss, kernels and QLoRA path change the memory."),
    )
    lora_targets = forms.ChoiceField(
        label=_("LoRA on"), choices=LORA_TARGET_CHOICES, initial="all_linear"
    )
    moe_implementation = forms.ChoiceField(
        label=_("Experts run by"),
        choices=MOE_IMPLEMENTATION_CHOICES,
        required=False,
        initial="",
        help_text=_("Mixture-of-experts presets only: it changes their training time tenfold."),
    )
    fused_optimizer_step = forms.BooleanField(
        label=_("Optimizer step in the backward pass"), required=False, initial=False
    )
    micro_batch = forms.IntegerField(label=_("Micro-batch"), min_value=1, initial=1)
    gradient_accumulation = forms.IntegerField(
        label=_("Gradient accumulation"),
        min_value=1,
        initial=1,
        help_text=_("Micro-batches per optimizer step: gradients sync once per step."),
    )
    seq_len = forms.IntegerField(label=_("Sequence length (tokens)"), min_value=1, initial=2048)
    lora_rank = forms.IntegerField(label=_("LoRA rank"), min_value=1, initial=16)
    tokens_b = forms.FloatField(
        label=_("Training tokens (billions)"),
        required=False,
        min_value=0,
        help_text=_(
            "For the training time and job cost. An image model: its training images × the "
            "sequence length."
        ),
        **_number(),
    )
    jobs_per_month = forms.FloatField(
        label=_("Jobs per month"),
        required=False,
        help_text=_("With training tokens: blank, the job runs once; a number, it recurs."),
        **_number(),
    )
    # Inference.
    context_len = forms.IntegerField(label=_("Context length (tokens)"), min_value=1, initial=4096)
    concurrent_sequences = forms.IntegerField(
        label=_("Concurrent sequences"), min_value=1, initial=1
    )
    serving = forms.ChoiceField(label=_("Served by"), choices=SERVING_CHOICES, initial="paged")
    workload = forms.ChoiceField(
        label=_("Kind of use"), choices=WORKLOAD_CHOICES, required=False, initial="chat"
    )
    prompt_tokens = forms.IntegerField(
        label=_("Prompt tokens per request"),
        required=False,
        min_value=1,
        help_text=_("Blank: the kind of use's."),
    )
    output_tokens = forms.IntegerField(
        label=_("Output tokens per request"),
        required=False,
        min_value=1,
        help_text=_("Blank: the kind of use's."),
    )
    serving_engine = forms.ChoiceField(
        label=_("Serving engine"), choices=SERVING_ENGINE_CHOICES, required=False, initial=""
    )
    # Image models (diffusion presets only).
    resolution = forms.IntegerField(
        label=_("Image size (pixels on a side)"),
        required=False,
        min_value=64,
        help_text=_("Blank: the model's native size, 512 for SD 1.5 and 1024 for the others."),
    )
    text_encoders = forms.ChoiceField(
        label=_("Text encoders"), choices=TEXT_ENCODER_CHOICES, required=False, initial=""
    )
    text_encoder_precision = forms.ChoiceField(
        label=_("Text encoder precision"),
        choices=TEXT_ENCODER_PRECISION_CHOICES,
        required=False,
        initial="",
    )
    # Fixed.
    vram_gib = forms.FloatField(
        label=_("VRAM (GiB)"), required=False, min_value=0, initial=None, **_number()
    )
    frames = forms.FloatField(
        label=_("Frames (or time steps)"),
        required=False,
        help_text=_("With seconds per frame and the GPU they were measured on: a time and a cost."),
        **_number(),
    )
    seconds_per_frame = forms.FloatField(label=_("Seconds per frame"), required=False, **_number())
    reference_accelerator = forms.CharField(
        label=_("Measured on GPU"),
        required=False,
        max_length=100,
        help_text=_("The GPU the seconds per frame were measured on, e.g. rtx-4090-24gb."),
    )
    scale_by = forms.ChoiceField(
        label=_("Scales with"), choices=SCALE_BY_CHOICES, initial="fp32", required=False
    )
    min_fp64_tflops = forms.FloatField(
        label=_("Minimum FP64 TFLOPS"),
        required=False,
        help_text=_("Leaves out GPUs below it (GeForce cards run FP64 at 1/64 of FP32)."),
        **_number(),
    )
    needs_rt_cores = forms.BooleanField(
        label=_("Needs RT cores (OptiX rendering)"), required=False, initial=False
    )
    needs_nvenc = forms.BooleanField(
        label=_("Needs a video encoder (NVENC)"), required=False, initial=False
    )
    portable_code = forms.BooleanField(
        label=_("Its code runs without CUDA"),
        required=False,
        initial=False,
        help_text=_("OpenCL, CPU or a vendor's build: cards of other compute stacks need no port."),
    )
    # Schedule.
    when = forms.ChoiceField(label=_("When it runs"), choices=WHEN_CHOICES, initial="always")
    hours_per_month = forms.FloatField(
        label=_("Hours per month"),
        required=False,
        help_text=_(
            "Blank: a service is always on, a training job may run around the clock. "
            "For a job, the hours it may run each month."
        ),
        **_number(),
    )
    isolation = forms.ChoiceField(label=_("Isolation"), choices=ISOLATION_CHOICES, initial="hard")

    def clean_params_b(self) -> float | None:
        value = self.cleaned_data["params_b"]
        return None if value is None else value * BILLION

    def clean_config(self) -> dict[str, Any] | None:
        """The pasted config.json as a JSON object; the engine reads its fields."""
        text = cast(str, self.cleaned_data["config"]).strip()
        if not text:
            return None
        try:
            value = json.loads(text)
        except ValueError:
            raise forms.ValidationError(
                _("This is not JSON: paste the whole config.json, from { to }."),
                code="config_not_json",
            ) from None
        if not isinstance(value, dict):
            raise forms.ValidationError(
                _("A config.json is one JSON object, from { to }."), code="config_not_object"
            )
        return value

    def clean_tokens_b(self) -> float | None:
        value = self.cleaned_data["tokens_b"]
        return None if value is None else value * BILLION

    def clean_hours_per_month(self) -> float | None:
        return _positive(self, "hours_per_month")

    def clean_jobs_per_month(self) -> float | None:
        return _positive(self, "jobs_per_month")

    def clean_on_accelerator(self) -> str:
        return cast(str, self.cleaned_data["on_accelerator"]).strip()

    def to_task(self) -> dict[str, Any]:
        """The task as contract JSON; only the fields of its kind's groups (vocab.FIELD_GROUPS)."""
        d = self.cleaned_data
        kind = d["kind"]
        groups = vocab.TaskKind(kind).field_groups
        task: dict[str, Any] = {"kind": kind}
        if d["name"].strip():
            task["name"] = d["name"].strip()
        if "fixed" in groups:
            task["vram_gib"] = d["vram_gib"]
            for key in ("frames", "seconds_per_frame", "min_fp64_tflops"):
                if d[key] is not None:
                    task[key] = d[key]
            if d["reference_accelerator"].strip():
                task["reference_accelerator"] = d["reference_accelerator"].strip()
            if d["frames"] is not None and d["scale_by"]:
                task["scale_by"] = d["scale_by"]
            for key in ("needs_rt_cores", "needs_nvenc", "portable_code"):
                if d[key]:
                    task[key] = True
        pasted = d.get("config") is not None
        diffusion = d["model"] in DIFFUSION_MODELS and not pasted
        if "diffusion" in groups and d["params_b"] is None and diffusion:
            for key in ("resolution", "text_encoders", "text_encoder_precision"):
                if d[key]:
                    task[key] = d[key]
        if "model" in groups:
            # A parameter count typed by hand replaces a pasted config.json, which replaces the
            # model chosen (the form starts with one chosen): the engine takes one, never two.
            if d["params_b"] is not None:
                task["params"] = d["params_b"]
            elif d.get("config") is not None:
                task["config"] = d["config"]
            elif d["model"]:
                task["model"] = d["model"]
            task["precision"] = d["precision"]
            task["attention"] = d["attention"]
        if "training" in groups:
            for key in ("optimizer", "master_weights", "sharding", "offload"):
                task[key] = d[key]
            task["activation_checkpointing"] = d["activation_checkpointing"]
            for key in ("activation_offload", "framework", "fused_optimizer_step"):
                task[key] = d[key]
            if d["moe_implementation"] and d["params_b"] is None and d["model"] in MOE_MODELS:
                task["moe_implementation"] = d["moe_implementation"]
            task["micro_batch"] = d["micro_batch"]
            task["gradient_accumulation"] = d["gradient_accumulation"]
            task["seq_len"] = d["seq_len"]
            if kind != vocab.TaskKind.FULL_FINETUNE:
                task["lora_rank"] = d["lora_rank"]
                task["lora_targets"] = d["lora_targets"]
            if d["tokens_b"] is not None:
                task["tokens"] = d["tokens_b"]
            if d["jobs_per_month"] is not None:
                task["jobs_per_month"] = d["jobs_per_month"]
        if "inference" in groups:
            task["context_len"] = d["context_len"]
            task["concurrent_sequences"] = d["concurrent_sequences"]
            task["serving"] = d["serving"]
            for key in ("workload", "prompt_tokens", "output_tokens", "serving_engine"):
                if d[key]:
                    task[key] = d[key]
        for key in ("gpus", "when", "isolation"):
            task[key] = d[key]
        if d["hours_per_month"] is not None:  # blank: always on, or around the clock
            task["hours_per_month"] = d["hours_per_month"]
        if d["on_accelerator"]:
            task["on"] = {"accelerator": d["on_accelerator"]}
        return task


class StartForm(forms.Form):
    """The home page's "What do you want to run?": a model, a kind and hours, sent to the advisor
    as its first task's fields (prefix `t0`); the advisor fills in the rest with its defaults."""

    model = forms.ChoiceField(label=_("Model"), choices=MODEL_CHOICES[1:], initial="llama-3.1-8b")
    kind = forms.ChoiceField(
        label=_("To do"),
        choices=[
            (k, label) for k, label in KIND_CHOICES if "model" in vocab.TaskKind(k).field_groups
        ],
        initial="lora",
    )
    hours_per_month = TaskForm.base_fields["hours_per_month"]

    prefix = "t0"


class CodeListField(forms.CharField):
    """Codes typed in one box, separated by commas or spaces ("CN, US"): a list, each once."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(required=False, max_length=500, **kwargs)

    def to_python(self, value: Any) -> list[str]:  # type: ignore[override]
        text = super().to_python(value) or ""
        return list(dict.fromkeys(part for part in re.split(r"[,\s]+", text) if part))


class ConstraintsForm(forms.Form):
    """Constraints and objective: unprefixed parameters."""

    budget_per_month = forms.DecimalField(
        label=_("Budget per month"), required=False, min_value=0, max_digits=15, decimal_places=2
    )
    currency = forms.ChoiceField(label=_("Currency"), choices=CURRENCY_CHOICES, initial="CNY")
    deadline_hours = forms.FloatField(
        label=_("Deadline (hours)"),
        required=False,
        min_value=0,
        help_text=_("Training must finish within this many hours."),
        **_number(),
    )
    physically_exclusive = forms.BooleanField(label=_("Physically exclusive GPUs"), required=False)
    require_nvlink = forms.BooleanField(label=_("Require NVLink"), required=False)
    domestic_only = forms.BooleanField(label=_("Domestic accelerators only"), required=False)
    fresh_only = forms.BooleanField(
        label=_("Fresh prices only"),
        required=False,
        help_text=_("Leave out stale prices; otherwise they are ranked, each with its age."),
    )
    # Spot capacity, three ways (docs/advisor-rules.md, "Spot"): blank lets jobs use it and
    # keeps it from user-facing services; "on" allows it for every task; "off" for none.
    allow_interruptible = forms.ChoiceField(
        label=_("Interruptible (spot) capacity"),
        required=False,
        choices=[
            ("", _("for jobs, not for user-facing services")),
            ("on", _("for every task, services too")),
            ("off", _("never (no spot)")),
        ],
        help_text=_("A job on spot is priced with its restarts after interruptions."),
    )
    checkpoint_minutes = forms.FloatField(
        label=_("Checkpoint every (minutes)"),
        required=False,
        min_value=0,
        max_value=24 * 60,
        help_text=_("A job on spot loses the work since its last checkpoint; 0: no checkpoints."),
        **_number(),
    )
    restart_minutes = forms.FloatField(
        label=_("Restart after an interruption (minutes)"),
        required=False,
        min_value=0,
        max_value=24 * 60,
        help_text=_("A new instance, the image and the checkpoint loaded again."),
        **_number(),
    )
    include_market_statistics = forms.BooleanField(
        label=_("Rank market floors and statistics as offers"),
        required=False,
        help_text=_(
            '"From" prices, a marketplace\'s lowest listed offer or its median: shown, but '
            "not ranked unless ticked."
        ),
    )
    allow_ports = forms.BooleanField(
        label=_("Allow ports to other compute stacks (Ascend, Moore Threads...)"),
        required=False,
        help_text=_("Each such card is shown with its port and what is not verified."),
    )
    storage_gb = forms.FloatField(
        label=_("Data kept on storage (GB)"),
        required=False,
        min_value=0,
        help_text=_("Datasets and checkpoints, priced with each platform's storage."),
        **_number(),
    )
    startup_minutes = forms.FloatField(
        label=_("Start-up per run (minutes)"),
        required=False,
        min_value=0,
        max_value=24 * 60,
        help_text=_(
            "Boot, image pull and model load of each run: billed where the platform bills "
            "start-up time."
        ),
        **_number(),
    )
    price_tier = forms.ChoiceField(
        label=_("Your price tier"),
        required=False,
        choices=PriceTier.choices,
        initial=PriceTier.LIST,
        help_text=_(
            "Member, student or enterprise prices where a platform states them; list prices "
            "elsewhere."
        ),
    )
    platforms = forms.MultipleChoiceField(
        label=_("Platforms"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("None ticked: all platforms."),
    )
    # ---- renters' filters (README "The scenario"): the engine validates them.
    countries = CodeListField(
        label=_("Countries"),
        help_text=_("Two-letter codes, such as CN, US or DE; empty: anywhere."),
    )
    regions = CodeListField(
        label=_("Regions"),
        help_text=_("Region codes as the platforms name them, such as us-east-1; empty: any."),
    )
    delivery_forms = forms.MultipleChoiceField(
        label=_("Delivery forms"),
        required=False,
        choices=DeliveryForm.choices,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("None ticked: any."),
    )
    min_vcpus_per_gpu = forms.FloatField(
        label=_("Least vCPUs per GPU"), required=False, min_value=0, **_number()
    )
    min_ram_gib_per_gpu = forms.FloatField(
        label=_("Least RAM per GPU (GiB)"), required=False, min_value=0, **_number()
    )
    min_disk_gb_per_gpu = forms.FloatField(
        label=_("Least disk per GPU (GB)"), required=False, min_value=0, **_number()
    )
    foreign_renter = forms.BooleanField(
        label=_("I rent from abroad (no mainland Chinese ID or phone, a card issued abroad)"),
        required=False,
        help_text=_("Only platforms a source says take such a renter."),
    )
    objective = forms.ChoiceField(
        label=_("Objective"), choices=OBJECTIVE_CHOICES, initial="balanced"
    )
    preset = forms.CharField(required=False, widget=forms.HiddenInput, max_length=50)

    def __init__(self, *args: Any, platforms: list[tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["platforms"]).choices = platforms

    CHECKBOXES = (
        "physically_exclusive",
        "require_nvlink",
        "domestic_only",
        "fresh_only",
        "include_market_statistics",
        "allow_ports",
        "foreign_renter",
    )
    # The renters' filters besides the checkbox, as the engine reads them.
    RENTING = ("countries", "regions", "delivery_forms")
    PER_GPU = ("min_vcpus_per_gpu", "min_ram_gib_per_gpu", "min_disk_gb_per_gpu")

    @property
    def checkboxes(self) -> list[forms.BoundField]:
        return [self[name] for name in self.CHECKBOXES]

    def to_constraints(self) -> dict[str, Any]:
        d = self.cleaned_data
        out: dict[str, Any] = {"currency": d["currency"]}
        if d["budget_per_month"] is not None:
            out["budget_per_month"] = str(d["budget_per_month"])
        if d["deadline_hours"] is not None:
            out["deadline_hours"] = d["deadline_hours"]
        if d["storage_gb"]:
            out["storage_gb"] = d["storage_gb"]
        if d.get("startup_minutes"):
            out["startup_minutes"] = d["startup_minutes"]
        if d.get("price_tier") and d["price_tier"] != PriceTier.LIST:
            out["price_tier"] = d["price_tier"]
        spot = d.get("allow_interruptible")
        if spot:
            out["allow_interruptible"] = spot == "on"
        for key in ("checkpoint_minutes", "restart_minutes"):
            if d.get(key) is not None:
                out[key] = d[key]
        for key in self.CHECKBOXES:
            if d[key]:
                out[key] = True
        if d["platforms"]:
            out["platforms"] = list(d["platforms"])
        for key in self.RENTING:
            if d.get(key):
                out[key] = list(d[key])
        for key in self.PER_GPU:
            if d.get(key):
                out[key] = d[key]
        return out


def platform_choices() -> list[tuple[str, str]]:
    """(slug, label) of every platform: one query."""
    rows = Platform.objects.order_by("name_en", "name").values_list("slug", "name", "name_en")
    return [(slug, _label(*platform_names(name, en or ""))) for slug, name, en in rows]


def _label(name: str, english: str) -> str:
    """A platform's checkbox label: its name, with the English one beside it only when that adds
    something ("OpenBayes (HyperAI)", not "OpenBayes (OpenBayes (HyperAI))")."""
    return f"{name} ({english})" if english else name


# `tasks[1].seq_len` -> (1, "seq_len"); `tasks[0].on.accelerator` -> (0, "on")
_TASK_PATH = re.compile(r"^tasks\[(\d+)\]\.([a-z_]+)")
# Engine fields whose form field has another name (units or nesting differ).
_TASK_FIELD = {
    "params": "params_b",
    "arch": "params_b",
    "tokens": "tokens_b",
    "on": "on_accelerator",
}


def task_count(data: Mapping[str, Any]) -> int:
    """Rows in the submitted form: `tasks`, kept between 1 and the engine's maximum."""
    try:
        count = int(data.get("tasks", 1))
    except (TypeError, ValueError):
        count = 1
    return min(max(count, 1), MAX_TASKS)


def task_count_notice(data: Mapping[str, Any]) -> str:
    """What task_count changed in a `tasks` value it could not use as given, in a sentence for
    the page ("" when it used the value as given): tasks=101 or tasks=abc are not silent."""
    if "tasks" not in data:
        return ""
    given = str(data.get("tasks", ""))
    count = task_count(data)
    if given == str(count):
        return ""
    try:
        asked = int(given)
    except ValueError:
        return _("“tasks=%(given)s” is not a number of tasks: %(count)s is shown.") % {
            "given": given[:20],
            "count": count,
        }
    if asked > MAX_TASKS:
        return _(
            "“tasks=%(given)s” asks for more than the %(most)s tasks a scenario may have: "
            "the first %(most)s are shown."
        ) % {"given": asked, "most": MAX_TASKS}
    return _("“tasks=%(given)s”: a scenario has at least one task, so %(count)s is shown.") % {
        "given": asked,
        "count": count,
    }


def is_submitted(data: Mapping[str, Any]) -> bool:
    return "tasks" in data


def _task_defaults(prefix: str) -> dict[str, str]:
    """Initial values of a task row as GET parameters (checkboxes only when on)."""
    out = {}
    for name, field in TaskForm.base_fields.items():
        initial = field.initial
        if isinstance(field, forms.BooleanField):
            if initial:
                out[f"{prefix}-{name}"] = "on"
        elif initial is not None:
            out[f"{prefix}-{name}"] = f"{initial:g}" if isinstance(initial, float) else str(initial)
    return out


class ScenarioForm:
    """Task rows plus constraints, bound to GET data or unbound (one default row)."""

    def __init__(self, data: QueryDict | None, *, platforms: list[tuple[str, str]]) -> None:
        self.is_bound = data is not None
        if data is None:
            self.tasks = [TaskForm(prefix="t0")]
            self.constraints = ConstraintsForm(platforms=platforms)
        else:
            self.tasks = [
                TaskForm(self._lenient(data, f"t{i}"), prefix=f"t{i}")
                for i in range(task_count(data))
            ]
            filled = data.copy()
            for key in ("currency", "objective"):
                filled.setdefault(key, ConstraintsForm.base_fields[key].initial)
            self.constraints = ConstraintsForm(filled, platforms=platforms)
        self.non_field_errors: list[str] = []

    @staticmethod
    def _lenient(data: QueryDict, prefix: str) -> QueryDict:
        """`data` with missing non-checkbox fields of the row filled from their defaults."""
        filled = data.copy()
        for key, value in _task_defaults(prefix).items():
            if key not in filled and not key.endswith("-master_weights"):
                filled[key] = value
        return filled

    def is_valid(self) -> bool:
        valid = [form.is_valid() for form in (*self.tasks, self.constraints)]
        return self.is_bound and all(valid) and not self.non_field_errors

    def scenario(self) -> dict[str, Any]:
        """The scenario JSON (the README.md contract); call after is_valid()."""
        return {
            "tasks": [form.to_task() for form in self.tasks],
            "constraints": self.constraints.to_constraints(),
            "objective": self.constraints.cleaned_data["objective"],
        }

    @property
    def preset(self) -> str:
        return self.constraints.cleaned_data.get("preset", "") if self.is_bound else ""

    def add_engine_error(self, field: str | None, message: str) -> None:
        """Attach an engine error to the form field its path names, else to the whole form."""
        match = _TASK_PATH.match(field or "")
        if match and int(match[1]) < len(self.tasks):
            form, name = self.tasks[int(match[1])], match[2]
            name = _TASK_FIELD.get(name, name)
            if name in form.fields:
                form.add_error(name, message)
                return
        key = (field or "").removeprefix("constraints.").split("[")[0]
        if key in self.constraints.fields:
            self.constraints.add_error(key, message)
            return
        self.non_field_errors.append(message)

    def error_summary(self) -> list[dict[str, str]]:
        """Every error of the form in the order it shows them, for the summary above it: where
        ("Task 1 · Sequence length (tokens)"), the message, and the id of the input it is about
        (the form's own id for an error of the whole scenario)."""
        out = [
            {"where": "", "message": m, "anchor": "scenario-form"} for m in self.non_field_errors
        ]
        parts: list[tuple[forms.Form, str]] = [
            (task, str(_("Task %(n)s") % {"n": i + 1})) for i, task in enumerate(self.tasks)
        ]
        parts.append((self.constraints, ""))
        for form, task in parts:
            if not form.is_bound:
                continue
            for name, errors in form.errors.items():
                field = form[name] if name in form.fields else None
                label = str(field.label) if field is not None else ""
                where = (
                    str(_("%(task)s · %(field)s") % {"task": task, "field": label})
                    if task and label
                    else task or label
                )
                anchor = (field.id_for_label or field.auto_id) if field is not None else ""
                out.extend(
                    {"where": where, "message": str(e), "anchor": anchor or "scenario-form"}
                    for e in errors
                )
        return out

    @property
    def has_errors(self) -> bool:
        return bool(self.non_field_errors) or any(
            form.errors for form in (*self.tasks, self.constraints) if form.is_bound
        )


# Engine errors whose wording names the JSON contract's fields: the form says them in its own words.
_PLAIN_ERRORS = {
    Code.MODEL_AND_PARAMS: _("Choose a model preset or type the parameter count, not both."),
    Code.MODEL_REQUIRED: _("Choose a model, paste its config.json or type its parameter count."),
    Code.FIXED_NEEDS_VRAM: _("A task of fixed memory needs its VRAM in GiB."),
    Code.VRAM_ONLY_FOR_FIXED: _("VRAM applies only to a task of fixed memory."),
    Code.PARAM_OFFLOAD_NEEDS_ZERO3: _(
        "Offloading the parameters needs sharding ZeRO-3 / FSDP (everything)."
    ),
    Code.JOBS_NEED_TOKENS: _(
        "Jobs per month apply only to a job: a training task with its training tokens, or a "
        "task of fixed memory with its frames."
    ),
    Code.FIXED_TIME_FIELDS: _(
        "Frames, seconds per frame and the GPU they were measured on go together: give all "
        "three, or none."
    ),
    Code.ONLY_FOR_FIXED: _("This applies only to a task of fixed memory."),
    Code.ONLY_FOR_DIFFUSION: _(
        "This applies only to the image model presets (SD 1.5, SDXL, SD3, SD3.5, FLUX.1)."
    ),
}


def error_text(detail: Message) -> str:
    """An engine error as the form says it next to its field: in plain words, without the JSON
    contract's field names or interval notation ("must be in (0, 744]" reads "must be more than
    0 and at most 744"); other errors as the engine words them, translated."""
    plain = _PLAIN_ERRORS.get(detail.code)
    if plain is not None:
        return str(plain)
    bounds = detail.params.get("range")
    if detail.code is Code.OUT_OF_RANGE and isinstance(bounds, Message):
        low, high = (_bound(bounds.params.get(k)) for k in ("low", "high"))
        if bounds.code is Code.RANGE_LOW_OPEN:
            return str(
                _("must be more than %(low)s and at most %(high)s") % {"low": low, "high": high}
            )
        if bounds.code is Code.RANGE_CLOSED:
            return str(_("must be from %(low)s to %(high)s") % {"low": low, "high": high})
    return messages.render(detail)


def _bound(value: object) -> str:
    if isinstance(value, int | float):
        return messages.number(value, 0 if value == int(value) else 2)
    return str(value)


def scenario_query(scenario: Mapping[str, Any], **extra: str) -> QueryDict:
    """GET parameters that fill the form with `scenario` (contract JSON): presets' links."""
    query = QueryDict(mutable=True)
    tasks = scenario["tasks"]
    query["tasks"] = str(len(tasks))
    for i, task in enumerate(tasks):
        prefix = f"t{i}"
        values = _task_defaults(prefix)
        values.pop(f"{prefix}-master_weights", None)
        if task.get("master_weights", True):
            values[f"{prefix}-master_weights"] = "on"
        if "params" in task:
            values[f"{prefix}-model"] = ""
            values[f"{prefix}-params_b"] = f"{task['params'] / BILLION:.12g}"
        for key, value in task.items():
            if key in ("params", "master_weights", "arch"):
                continue
            if key == "tokens":
                values[f"{prefix}-tokens_b"] = f"{value / BILLION:.12g}"
            elif key == "config":
                values[f"{prefix}-model"] = ""
                values[f"{prefix}-config"] = json.dumps(value)
            elif key == "on":
                values[f"{prefix}-on_accelerator"] = value["accelerator"]
            else:
                values[f"{prefix}-{key}"] = (
                    f"{value:.12g}" if isinstance(value, float) else str(value)
                )
        for key, value in values.items():
            query[key] = value
    constraints = scenario.get("constraints", {})
    query["currency"] = constraints.get("currency", "CNY")
    for key, value in constraints.items():
        if key == "platforms" or key == "delivery_forms":
            query.setlist(key, list(value))
        elif key == "allow_interruptible":  # a choice of three, not a checkbox
            query[key] = "on" if value else "off"
        elif key in ("countries", "regions"):
            if value:
                query[key] = ", ".join(value)
        elif isinstance(value, bool):
            if value:
                query[key] = "on"
        elif key != "currency":
            query[key] = str(value)
    query["objective"] = scenario.get("objective", "balanced")
    for key, value in extra.items():
        query[key] = value
    return query


def edited_query(data: QueryDict) -> QueryDict | None:
    """The query after an "add task" or "remove task" button (no-JS row editing), else None."""
    if "add" not in data and "remove" not in data:
        return None
    count = task_count(data)
    query = data.copy()
    for key in ("add", "remove", "format"):
        query.pop(key, None)
    if "add" in data:
        if count < MAX_TASKS:
            for key, value in _task_defaults(f"t{count}").items():
                query[key] = value
            count += 1
    else:
        try:
            drop = int(data.get("remove", ""))
        except ValueError:
            drop = -1
        if 0 <= drop < count and count > 1:
            query = _renumber(query, count, drop)
            count -= 1
    query["tasks"] = str(count)
    return query


def _renumber(query: QueryDict, count: int, drop: int) -> QueryDict:
    """Remove row `drop` and shift the rows after it down by one."""
    out = QueryDict(mutable=True)
    row = re.compile(r"^t(\d+)-(.+)$")
    for key in query:
        match = row.match(key)
        if match is None:
            out.setlist(key, query.getlist(key))
            continue
        index = int(match[1])
        if index == drop or index >= count:
            continue
        new = index - 1 if index > drop else index
        out.setlist(f"t{new}-{match[2]}", query.getlist(key))
    return out
