"""Properties of the memory model over every kind and option (docs/memory-model.md): more tokens,
a bigger micro-batch or a higher LoRA rank never need less memory, and the options that only
save memory never cost any."""

from __future__ import annotations

from dataclasses import fields, replace

from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.engine.memory import FLASH_LSE_BYTES, KV_BLOCK_TOKENS, dims_of, task_memory
from advisor.engine.presets import MODEL_PRESETS
from advisor.engine.scenario import (
    ATTENTIONS,
    CHECKPOINTING,
    FRAMEWORKS,
    LORA_TARGETS,
    OPTIMIZERS,
    SERVINGS,
)
from advisor.engine.types import ModelArch, Task
from tests.conftest import examples

LLM_PRESETS = [key for key, arch in MODEL_PRESETS.items() if arch.family == "llm"]

shapes = st.one_of(
    st.builds(lambda: {}),
    st.builds(
        lambda layers, hidden, heads, vocab: {
            "layers": layers,
            "hidden": hidden,
            "heads": heads,
            "vocab": vocab,
        },
        st.integers(1, 128),
        st.sampled_from([512, 1024, 4096, 8192]),
        st.sampled_from([8, 16, 32, 64]),
        st.integers(1000, 256_000),
    ),
)


@st.composite
def archs(draw: st.DrawFn) -> ModelArch:
    if draw(st.booleans()):
        return MODEL_PRESETS[draw(st.sampled_from(LLM_PRESETS))]
    return ModelArch(params=draw(st.integers(10**7, 10**12)), **draw(shapes))


@st.composite
def tasks(draw: st.DrawFn) -> Task:
    """A task of any ML kind with every memory option drawn."""
    kind = draw(st.sampled_from(["full_finetune", "lora", "qlora", "inference"]))
    sharding = draw(st.sampled_from(["none", "zero1", "zero2", "zero3"]))
    offloads = ["none", "optimizer"] + (["optimizer_and_params"] if sharding == "zero3" else [])
    precisions = ["fp32", "bf16", "fp16"] + (
        ["fp8", "int8", "int4"] if kind in ("lora", "inference") else []
    )
    return Task(
        name="t",
        kind=kind,  # type: ignore[arg-type]
        arch=draw(archs()),
        precision=draw(st.sampled_from(precisions)),
        optimizer=draw(st.sampled_from(OPTIMIZERS)),
        master_weights=draw(st.booleans()),
        sharding=sharding,  # type: ignore[arg-type]
        offload=draw(st.sampled_from(offloads)),
        activation_checkpointing=draw(st.sampled_from(CHECKPOINTING)),
        activation_offload=draw(st.booleans()),
        attention=draw(st.sampled_from(ATTENTIONS)),
        framework=draw(st.sampled_from(FRAMEWORKS)),
        lora_targets=draw(st.sampled_from(LORA_TARGETS)),
        fused_optimizer_step=draw(st.booleans()),
        micro_batch=draw(st.integers(1, 8)),
        seq_len=draw(st.integers(1, 65536)),
        lora_rank=draw(st.integers(1, 256)),
        context_len=draw(st.integers(1, 131072)),
        concurrent_sequences=draw(st.integers(1, 64)),
        kv_precision=draw(st.sampled_from(["fp32", "bf16", "fp8"])),
        serving=draw(st.sampled_from(SERVINGS)),
        gpus=draw(st.integers(1, 64)),
    )


def need(task: Task) -> int:
    return task_memory(task).per_gpu.total


@settings(max_examples=examples(300))
@given(tasks(), st.integers(1, 65536))
def test_longer_sequences_never_need_less(task: Task, extra: int) -> None:
    assert need(replace(task, seq_len=task.seq_len + extra)) >= need(task)


@settings(max_examples=examples(300))
@given(tasks(), st.integers(1, 16))
def test_bigger_micro_batches_never_need_less(task: Task, extra: int) -> None:
    assert need(replace(task, micro_batch=task.micro_batch + extra)) >= need(task)


@settings(max_examples=examples(300))
@given(tasks(), st.integers(1, 256))
def test_higher_lora_ranks_never_need_less(task: Task, extra: int) -> None:
    assert need(replace(task, lora_rank=task.lora_rank + extra)) >= need(task)


@settings(max_examples=examples(300))
@given(tasks(), st.integers(1, 131072), st.integers(1, 64))
def test_longer_contexts_and_more_sequences_never_need_less(
    task: Task, context: int, sequences: int
) -> None:
    longer = replace(task, context_len=task.context_len + context)
    assert need(longer) >= need(task)
    assert need(replace(task, concurrent_sequences=task.concurrent_sequences + sequences)) >= need(
        task
    )


@settings(max_examples=examples(300))
@given(tasks())
def test_options_that_save_memory_never_cost_any(task: Task) -> None:
    """FlashAttention against eager, LoRA on attention only against every linear layer, a paged
    KV cache against generate's (the cache only: vLLM also leaves 10 % of the GPU unused), and
    full recomputation against none for models of two layers or more (checkpointing a one-layer
    model keeps its input beside the recomputed layer, a layer's input more than without)."""
    if task.kind == "inference":
        paged = task_memory(replace(task, serving="paged")).per_gpu.kv_cache
        generate = task_memory(replace(task, serving="hf_generate")).per_gpu.kv_cache
        assert paged <= generate or task.context_len < KV_BLOCK_TOKENS  # one block > 2 copies
        return
    # Under selective recomputation eager attention keeps neither the s² scores nor the
    # log-sum-exp FlashAttention keeps (4 B per head and token in each layer).
    dims = dims_of(task.arch)  # type: ignore[arg-type]
    lse = 0
    if task.activation_checkpointing == "selective":
        lse = FLASH_LSE_BYTES * dims.heads * dims.layers * task.seq_len * task.micro_batch
    assert need(replace(task, attention="flash")) <= need(replace(task, attention="eager")) + lse
    attention_only = replace(task, lora_targets="attention")
    assert need(attention_only) <= need(replace(task, lora_targets="all_linear"))
    if dims.layers >= 2:
        assert need(replace(task, activation_checkpointing="full")) <= need(
            replace(task, activation_checkpointing="none")
        )


@given(tasks())
def test_components_are_never_negative(task: Task) -> None:
    per_gpu = task_memory(task).per_gpu
    assert all(getattr(per_gpu, f.name) >= 0 for f in fields(per_gpu))
