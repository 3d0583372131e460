"""Measure the memory of one training step of Llama-shaped models, by category, with PyTorch.

Each run builds a model from a config (random weights, llama.py), then runs one step, forward,
backward and optimizer step, under `torch.distributed._tools.mem_tracker.MemTracker`, PyTorch's
tracker that sorts every tensor storage it sees into parameters, gradients, activations,
temporaries and optimizer states (torch/distributed/_tools/mem_tracker.py; tensors created in the
forward pass or in an activation-checkpointing recomputation are activations, those created in
the backward pass temporaries, those created in `optimizer.step` optimizer states).

Two modes:
- "fake": the model, the batch and the step live under
  `torch._subclasses.fake_tensor.FakeTensorMode` (https://pytorch.org/docs/stable/torch.compiler_fake_tensor.html):
  tensors carry shapes, dtypes and strides but no storage, so real model sizes (8B, 70B) and
  long contexts are traced on a CPU without allocating anything; MemTracker counts the bytes
  each storage would take.
- "real": small models run for real on the CPU, tracked by MemTracker as above and, as an
  independent instrument, by the CPU allocator's own count: `torch.profiler.profile(
  profile_memory=True)` reports every allocation and free with the allocator's running total
  ("Total Allocated"), whose peak over the step is recorded. Real and fake runs of the same
  config give the same categories (the data has both), which is what makes the fake runs of big
  configs evidence.

What is recorded per category (bytes, one GPU, no sharding):
- weights: parameter storages (frozen and trainable);
- gradients: the peak of gradient storages (all of them once the backward pass ends);
- optimizer: optimizer states after the step (steady state; `optimizer_peak` also has the
  transient fp32 gradient copy of one parameter);
- activations: the peak, at one moment of the forward or backward pass, of activations and
  temporaries together: everything the step holds beyond the model states and the batch (the
  tensors autograd keeps, the layer being recomputed under checkpointing, the loss's logits and
  their gradients, the gradients of activations in the backward pass). This is what the
  estimator's activation term stands for (docs/memory-model.md), for the loop's trainer
  `framework: pytorch`. One tensor the tracker counts here that the estimator counts as a
  gradient: the LM head's weight gradient, a temporary from the moment its matmul makes it until
  autograd accumulates it into `.grad`;
- activations_saved: the peak, over the backward pass, of the tensors the forward pass (or its
  recomputation) made and that are still alive: what autograd kept for backward plus the layer
  recomputed at a time under checkpointing, the quantity Korthikanti et al. 2022
  (arXiv:2205.05198) count. `activations_forward_peak` is the peak of those during the forward
  pass, `activations_end_of_forward` what is left when the forward pass returns;
- temporaries_peak: the peak of tensors made in the backward pass (gradients of activations);
- peak_total and peak_breakdown: the tracker's peak of all categories together in this first
  step (no optimizer state exists before its end), and the split at that moment;
- steady_state_peak: the peak of a later step, where the optimizer states exist from the start:
  weights, batch and optimizer states plus the peak of activations, temporaries and gradients.

Usage (the `make measure` target):
    .venv-measure/bin/python measure/measure_memory.py --out measure/data/memory.json
`--only NAME` runs the runs whose id contains NAME and prints them without writing.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import gc
import json
import os
import platform
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace
from typing import Any

import torch
from torch import nn
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.distributed._tools.mem_tracker import _TOTAL_KEY, MemTracker, _MemRefType
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from llama import Llama, LlamaConfig, MasterWeightAdamW, add_lora

# Shapes from the models' published configs: Llama 3.2 1B and Llama 3.1 8B / 70B (Meta's
# meta-llama/llama-models, models/llama3_1/api/sku_list.py and the Hugging Face config.json).
# The 1B model ties its embedding and output head; here every model is untied (as the estimator
# counts them), so its parameter count is 1.50B instead of 1.24B.
CONFIGS: dict[str, LlamaConfig] = {
    c.name: c
    for c in (
        LlamaConfig("tiny-3.5m", layers=2, hidden=256, heads=4, kv_heads=2, intermediate=688,
                    vocab=4096),
        LlamaConfig("small-45m", layers=4, hidden=512, heads=8, kv_heads=4, intermediate=1408,
                    vocab=32000),
        LlamaConfig("llama-3.2-1b-untied", layers=16, hidden=2048, heads=32, kv_heads=8,
                    intermediate=8192, vocab=128256),
        LlamaConfig("llama-3.1-8b", layers=32, hidden=4096, heads=32, kv_heads=8,
                    intermediate=14336, vocab=128256),
        LlamaConfig("llama-3.1-70b", layers=80, hidden=8192, heads=64, kv_heads=8,
                    intermediate=28672, vocab=128256),
    )
}  # fmt: skip


DEVICE_NOTE = {"fake": "FakeTensorMode", "real": "real tensors"}


@dataclass(frozen=True)
class Options:
    """The training options the estimator models (advisor.engine.types.Task's fields)."""

    kind: str = "full_finetune"  # or "lora"
    precision: str = "bf16"  # parameters and gradients: "bf16" or "fp32"
    master_weights: bool = True  # bf16 only: fp32 master copy and fp32 moments in the optimizer
    optimizer: str = "adamw"
    attention: str = "sdpa"  # "sdpa" (fused, no score matrix) or "eager" (softmax(QKᵀ)V)
    activation_checkpointing: str = "none"  # or "full"
    lora_rank: int = 16
    lora_alpha: float = 32.0
    lora_targets: str = "attention"  # or "all_linear"
    loss: str = "fp32_upcast"  # logits.float() before cross-entropy
    seq_len: int = 2048
    micro_batch: int = 1


VARIANTS: dict[str, dict[str, Any]] = {
    "base": {},
    "eager": {"attention": "eager"},
    "full_ckpt": {"activation_checkpointing": "full"},
    "eager_full_ckpt": {"attention": "eager", "activation_checkpointing": "full"},
    "fp32": {"precision": "fp32"},
    "bf16_no_master": {"master_weights": False},
    "lora_attention": {"kind": "lora", "lora_targets": "attention"},
    "lora_all_linear": {"kind": "lora", "lora_targets": "all_linear"},
    "micro_batch_2": {"micro_batch": 2},
}


@dataclass(frozen=True)
class Run:
    mode: str  # "fake" or "real"
    model: str
    variant: str
    seq_len: int

    @property
    def id(self) -> str:
        return f"{self.mode}/{self.model}/{self.seq_len}/{self.variant}"

    def options(self) -> Options:
        return replace(Options(seq_len=self.seq_len), **VARIANTS[self.variant])


def plan() -> list[Run]:
    """Real runs: small models, minutes in all on two cores. Fake runs: the big configs."""
    runs: list[Run] = []
    every = ["base", "eager", "full_ckpt", "eager_full_ckpt", "fp32", "bf16_no_master",
             "lora_attention", "lora_all_linear"]  # fmt: skip
    runs += [Run("real", "tiny-3.5m", v, 2048) for v in [*every, "micro_batch_2"]]
    runs += [Run("real", "tiny-3.5m", v, 8192) for v in ["base", "eager", "full_ckpt"]]
    runs += [Run("real", "tiny-3.5m", v, 32768) for v in ["base", "full_ckpt"]]
    runs += [Run("real", "small-45m", v, 2048) for v in ["base", "eager", "lora_attention"]]
    for model in ("tiny-3.5m", "small-45m", "llama-3.2-1b-untied", "llama-3.1-8b",
                  "llama-3.1-70b"):  # fmt: skip
        for seq_len in (2048, 8192, 32768):
            runs += [Run("fake", model, v, seq_len) for v in every]
    return runs


# Sums of categories whose peak (at one moment) is kept too.
AGGREGATES = {
    "Activation+Temp": (_MemRefType.ACT, _MemRefType.TEMP),
    "Activation+Temp+Gradient": (_MemRefType.ACT, _MemRefType.TEMP, _MemRefType.GRAD),
}


class PhaseTracker(MemTracker):
    """MemTracker that also keeps each category's peak per phase (forward, backward, optimizer).

    `_update_peak_stats` runs after every operator MemTracker sees; the override reads the current
    per-category snapshot there (torch 2.13.0's mem_tracker.py, pinned in requirements.txt). The
    module-wise snapshots of MemTracker are not kept.
    """

    def __init__(self) -> None:
        super().__init__()
        self.phase = "forward"
        self.phase_peaks: dict[str, dict[str, int]] = {}

    def _track_module_params_and_buffers(
        self, module: nn.Module, install_grad_hooks: bool = True
    ) -> tuple[int, int]:
        # MemTracker hooks every parameter's gradient, and a frozen one (LoRA's base weights)
        # cannot take a hook: hook only the parameters that require gradients.
        memory = super()._track_module_params_and_buffers(module, install_grad_hooks=False)
        if not install_grad_hooks:
            return memory

        def grad_hook(grad: torch.Tensor) -> None:
            self._update_and_maybe_create_winfos(grad, _MemRefType.GRAD)

        for param in module.parameters():
            if param.requires_grad and self._param_to_grad_hook_handles.get(param) is None:
                self._param_to_grad_hook_handles[param] = (
                    param.register_hook(grad_hook),
                    param.register_post_accumulate_grad_hook(lambda p: grad_hook(p.grad)),
                )
        return memory

    def _update_peak_stats(self, peak_state: Any) -> None:
        # MemTracker's own version also updates the per-module peaks, looping over every module
        # after every operator, which makes an 80-layer trace take minutes; only the global peak
        # and the per-phase, per-category peaks are needed here.
        for dev, snap in self._curr_mem_snap.items():
            if self._peak_mem.get(dev, 0) < snap[_TOTAL_KEY]:
                self._peak_mem[dev] = snap[_TOTAL_KEY]
                self._peak_mem_snap[dev] = dict(snap)
            peaks = self.phase_peaks.setdefault(self.phase, {})
            for key, value in snap.items():
                name = str(getattr(key, "value", key))
                peaks[name] = max(peaks.get(name, 0), value)
            for name, parts in AGGREGATES.items():
                value = sum(snap[part] for part in parts)
                peaks[name] = max(peaks.get(name, 0), value)


def _categories(snapshot: dict[torch.device, dict[Any, int]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for snap in snapshot.values():
        for key, value in snap.items():
            name = str(getattr(key, "value", key))
            out[name] = out.get(name, 0) + value
    return out


@contextlib.contextmanager
def default_dtype(dtype: torch.dtype) -> Iterator[None]:
    old = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(old)


def _allocator_peak(trace_path: str) -> int:
    """Peak, above where it started, of the CPU allocator's running total in a profiler trace.

    Each [memory] event carries the allocation's size and the total after it. The total is kept
    across profiling sessions (frees made while no profiler runs are never subtracted), so the
    peak is taken from the total before the first event of this trace.
    """
    with open(trace_path) as f:
        events = [e["args"] for e in json.load(f)["traceEvents"] if e.get("name") == "[memory]"]
    if not events:
        return 0
    start = events[0]["Total Allocated"] - events[0]["Bytes"]
    return max(e["Total Allocated"] for e in events) - start


def measure(run: Run) -> dict[str, Any]:
    config = CONFIGS[run.model]
    opt = run.options()
    dtype = torch.float32 if opt.precision == "fp32" else torch.bfloat16
    torch.manual_seed(0)
    mode = FakeTensorMode() if run.mode == "fake" else contextlib.nullcontext()
    started = time.monotonic()
    with mode:
        with default_dtype(dtype):
            model = Llama(config, opt.attention, opt.activation_checkpointing)
        params = sum(p.numel() for p in model.parameters())
        trainable = params
        if opt.kind == "lora":
            trainable = add_lora(model, opt.lora_rank, opt.lora_alpha, opt.lora_targets)
        model.train()
        weights = [p for p in model.parameters() if p.requires_grad]
        optimizer: torch.optim.Optimizer
        if dtype == torch.bfloat16 and opt.master_weights:
            optimizer = MasterWeightAdamW(weights)
        else:  # fp32 training, or 16-bit AdamW whose moments take the parameters' dtype
            optimizer = torch.optim.AdamW(weights, lr=1e-4, foreach=False)
        shape = (opt.micro_batch, opt.seq_len)
        tokens = torch.randint(0, config.vocab, shape)
        targets = torch.randint(0, config.vocab, shape)
        tracker = PhaseTracker()
        tracker.track_external(model, optimizer, tokens, targets)
        baseline = _categories(tracker.get_tracker_snapshot())
        profiler = (
            profile(activities=[ProfilerActivity.CPU], profile_memory=True)
            if run.mode == "real"
            else contextlib.nullcontext()
        )
        with profiler as prof, tracker:
            tracker.phase = "forward"
            loss = model(tokens, targets)
            end_of_forward = _categories(tracker.get_tracker_snapshot())
            tracker.phase = "backward"
            loss.backward()
            del loss
            tracker.phase = "optimizer"
            optimizer.step()
            after_step = _categories(tracker.get_tracker_snapshot())
            optimizer.zero_grad(set_to_none=True)
        peak_breakdown = _categories(tracker.get_tracker_snapshot("peak"))
        tracker.reset_mod_stats()
    allocator: dict[str, int] = {}
    if prof is not None:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "trace.json")
            prof.export_chrome_trace(path)
            allocator = {
                "cpu_allocator_peak_during_step": _allocator_peak(path),
                "tracker_baseline": baseline.get("Total", 0),
            }
    fwd, bwd, opt_peaks = (
        tracker.phase_peaks.get(p, {}) for p in ("forward", "backward", "optimizer")
    )
    measured = {
        "weights": baseline.get("Parameter", 0),
        "gradients": max(bwd.get("Gradient", 0), opt_peaks.get("Gradient", 0)),
        "optimizer": after_step.get("Optstate", 0),
        "optimizer_peak": opt_peaks.get("Optstate", 0),
        "activations": max(fwd.get("Activation+Temp", 0), bwd.get("Activation+Temp", 0)),
        "activations_saved": bwd.get("Activation", 0),
        "activations_forward_peak": fwd.get("Activation", 0),
        "activations_end_of_forward": end_of_forward.get("Activation", 0),
        "temporaries_peak": max(bwd.get("Temp", 0), opt_peaks.get("Temp", 0)),
        "inputs": baseline.get("Other", 0),
        "peak_total": peak_breakdown.get("Total", 0),
        "peak_breakdown": {k: v for k, v in peak_breakdown.items() if v},
        "steady_state_peak": (
            baseline.get("Total", 0)
            + after_step.get("Optstate", 0)
            + max(fwd.get("Activation+Temp+Gradient", 0), bwd.get("Activation+Temp+Gradient", 0))
        ),
        **allocator,
    }
    del model, optimizer, tokens, targets, tracker
    gc.collect()
    return {
        "id": run.id,
        "torch": torch.__version__,
        "date": dt.date.today().isoformat(),
        "device": f"cpu ({platform.machine()}), {DEVICE_NOTE[run.mode]}",
        "mode": run.mode,
        "model": {
            "name": config.name,
            "params": params,  # the base model, without LoRA adapters
            "trainable_params": trainable,
            "layers": config.layers,
            "hidden": config.hidden,
            "heads": config.heads,
            "kv_heads": config.kv_heads,
            "head_dim": config.head_dim,
            "intermediate": config.intermediate,
            "vocab": config.vocab,
        },
        "options": asdict(opt),
        "bytes": measured,
        "seconds": round(time.monotonic() - started, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="measure/data/memory.json")
    parser.add_argument("--only", default=None, help="run only the ids containing this; no write")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message=".*NumPy.*")
    torch.set_num_threads(os.cpu_count() or 1)
    runs = [r for r in plan() if args.only is None or args.only in r.id]
    rows = []
    for run in runs:
        row = measure(run)
        b = row["bytes"]
        print(
            f"{row['id']:<52} {row['seconds']:>7.1f}s  weights {b['weights'] / 2**20:10.1f} MiB"
            f"  grads {b['gradients'] / 2**20:10.1f}  optim {b['optimizer'] / 2**20:10.1f}"
            f"  act {b['activations'] / 2**20:10.1f}  peak {b['peak_total'] / 2**20:10.1f}",
            flush=True,
        )
        rows.append(row)
    if args.only is not None:
        return
    data = {
        "about": (
            "Peak memory by category of one training step (forward, backward, AdamW step) of "
            "Llama-shaped models, measured with torch.distributed._tools.mem_tracker.MemTracker; "
            "made by measure/measure_memory.py (see its docstring for the categories)."
        ),
        "runs": rows,
    }
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    print(f"wrote {len(rows)} runs to {args.out}")


if __name__ == "__main__":
    main()
