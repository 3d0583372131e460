"""Training time: compute from FLOPs and a utilisation (MFU) taken from published runs,
communication from measured all-reduce bandwidths inside a machine and the network between
machines, optimizer offload from PCIe and CPU Adam throughput; each time is a range.

The formulas and every figure, with its source, are in docs/time-model.md ("Training FLOPs",
"Utilisation", "Communication", "Several machines", "Offload", "Ranges") and docs/accelerators.md
(NCCL bus bandwidths measured in NVIDIA's nccl and nccl-tests issues). In short:

* FLOPs per token: 6N + 12·L·d_attn·s for a full fine-tune (Kaplan et al. 2020, arXiv:2001.08361;
  Narayanan et al. 2021, arXiv:2104.04473; Chowdhery et al. 2022, PaLM, arXiv:2204.02311,
  appendix B), 4N + 12·L·d_attn·s for LoRA/QLoRA (no weight gradients of the frozen base), plus
  one more forward pass (2N + 4·L·d_attn·s) with full activation recomputation.
* Utilisation of those FLOPs: a roofline-shaped curve through two published class medians (A100
  and H100 runs), by the card's FLOPs per byte of memory bandwidth, times a model-size factor
  from MosaicML's llm-foundry benchmarks; the range spans the published spread.
* A mixture of experts at 0.46 of a dense model's utilisation, with expert parallelism's
  all-to-all and ZeRO-3's per-expert gathers under Transformers' loop ("Mixture of experts");
  an image model by its denoiser's work per image (diffusion.training_work, "Diffusion
  training").
* Gradient synchronisation once per optimizer step (DDP, ZeRO-1), reduce-scatter every
  micro-batch (ZeRO-2) and parameter all-gathers every micro-batch (ZeRO-3); hierarchical over
  machines: inside a machine at its measured bus bandwidth, then between machines at the network's.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass

from advisor.engine import diffusion
from advisor.engine.errors import InvalidWorkload
from advisor.engine.memory import expert_split, lora_adapter_params
from advisor.engine.memory_plan import NF4_BYTES_PER_PARAM, PRECISION_BYTES, compute_precision
from advisor.engine.messages import Code, Message, Quantity, Unit, fraction, msg
from advisor.engine.types import AcceleratorSpec, Interconnect, ModelArch, Task
from advisor.engine.vocab import Interconnect as Link
from advisor.engine.vocab import Network

# ------------------------------------------------------------------------------------ FLOPs

# Attention score and value products per token and layer: 2·2·d_attn·s forward (QKᵀ and AV over
# the full s×s matrix, the convention of PaLM appendix B and of the MFU figures below), twice
# that backward: 12·L·d_attn·s for forward and backward.
ATTENTION_FLOPS_PER_TOKEN = 12
ATTENTION_FORWARD_FLOPS_PER_TOKEN = 4

# ------------------------------------------------------------------------------ utilisation


@dataclass(frozen=True)
class UtilisationAnchor:
    """A class of accelerator, its dense BF16 peak and memory bandwidth, and the median
    utilisation of published training runs on it (docs/time-model.md, "Utilisation")."""

    name: str
    peak_tflops: float
    bandwidth_gbps: float
    mfu: float
    source: str

    @property
    def ridge(self) -> float:
        """FLOPs per byte of memory bandwidth: where a kernel turns compute-bound."""
        return self.peak_tflops * 1e12 / (self.bandwidth_gbps * 1e9)


# A100 SXM (312 TFLOPS, 2039 GB/s): Llama 2's 184,320 / 368,640 / 1,720,320 A100-hours for 2T
# tokens imply 0.42-0.46 (Touvron et al. 2023, arXiv:2307.09288, Table 2); OPT-175B 147 TFLOPS
# per GPU, 0.47 (Zhang et al. 2022, arXiv:2205.01068); Megatron-LM 1T 0.52 (Narayanan et al.
# 2021); MegaScale 175B on 12,288 GPUs 0.552 (Jiang et al. 2024, arXiv:2402.15627); torchtitan
# Llama 3 8B 0.57, 70B 0.52 (pytorch/torchtitan docs/performance.md). Median 0.50.
AMPERE_ANCHOR = UtilisationAnchor(
    "A100 SXM", 312, 2039, 0.50, "Llama 2, OPT-175B, Megatron-LM, MegaScale, torchtitan on A100"
)
# H100 SXM (989 TFLOPS, 3350 GB/s): Llama 3 405B 0.38-0.43 BF16 MFU on 8,192-16,384 GPUs
# (Grattafiori et al. 2024, arXiv:2407.21783, Table 4); torchtitan Llama 3.1 8B 0.33-0.39 on
# 8-128 GPUs; llm-foundry MPT 1B-70B 0.36-0.46 MFU (mosaicml/llm-foundry
# scripts/train/benchmarking/README.md). Median 0.40.
HOPPER_ANCHOR = UtilisationAnchor(
    "H100 SXM", 989, 3350, 0.40, "Llama 3, torchtitan and llm-foundry runs on H100"
)


def _curve(a: UtilisationAnchor, b: UtilisationAnchor) -> tuple[float, float]:
    """(u0, r0) of u(r) = u0 / (1 + r/r0) through both anchors.

    Step time = GEMM FLOPs / (peak · u0) + memory-bound bytes / bandwidth; with the memory-bound
    bytes a fixed share of the FLOPs, utilisation falls as 1 / (1 + ridge / r0).
    """
    r0 = (b.mfu * b.ridge - a.mfu * a.ridge) / (a.mfu - b.mfu)
    return a.mfu * (1 + a.ridge / r0), r0


MFU_CEILING_GEMM, MFU_RIDGE_SCALE = _curve(AMPERE_ANCHOR, HOPPER_ANCHOR)
# Without a bandwidth figure (Ascend 910B) the ridge is unknown: Hopper's median.
DEFAULT_MFU = HOPPER_ANCHOR.mfu
# Model-size factor, log-linear between (parameters, factor) points: llm-foundry's A100 and H100
# tables give 125M-760M models 0.70-0.89 and 1B-3B models 0.90-0.97 of the 7B-70B utilisation.
SIZE_FACTORS = ((1e8, 0.70), (1e9, 0.90), (1e10, 1.0))
# The range: the lowest utilisation a published run implies is 0.45 of its class value (Llama
# 3.1 8B: 1.46M H100-hours for ~15T tokens, 0.18, every GPU-hour the run held counted); the
# highest 1.6 times it (llm-foundry A100 HFU up to 0.79), capped at 0.8.
MFU_LOW_FACTOR = 0.45
MFU_HIGH_FACTOR = 1.6
MFU_CEILING = 0.80
# Above this the estimate is optimistic: no published run of docs/time-model.md reaches it.
MFU_WARNING = 0.60

# ---------------------------------------------------------------------------- communication

# Fraction of the backward pass behind which DDP/ZeRO buckets hide communication: an assumption
# between none (the range's slow end) and all of it (the fast end).
COMM_OVERLAP = 0.5
# Warn below this scaling efficiency: DDP on 8 NVLink A100s reaches 97-98 % (docs/time-model.md).
SCALING_WARNING = 0.9


@dataclass(frozen=True)
class BusbwAnchor:
    """A measured 8-GPU NCCL all-reduce bus bandwidth (docs/accelerators.md)."""

    architecture: str
    nvlink_gbps: float
    busbw_gbps: float
    source: str


NVLINK_ANCHORS = (
    BusbwAnchor("Ampere", 600, 200, "8×A100-SXM4-80GB NVSwitch ~200 GB/s, nccl-tests#149"),
    BusbwAnchor("Hopper", 900, 370, "8×H100 SXM ring ~370 GB/s, nccl-tests#212"),
    BusbwAnchor("Hopper", 400, 215, "8×H800 SXM 215 GB/s, nccl#1374"),
)
# 2×H100 PCIe with a 600 GB/s NVLink bridge measured ~116 GB/s (NVIDIA/nccl#1161).
BRIDGE_ANCHOR = BusbwAnchor("Hopper", 600, 116, "2×H100 PCIe + NVLink bridge ~116 GB/s, nccl#1161")
# Data-centre cards with peer-to-peer over PCIe: 8×RTX 5090 PCIe Gen5 28 GB/s, 4 GPUs 35 GB/s;
# NVIDIA: on PCIe systems the CPU and memory bound it (NVIDIA/nccl#1639).
PCIE_BUSBW_UP_TO_4 = 35.0
PCIE_BUSBW_ABOVE_4 = 28.0
PCIE_SOURCE = "8×RTX 5090 PCIe 28 GB/s (4 GPUs: 35 GB/s), nccl#1639"
# GeForce cards have no peer-to-peer: NCCL copies through host memory (SHM). 2×RTX 2080 Ti on an
# AutoDL container, PCIe Gen3, "P2P not supported": all_reduce_perf busbw 4.00 GB/s (Anthony-Hoo,
# "AutoDL GPU container multi-GPU interconnect test", 2025-06-05). Each copy crosses PCIe twice,
# so it scales with the link: ×2 per PCIe generation (RTX 4090 Gen4: 8 GB/s). The fast end is the
# tuned dual-socket server of nccl#1639 ("little difference compared to 8×RTX 4090"), the slow end
# the Gen3 measurement itself.
NO_P2P_BUSBW_GEN3 = 4.0
NO_P2P_SOURCE = "2×RTX 2080 Ti on AutoDL, P2P not supported, 4.0 GB/s at PCIe Gen3"
_GEFORCE = re.compile(r"geforce|\brtx[\s-]?[2-5]0[5-9]0", re.IGNORECASE)

# ------------------------------------------------------------------------- several machines

# GPUs per machine when not known: an HGX board (8 GPUs).
DEFAULT_GPUS_PER_NODE = 8
# NCCL all-reduce between machines reaches 84.8-96 % of the NICs' line rate over RDMA: 86 of
# 100 GB/s on 2 × (8×A100, 4×HDR 200 Gb/s) (NVIDIA/nccl-tests#175), 84.8 average and 96 peak of
# 100 on 3 such nodes (nccl-tests#119), 91 (nccl-tests#100). Plain TCP without RDMA: half of the
# line rate, an assumption of ours (docs/time-model.md).
NETWORK_EFFICIENCY = {
    Network.INFINIBAND: 0.86,
    Network.ROCE: 0.86,
    Network.EFA: 0.86,
    Network.ETHERNET: 0.5,
}
# The network assumed where neither the platform nor the scenario states one. NVSwitch boards:
# one NIC per GPU as NVIDIA's reference systems have, 200 Gb/s HDR InfiniBand on A100-class
# (DGX A100: 8 × ConnectX-6), 400 Gb/s NDR on Hopper and Blackwell (DGX H100, DGX B200: 8 ×
# ConnectX-7). Other machines: 100 Gb/s Ethernet, what the clouds give an 8-GPU PCIe instance
# (AWS g5.48xlarge 100 Gbps, https://aws.amazon.com/ec2/instance-types/g5/).
NIC_GBPS_PER_GPU = {"Ampere": 200.0, "Hopper": 400.0, "Blackwell": 400.0}
DEFAULT_ETHERNET_GBPS = 100.0
# An instance of fewer GPUs than a whole 8-GPU machine is a container or VM on part of one (as
# per-card marketplaces rent them), with no fast fabric to other instances: 10 Gb/s Ethernet,
# an assumption of ours, what a general-purpose instance reaches another with (Lambda's
# on-demand instances: "The maximum inter-node connectivity is 10 Gbps", Lambda docs before
# 1-Click Clusters; EC2: one flow at most 10 Gbps inside a cluster placement group,
# https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-instance-network-bandwidth.html).
PARTIAL_MACHINE_GBPS = 10.0

# ----------------------------------------------------------------------------------- offload

# PCIe x16 per direction (PCI-SIG: 8, 16, 32 GT/s with 128b/130b coding = 15.75, 31.5, 63 GB/s)
# and the share of it pinned copies reach: 12.2 and 13.2 of 15.75 GB/s host-to-device and back on
# Gen3 (bandwidthTest on AutoDL, the measurement above), 56 of 63 GB/s on Gen5
# (voipmonitor/rtx6kpro hardware/pcie-bandwidth.md): 0.8.
PCIE_X16_GBPS = {3: 15.75, 4: 31.5, 5: 63.0, 6: 126.0}
PCIE_EFFICIENCY = 0.8
DEFAULT_PCIE_GEN = 4
# DeepSpeed's CPU-Adam updates 1B parameters in 0.22 s and 10B in 2.57 s on a DGX-2 host (Ren et
# al. 2021, ZeRO-Offload, arXiv:2101.06840, Table 4; 6.4× PyTorch's CPU Adam): ~4e9 a second for
# the whole host, shared by the GPUs' processes. The update is not overlapped (no delayed
# parameter update).
CPU_ADAM_PARAMS_PER_S = 4.0e9

# ----------------------------------------------------------------------------------- QLoRA

# QLoRA's dequantization of the 4-bit base, per micro-batch, as bytes of memory traffic per base
# parameter: Qwen's fine-tuning benchmarks (QwenLM/Qwen README, "Profiling of Memory and Speed",
# one A100-SXM4-80G, batch 1, gradient checkpointing) put Q-LoRA 0.19-0.23 s per micro-batch
# behind LoRA for Qwen-7B and 0.39-0.49 s for Qwen-14B, i.e. 50-65 B per parameter at 2,039 GB/s;
# the whole spread over 256-8192 tokens is 30-70.
QLORA_DEQUANT_BYTES_PER_PARAM = (30.0, 55.0, 70.0)
QLORA_SOURCE = "Qwen-7B/14B Q-LoRA against LoRA on A100, QwenLM/Qwen README"


@dataclass(frozen=True)
class TimeEstimate:
    """Hours of a training run, expected and its range, and what makes them up (expected case)."""

    hours: float
    low_hours: float
    high_hours: float
    total_flops: float  # executed, recomputation included
    mfu: float  # utilisation of the executed FLOPs, expected
    mfu_low: float
    mfu_high: float
    compute_seconds: float
    comm_seconds: float  # communication not hidden behind the backward pass
    scaling_efficiency: float
    steps: int  # optimizer steps
    seconds_per_step: float
    tokens_per_step: int  # micro_batch × gradient_accumulation × seq_len × GPUs
    offload_seconds: float = 0.0  # PCIe transfers and CPU Adam not hidden
    nodes: int = 1
    warnings: tuple[Message, ...] = ()
    notes: tuple[Message, ...] = ()


@dataclass(frozen=True)
class _Case:
    """One end of the range, or the expected case."""

    mfu: float
    overlap: float  # share of the backward pass that hides communication
    busbw: float  # inside a machine
    dequant: float  # QLoRA bytes per base parameter and micro-batch


# ---------------------------------------------------------------------------- bus bandwidth


def is_geforce(accel: AcceleratorSpec) -> bool:
    """A GeForce card: no peer-to-peer between cards (docs/accelerators.md)."""
    return bool(_GEFORCE.search(accel.name) or _GEFORCE.search(accel.slug))


def allreduce_anchor(
    accel: AcceleratorSpec, interconnect: Interconnect, gpus: int
) -> tuple[float, Message]:
    """All-reduce bus bandwidth (GB/s) for `gpus` of `accel` and the measurement it rests on."""
    busbw, _fast, _slow, source = busbw_range(accel, interconnect, gpus)
    return busbw, source


def busbw_range(
    accel: AcceleratorSpec, interconnect: Interconnect, gpus: int
) -> tuple[float, float, float, Message]:
    """(expected, fast, slow) all-reduce bus bandwidth inside one machine, GB/s, and its source."""
    nvlink = interconnect == "nvlink" and accel.nvlink and accel.nvlink_bandwidth_gbps
    if nvlink and accel.nvlink_bridge:
        if gpus <= 2:
            busbw, source = _scaled(BRIDGE_ANCHOR, accel)
            return busbw, busbw, busbw, source
        nvlink = False  # a bridge joins pairs; a larger ring crosses PCIe
    if not nvlink:
        pcie = PCIE_BUSBW_UP_TO_4 if gpus <= 4 else PCIE_BUSBW_ABOVE_4
        if is_geforce(accel):
            gen = accel.pcie_gen or DEFAULT_PCIE_GEN
            busbw = NO_P2P_BUSBW_GEN3 * 2 ** max(0, gen - 3)
            source = msg(Code.BUSBW_SOURCE_PCIE, source=NO_P2P_SOURCE)
            return busbw, max(busbw, pcie), NO_P2P_BUSBW_GEN3, source
        return pcie, pcie, pcie, msg(Code.BUSBW_SOURCE_PCIE, source=PCIE_SOURCE)
    same_arch = [a for a in NVLINK_ANCHORS if a.architecture == accel.architecture]
    candidates = same_arch or list(NVLINK_ANCHORS)
    bandwidth = accel.nvlink_bandwidth_gbps or 0.0
    anchor = min(candidates, key=lambda a: abs(a.nvlink_gbps - bandwidth))
    busbw, source = _scaled(anchor, accel)
    return busbw, busbw, busbw, source


def _scaled(anchor: BusbwAnchor, accel: AcceleratorSpec) -> tuple[float, Message]:
    bandwidth = accel.nvlink_bandwidth_gbps or anchor.nvlink_gbps
    if bandwidth == anchor.nvlink_gbps:
        return anchor.busbw_gbps, msg(Code.BUSBW_SOURCE_NVLINK, source=anchor.source)
    busbw = anchor.busbw_gbps * bandwidth / anchor.nvlink_gbps
    return busbw, msg(
        Code.BUSBW_SOURCE_NVLINK_SCALED,
        source=anchor.source,
        bandwidth=float(bandwidth),
        anchor_bandwidth=float(anchor.nvlink_gbps),
    )


def default_network(accel: AcceleratorSpec, gpus_per_node: int) -> tuple[Network, float, Message]:
    """(kind, Gb/s per machine, why) assumed when nobody states the network between machines.

    The DGX design (a NIC per GPU) is that of a whole 8-GPU NVSwitch board, and 100 Gb/s
    Ethernet that of a whole 8-GPU PCIe instance; an instance of fewer GPUs is a share of a
    machine (a container or VM of a card or a few, as per-card marketplaces rent them), whose
    network neither tells: PARTIAL_MACHINE_GBPS."""
    if gpus_per_node < DEFAULT_GPUS_PER_NODE:
        why = msg(Code.NETWORK_WHY_PARTIAL_MACHINE)
        return Network.ETHERNET, PARTIAL_MACHINE_GBPS, why
    per_gpu = NIC_GBPS_PER_GPU.get(accel.architecture)
    if accel.nvlink and not accel.nvlink_bridge and per_gpu:
        source = msg(Code.NETWORK_WHY_DGX, gbps=Quantity(per_gpu, Unit.COUNT, 0))
        return Network.INFINIBAND, per_gpu * gpus_per_node, source
    return Network.ETHERNET, DEFAULT_ETHERNET_GBPS, msg(Code.NETWORK_WHY_PCIE_MACHINE)


def network_busbw(network: Network, gbps: float) -> float:
    """All-reduce bus bandwidth between machines, GB/s: the machine's line rate × efficiency."""
    return gbps / 8 * NETWORK_EFFICIENCY[network]


# ----------------------------------------------------------------------------------- FLOPs


def _compute_params(arch: ModelArch) -> int:
    """Parameters touched per token: the active ones for a mixture of experts, a denoiser's
    per-token weights for an image model (diffusion.token_params)."""
    if arch.diffusion is not None:
        return diffusion.token_params(arch.diffusion)
    return arch.active_params or arch.params


def attention_width(arch: ModelArch) -> int:
    """d_attn = heads × head_dim (the hidden size when those are not given); 0 when unknown."""
    if arch.heads and arch.head_dim:
        return arch.heads * arch.head_dim
    return arch.hidden or 0


def _flops_per_token(task: Task) -> tuple[float, float, float]:
    """(executed FLOPs per token, of which forward, attention FLOPs per token)."""
    assert task.arch is not None
    n = _compute_params(task.arch)
    attention = ATTENTION_FLOPS_PER_TOKEN * (task.arch.layers or 0) * attention_width(task.arch)
    attention *= task.seq_len
    dense = (6 if task.kind == "full_finetune" else 4) * n
    forward = 2 * n + attention * ATTENTION_FORWARD_FLOPS_PER_TOKEN / ATTENTION_FLOPS_PER_TOKEN
    total = float(dense + attention)
    if task.activation_checkpointing == "full":
        total += forward  # the forward pass again
    return total, forward, attention


def training_flops(task: Task) -> float:
    """FLOPs executed to train `task.tokens`: 6N + 12·L·d_attn·s per token (LoRA/QLoRA 4N + …),
    one more forward pass with full recomputation."""
    if task.arch is None or task.tokens is None:
        raise ValueError("training_flops needs a resolved arch and tokens")
    return _flops_per_token(task)[0] * task.tokens


def tensor_tflops(accel: AcceleratorSpec) -> float | None:
    """Dense 16-bit tensor TFLOPS: BF16, or FP16 on a card without BF16 (V100, Turing), which
    runs a bf16 task in FP16 (stacks.py warns; docs/time-model.md)."""
    return accel.bf16_tflops if accel.bf16_tflops is not None else accel.fp16_tflops


def _peak_tflops(task: Task, accel: AcceleratorSpec) -> float | None:
    # fp32 training runs on the FP32 units; every other precision on dense BF16/FP16 tensor cores.
    if compute_precision(task) == "fp32":
        return accel.fp32_tflops
    return tensor_tflops(accel)


# ----------------------------------------------------------------------------- utilisation


def size_factor(params: float) -> float:
    """Utilisation of a model of `params` relative to 7B-70B ones (llm-foundry, SIZE_FACTORS)."""
    points = SIZE_FACTORS
    if params <= points[0][0]:
        return points[0][1]
    for (n0, f0), (n1, f1) in itertools.pairwise(points):
        if params <= n1:
            t = math.log10(params / n0) / math.log10(n1 / n0)
            return f0 + t * (f1 - f0)
    return points[-1][1]


def expected_mfu(task: Task, accel: AcceleratorSpec) -> tuple[float, float | None]:
    """(utilisation, the ridge it comes from) for `task` on `accel`, before any user figure."""
    assert task.arch is not None
    peak = _peak_tflops(task, accel)
    if peak and accel.memory_bandwidth_gbps:
        ridge = peak * 1e12 / (accel.memory_bandwidth_gbps * 1e9)
        base = MFU_CEILING_GEMM / (1 + ridge / MFU_RIDGE_SCALE)
    else:
        ridge, base = None, DEFAULT_MFU
    return base * size_factor(_compute_params(task.arch)), ridge


def mfu_band(mfu: float) -> tuple[float, float]:
    """(low, high) utilisation around an expected one (MFU_LOW_FACTOR, MFU_HIGH_FACTOR)."""
    return mfu * MFU_LOW_FACTOR, max(mfu, min(mfu * MFU_HIGH_FACTOR, MFU_CEILING))


# --------------------------------------------------------------------------- communication


def allreduce_seconds(gradient_bytes: float, gpus: int, busbw_gbps: float) -> float:
    """Seconds of one all-reduce of `gradient_bytes`: 2(N−1)/N · G / busbw (ring all-reduce)."""
    if gpus <= 1:
        return 0.0
    return 2 * (gpus - 1) / gpus * gradient_bytes / (busbw_gbps * 1e9)


@dataclass(frozen=True)
class _Fabric:
    """The GPUs of a task: g per machine over k machines, and the bandwidths joining them."""

    per_node: int
    nodes: int
    inter_busbw: float  # GB/s between machines

    def gather_seconds(self, size: float, busbw: float) -> float:
        """One all-gather (or reduce-scatter) of `size` bytes: inside each machine, then between
        machines ((n−1)/n · size / busbw at each level)."""
        g, k = self.per_node, self.nodes
        inside = (g - 1) / g * size / (busbw * 1e9) if g > 1 else 0.0
        between = (k - 1) / k * size / (self.inter_busbw * 1e9) if k > 1 else 0.0
        return inside + between


def _trainable_params(task: Task) -> int:
    assert task.arch is not None
    d = task.arch.diffusion
    if task.kind == "full_finetune":
        return d.denoiser_params if d is not None else task.arch.params
    if d is not None:
        return diffusion.task_lora_params(task)
    return lora_adapter_params(task.arch, task.lora_rank, task.lora_targets)


def _base_params(task: Task) -> int:
    """Parameters of the weights trained or adapted: an image model's denoiser, not its text
    encoders and VAE, which the training of docs/time-model.md never updates."""
    assert task.arch is not None
    d = task.arch.diffusion
    return d.denoiser_params if d is not None else task.arch.params


def _weight_bytes(task: Task) -> float:
    """Bytes of all weights as the GPUs hold them (what ZeRO-3 gathers)."""
    assert task.arch is not None
    size = PRECISION_BYTES[compute_precision(task)]
    if task.kind == "full_finetune":
        return _base_params(task) * size
    base = NF4_BYTES_PER_PARAM if task.kind == "qlora" else PRECISION_BYTES[task.precision]
    return _base_params(task) * base + _trainable_params(task) * size


def _comm_per_step(task: Task, fabric: _Fabric, busbw: float) -> float:
    """Seconds of collective communication per optimizer step (expected bandwidths).

    DDP and ZeRO-1 all-reduce the gradients once per step (no_sync while accumulating); ZeRO-2
    reduce-scatters them every micro-batch and all-gathers the updated weights once; ZeRO-3
    all-gathers the weights twice (forward, backward) and reduce-scatters the gradients every
    micro-batch (ZeRO paper, arXiv:1910.02054: 2Ψ, 2Ψ, 3Ψ per step without accumulation).
    """
    if fabric.per_node * fabric.nodes <= 1:
        return 0.0
    weights_share, grads_share = _expert_parallel_shares(task, fabric)
    grads = _trainable_params(task) * PRECISION_BYTES[compute_precision(task)] * grads_share
    micro = task.gradient_accumulation
    gather = fabric.gather_seconds
    if task.sharding == "zero3":
        weights = _weight_bytes(task) * weights_share
        return micro * (2 * gather(weights, busbw) + gather(grads, busbw))
    if task.sharding == "zero2":
        return micro * gather(grads, busbw) + gather(grads, busbw)
    return 2 * gather(grads, busbw)


# ---------------------------------------------------------------------------------- offload


def _pcie_gbps(accel: AcceleratorSpec) -> float:
    return PCIE_X16_GBPS.get(accel.pcie_gen or DEFAULT_PCIE_GEN, 31.5) * PCIE_EFFICIENCY


def _offload_per_step(task: Task, accel: AcceleratorSpec, fabric: _Fabric) -> tuple[float, float]:
    """(PCIe seconds, CPU Adam seconds) per optimizer step and GPU (docs/time-model.md, "Offload").

    ZeRO-Offload moves each GPU's gradient partition to the host and the updated 16-bit weights
    back (4Ψ bytes in all for one GPU, Ren et al. 2021) and runs Adam on the host CPU, whose
    throughput the machine's GPUs share; parameter offload fetches the weights from the host
    for every forward and backward pass.
    """
    if task.offload == "none":
        return 0.0, 0.0
    shard = fabric.per_node * fabric.nodes if task.sharding != "none" else 1
    trainable = _trainable_params(task)
    grads = trainable * PRECISION_BYTES[compute_precision(task)] / shard
    per_micro = task.sharding in ("zero2", "zero3")
    moved = grads * (task.gradient_accumulation if per_micro else 1) + grads
    if task.offload == "optimizer_and_params":
        moved += 2 * task.gradient_accumulation * _weight_bytes(task) / shard
    pcie = moved / (_pcie_gbps(accel) * 1e9)
    cpu = trainable / shard * fabric.per_node / CPU_ADAM_PARAMS_PER_S
    return pcie, cpu


# --------------------------------------------------------------------- mixture of experts

# How the experts run when the task does not say: Transformers' modelling code loops over them
# (the "eager" experts backend, "loops over selected experts and applies projections on their
# tokens", https://huggingface.co/docs/transformers/experts_interface; Qwen3MoeSparseMoeBlock in
# transformers' models/qwen3_moe/modeling_qwen3_moe.py), what its Trainer, TRL, LLaMA-Factory and
# ms-swift's `swift sft` run.
DEFAULT_MOE_IMPLEMENTATION = "expert_loop"
MOE_IMPLEMENTATION_NAMES = {
    "expert_loop": Code.MOE_EXPERT_LOOP,
    "grouped_gemm": Code.MOE_GROUPED_GEMM,
    "expert_parallel": Code.MOE_EXPERT_PARALLEL,
}
# A mixture of experts' utilisation as a share of a dense model's of its active size: its
# experts' GEMMs are smaller (a few hundred tokens each), and routing, permutation and the load
# imbalance between experts add work. Two published runs with grouped GEMM kernels and expert
# parallelism:
# * Phi-3.5-MoE, 6.6B active of 42B (16 experts, top 2): 512 H100-80G for 23 days, 282,624
#   GPU-hours, for 4.9T tokens (microsoft/Phi-3.5-MoE-instruct model card): 1.75 times the
#   dense estimate's compute at 4,096 tokens, a share of 0.57 of it; model cards count every
#   hour the run held, and the six dense cards of tests/advisor/engine/test_time_published.py
#   (Llama 2, Llama 3.1) sit a median 1.14 times above the steady-state estimate: 0.67;
# * Qwen3-30B-A3B, 3.35B active of 30.5B (128 experts, top 8), full fine-tune with Megatron-SWIFT
#   on 2 × 8 A800 80GB: tensor parallel 2, expert parallel 8, grouped GEMM, micro-batch 1, global
#   batch 16 of 8,192 packed tokens, full recomputation: 9.6 s/it (modelscope/ms-swift
#   docs/source_en/BestPractices/Qwen3-Best-Practice.md, "Megatron-SWIFT", commit 0424f53):
#   2.90 s of dense compute against 9.6 s less 0.51 s of all-to-all: 0.32.
# Expected: their geometric mean, 0.46, each 1.45 times from it; the utilisation band (×0.45 to
# ×1.6) spans both.
MOE_UTILISATION = 0.46
MOE_SOURCE = "Phi-3.5-MoE model card, Megatron-SWIFT Qwen3-30B-A3B on 16 A800"
# ZeRO-3 gathers (and reduce-scatters the gradients of) each module as the forward and backward
# passes reach it, and Transformers' loop makes each expert a module of its own: every expert of
# every MoE layer is fetched once per pass (forward, recomputation, backward) and its gradients
# reduced once, a collective with its hooks and launch each. ms-swift's comparison on the same
# Qwen3-30B-A3B run (2 × 8 A800, 8,192-token packed sequences, global batch 16, full
# recomputation): DeepSpeed ZeRO-3 with Transformers' loop 91.2 s/it against Megatron's 9.6 s/it
# (the Qwen3 best practice above). Less the engine's 6.3 s for the same ZeRO-3 run with grouped
# GEMM kernels, 84 s for 128 experts × 48 layers × 4 collectives: 3.4 ms each.
ZERO3_EXPERT_MODULE_SECONDS = 3.4e-3
ZERO3_EXPERT_SOURCE = "ms-swift: Qwen3-30B-A3B ZeRO-3 91.2 s/it against Megatron 9.6 s/it"
# Experts per token where the arch does not say: 8, as DeepSeek-V3, Qwen3-MoE, GLM-4.5 and Kimi
# K2 route (their config.json num_experts_per_tok).
DEFAULT_EXPERTS_PER_TOKEN = 8


def is_moe(arch: ModelArch) -> bool:
    """A mixture of experts: fewer parameters active per token than it has."""
    return bool(arch.active_params) and (arch.active_params or 0) < arch.params


def moe_implementation(task: Task) -> str:
    return task.moe_implementation or DEFAULT_MOE_IMPLEMENTATION


def _moe_utilisation(task: Task, notes: list[Message]) -> float:
    """The share of a dense model's utilisation a mixture of experts reaches (1 for a dense
    model), noted with its implementation and source."""
    if task.arch is None or not is_moe(task.arch):
        return 1.0
    name = msg(MOE_IMPLEMENTATION_NAMES[moe_implementation(task)])
    factor = Quantity(MOE_UTILISATION, Unit.COUNT, 2)
    notes.append(msg(Code.TIME_NOTE_MOE, implementation=name, factor=factor, source=MOE_SOURCE))
    return MOE_UTILISATION


def expert_parallel_degree(task: Task, fabric_per_node: int) -> int:
    """GPUs the experts are split over: those of one machine (all-to-all stays on its fabric,
    as Megatron-SWIFT's expert_model_parallel_size 8 on 8-GPU machines); 1 without expert
    parallelism."""
    if task.arch is None or not is_moe(task.arch) or moe_implementation(task) != "expert_parallel":
        return 1
    return max(1, fabric_per_node)


def _expert_parallel_shares(task: Task, fabric: _Fabric) -> tuple[float, float]:
    """(weights, gradients) shares that ZeRO and DDP communicate under expert parallelism: the
    experts are never gathered (each GPU keeps its own), and each expert's gradients are reduced
    only over the GPUs that hold it."""
    ep = expert_parallel_degree(task, fabric.per_node)
    if ep <= 1:
        return 1.0, 1.0
    assert task.arch is not None
    dense, routed = expert_split(task.arch)
    total = dense + routed
    return dense / total, (dense + routed / ep) / total


def _passes(task: Task) -> int:
    """Forward passes and backward: 2, or 3 with full recomputation."""
    return 3 if task.activation_checkpointing == "full" else 2


def _moe_comm_per_micro_batch(task: Task, fabric: _Fabric, busbw: float) -> tuple[float, float]:
    """(all-to-all, ZeRO-3 expert gathers) seconds per micro-batch, neither hidden.

    Expert parallelism sends each token's hidden state to its k experts and back in every MoE
    layer and pass: 2 · k · hidden · 2 B per token and layer, of which (ep − 1)/ep leaves the GPU,
    at the machine's bus bandwidth. ZeRO-3 under Transformers' loop fetches each expert as a
    module of its own (ZERO3_EXPERT_MODULE_SECONDS)."""
    arch = task.arch
    if arch is None or not is_moe(arch) or fabric.per_node * fabric.nodes <= 1:
        return 0.0, 0.0
    implementation = moe_implementation(task)
    layers = arch.layers or 0
    if implementation == "expert_parallel":
        ep = expert_parallel_degree(task, fabric.per_node)
        k = arch.experts_per_token or DEFAULT_EXPERTS_PER_TOKEN
        tokens = task.micro_batch * task.seq_len
        sent = _passes(task) * 2 * tokens * (arch.hidden or 0) * 2 * k * layers
        return (ep - 1) / ep * sent / (busbw * 1e9), 0.0
    if implementation == "expert_loop" and task.sharding == "zero3" and arch.experts:
        collectives = arch.experts * layers * (_passes(task) + 1)
        return 0.0, collectives * ZERO3_EXPERT_MODULE_SECONDS
    return 0.0, 0.0


def _moe_notes(task: Task, fabric: _Fabric, busbw: float, notes: list[Message]) -> None:
    all_to_all, modules = _moe_comm_per_micro_batch(task, fabric, busbw)
    assert task.arch is not None
    if all_to_all:
        notes.append(
            msg(
                Code.TIME_NOTE_EXPERT_PARALLEL,
                ep=expert_parallel_degree(task, fabric.per_node),
                top_k=task.arch.experts_per_token or DEFAULT_EXPERTS_PER_TOKEN,
                seconds=Quantity(all_to_all, Unit.COUNT, 2),
            )
        )
    if modules:
        notes.append(
            msg(
                Code.TIME_NOTE_MOE_ZERO3_EXPERTS,
                experts=task.arch.experts or 0,
                layers=task.arch.layers or 0,
                seconds=Quantity(modules, Unit.COUNT, 1),
                source=ZERO3_EXPERT_SOURCE,
            )
        )


# --------------------------------------------------------------------------- image models

BNB_DEQUANT_SOURCE = "bitsandbytes dequantize_4bit, 2.5-4.5 B per parameter and pass"


def _denoiser_work(task: Task, where: str) -> diffusion.DenoiserWork | None:
    """An image model's work per training image (diffusion.training_work); None for a
    language model."""
    if task.arch is None or task.arch.diffusion is None:
        return None
    return diffusion.training_work(task, f"{where}model")


def _image_flops_per_token(
    task: Task, work: diffusion.DenoiserWork, notes: list[Message]
) -> tuple[float, float, float]:
    """An image model's FLOPs as training_time counts them: a step is micro_batch ×
    gradient_accumulation samples of seq_len "tokens" on each GPU, and for an image model each
    sample is an image (`tokens` ÷ `seq_len` images in all, docs/time-model.md), so each of its
    seq_len tokens carries 1/seq_len of the image's work. No attention note: the image's own
    is in the diffusion note."""
    assert task.tokens is not None
    notes.append(
        msg(
            Code.TIME_NOTE_DIFFUSION,
            images=Quantity(task.tokens / task.seq_len, Unit.COUNT, 0),
            pixels=work.pixels,
            image_tokens=work.image_tokens,
            text_tokens=work.text_tokens,
            params=Quantity(work.token_params, Unit.COUNT, 0),
        )
    )
    if work.text_encoder_flops:
        share = fraction(work.text_encoder_flops / work.flops)
        notes.append(msg(Code.TIME_NOTE_DIFFUSION_TEXT_RUN, share=share))
    else:
        notes.append(msg(Code.TIME_NOTE_DIFFUSION_TEXT_CACHED))
    return work.flops / task.seq_len, work.forward / task.seq_len, 0.0


# ------------------------------------------------------------------------------------ time


def training_time(
    task: Task,
    accel: AcceleratorSpec,
    gpus: int,
    interconnect: Interconnect,
    mfu: float | None = None,
    busbw_gbps: float | None = None,
    *,
    index: int | None = None,
    gpus_per_node: int | None = None,
    network: Network | None = None,
    network_gbps: float | None = None,
) -> TimeEstimate:
    """Hours to train `task.tokens` tokens on `gpus` of `accel`, `gpus_per_node` to a machine
    (default: all of them up to 8) joined by `interconnect` inside a machine and by `network` at
    `network_gbps` per machine between machines (default: default_network)."""
    where = f"tasks[{index}]." if index is not None else ""
    if task.tokens is None:
        raise InvalidWorkload(Code.TOKENS_REQUIRED, f"{where}tokens")
    if task.arch is None:
        raise ValueError("training_time needs a resolved arch")
    peak = _peak_tflops(task, accel)
    if not peak:
        raise InvalidWorkload(
            Code.NO_THROUGHPUT_FIGURE, f"{where}on.accelerator", accelerator=accel.name
        )
    gpus = max(1, gpus)
    notes: list[Message] = []
    warnings: list[Message] = []

    # Utilisation: the user's figure, or the published-runs curve with its band.
    if mfu is None:
        mfu, ridge = expected_mfu(task, accel)
        mfu *= _moe_utilisation(task, notes)
        low_mfu, high_mfu = mfu_band(mfu)
        notes.append(msg(Code.TIME_NOTE_MFU, mfu=Quantity(mfu, Unit.COUNT, 2), peak=float(peak)))
        if ridge is not None:  # without a bandwidth figure the band has no ridge to name
            notes.append(
                msg(
                    Code.TIME_NOTE_MFU_BAND,
                    low=Quantity(low_mfu, Unit.COUNT, 2),
                    high=Quantity(high_mfu, Unit.COUNT, 2),
                    ridge=Quantity(ridge, Unit.COUNT, 0),
                    params=Quantity(_compute_params(task.arch), Unit.COUNT, 0),
                )
            )
    else:
        low_mfu = high_mfu = mfu
        notes.append(msg(Code.TIME_NOTE_MFU, mfu=Quantity(mfu, Unit.COUNT, 2), peak=float(peak)))
        # A figure of the user's above what published runs reach: the estimate is optimistic.
        # (The curve itself may pass 0.6 for a compute-light card such as the H20; that is the
        # engine's extrapolation, stated in the band note, not the user's claim.)
        if mfu > MFU_WARNING:
            warnings.append(msg(Code.TIME_WARN_MFU_HIGH, mfu=fraction(mfu)))

    work = _denoiser_work(task, where)
    if work is None:
        per_token, forward, attention = _flops_per_token(task)
    else:
        per_token, forward, attention = _image_flops_per_token(task, work, notes)
    if attention:
        dense = (6 if task.kind == "full_finetune" else 4) * _compute_params(task.arch)
        notes.append(
            msg(Code.TIME_NOTE_ATTENTION, share=fraction(attention / dense), seq_len=task.seq_len)
        )

    # The machines: g GPUs each over k machines.
    per_node = min(gpus, gpus_per_node or DEFAULT_GPUS_PER_NODE)
    nodes = math.ceil(gpus / per_node)
    inside: Interconnect = interconnect if per_node > 1 else Link.NONE
    inter_busbw = 0.0
    if nodes > 1:
        if network is None or network_gbps is None:
            kind, gbps, why = default_network(accel, per_node)
            network, network_gbps = network or kind, network_gbps or gbps
            notes.append(
                msg(
                    Code.TIME_NOTE_NETWORK_ASSUMED,
                    network=network,
                    gbps=Quantity(network_gbps, Unit.COUNT, 0),
                    source=why,
                )
            )
        inter_busbw = network_busbw(network, network_gbps)
    fabric = _Fabric(per_node, nodes, inter_busbw)
    if busbw_gbps is not None:
        busbw = fast_busbw = slow_busbw = busbw_gbps
    elif per_node > 1:
        busbw, fast_busbw, slow_busbw, source = busbw_range(accel, inside, per_node)
        notes.append(msg(Code.TIME_NOTE_BUSBW, busbw=Quantity(busbw, Unit.COUNT, 0), source=source))
    else:
        busbw = fast_busbw = slow_busbw = 1.0  # unused: nothing to talk to inside a machine
    if nodes > 1 and network is not None and network_gbps is not None:
        notes.append(
            msg(
                Code.TIME_NOTE_NODES,
                nodes=nodes,
                per_node=per_node,
                network=network,
                gbps=Quantity(network_gbps, Unit.COUNT, 0),
                busbw=Quantity(inter_busbw, Unit.COUNT, 0),
            )
        )

    # Steps: every GPU is a data-parallel rank.
    tokens_per_step = task.micro_batch * task.gradient_accumulation * task.seq_len * gpus
    steps = task.tokens / tokens_per_step
    tokens_per_gpu_step = tokens_per_step / gpus
    backward_share = (per_token - forward) / per_token
    offload_pcie, offload_cpu = _offload_per_step(task, accel, fabric)
    if task.offload != "none":
        notes.append(
            msg(
                Code.TIME_NOTE_OFFLOAD,
                pcie=Quantity(offload_pcie, Unit.COUNT, 2),
                cpu=Quantity(offload_cpu, Unit.COUNT, 2),
            )
        )
    # QLoRA: seconds per micro-batch for each byte per base parameter of dequantization traffic.
    dequant_scale = _base_params(task) / accel_bandwidth(accel) if task.kind == "qlora" else 0.0
    lows, mids, highs = QLORA_DEQUANT_BYTES_PER_PARAM if work is None else work.dequant_bytes
    if dequant_scale:
        seconds = Quantity(mids * dequant_scale, Unit.COUNT, 2)
        dequant_source = QLORA_SOURCE if work is None else BNB_DEQUANT_SOURCE
        notes.append(msg(Code.TIME_NOTE_QLORA_DEQUANT, seconds=seconds, source=dequant_source))

    _moe_notes(task, fabric, busbw, notes)

    def step_seconds(case: _Case) -> tuple[float, float, float]:
        """(compute, exposed communication, exposed offload) seconds of one step."""
        compute = per_token * tokens_per_gpu_step / (peak * 1e12 * case.mfu)
        compute += case.dequant * dequant_scale * task.gradient_accumulation
        comm = _comm_per_step(task, fabric, case.busbw)
        hidden = case.overlap * backward_share * compute
        exposed = max(0.0, comm + offload_pcie - hidden)
        comm_exposed = max(0.0, comm - hidden)
        # A mixture of experts' all-to-all and ZeRO-3's gathers of each expert sit between its
        # layers' computations: nothing hides them.
        all_to_all, modules = _moe_comm_per_micro_batch(task, fabric, case.busbw)
        serial = task.gradient_accumulation * (all_to_all + modules)
        return compute, comm_exposed + serial, exposed - comm_exposed + offload_cpu

    expected = step_seconds(_Case(mfu, COMM_OVERLAP, busbw, mids))
    fast = step_seconds(_Case(high_mfu, 1.0, fast_busbw, lows))
    slow = step_seconds(_Case(low_mfu, 0.0, slow_busbw, highs))
    compute, comm, offload = (steps * x for x in expected)
    total = compute + comm + offload
    efficiency = compute / (compute + comm) if compute + comm else 1.0
    if gpus > 1 and efficiency < SCALING_WARNING:
        warnings.append(msg(Code.TIME_WARN_SCALING, efficiency=fraction(efficiency)))
    return TimeEstimate(
        hours=total / 3600,
        low_hours=steps * sum(fast) / 3600,
        high_hours=steps * sum(slow) / 3600,
        total_flops=per_token * task.tokens,
        mfu=mfu,
        mfu_low=low_mfu,
        mfu_high=high_mfu,
        compute_seconds=compute,
        comm_seconds=comm,
        scaling_efficiency=efficiency,
        steps=math.ceil(steps),
        seconds_per_step=total / steps,
        tokens_per_step=tokens_per_step,
        offload_seconds=offload,
        nodes=nodes,
        warnings=tuple(warnings),
        notes=tuple(notes),
    )


def accel_bandwidth(accel: AcceleratorSpec) -> float:
    """Memory bandwidth in B/s (Hopper's when the table has none)."""
    return (accel.memory_bandwidth_gbps or HOPPER_ANCHOR.bandwidth_gbps) * 1e9


# ------------------------------------------------------------------------------- fixed tasks

# The figure a fixed task's time scales by (docs/time-model.md, "Fixed tasks"), and the one that
# bounds its range: a job runs as fast as its tightest roofline allows (Williams, Waterman and
# Patterson 2009, "Roofline", CACM 52(4)): min(peak, intensity × bandwidth), so its speed-up from
# one card to another lies between the ratio of their peaks and the ratio of their bandwidths,
# whatever its arithmetic intensity.
SCALE_FIGURES = {
    "fp32": "fp32_tflops",
    "fp64": "fp64_tflops",
    "bf16": "bf16_tflops",
    "bandwidth": "memory_bandwidth_gbps",
}
SCALE_BOUND_BY = {
    "fp32": "bandwidth",
    "fp64": "bandwidth",
    "bf16": "bandwidth",
    "bandwidth": "fp32",
}
SCALE_NAMES = {
    "fp32": Code.FIGURE_FP32,
    "fp64": Code.FIGURE_FP64,
    "bf16": Code.FIGURE_BF16,
    "bandwidth": Code.FIGURE_BANDWIDTH,
}


@dataclass(frozen=True)
class FixedTimeEstimate:
    """Hours of a fixed task's frames on one card, expected and the range (low: fast end)."""

    hours: float
    low_hours: float
    high_hours: float
    frames: float
    seconds_per_frame: float  # expected here, one GPU
    speedup: float  # against the reference card, by the stated figure
    scale_by: str
    gpus: int = 1
    scaling_efficiency: float = 1.0  # frames are independent: every GPU renders its own
    warnings: tuple[Message, ...] = ()
    notes: tuple[Message, ...] = ()


def scale_figure(accel: AcceleratorSpec, scale_by: str) -> float | None:
    value = tensor_tflops(accel) if scale_by == "bf16" else getattr(accel, SCALE_FIGURES[scale_by])
    return float(value) if value else None


def fixed_task_time(
    task: Task,
    accel: AcceleratorSpec,
    reference: AcceleratorSpec,
    gpus: int | None = None,
    *,
    field: str = "scale_by",
) -> FixedTimeEstimate:
    """frames × seconds_per_frame on `reference`, scaled to `accel` by the task's `scale_by`
    figure; `gpus` (default the task's) render separate frames. The range takes the other
    roofline (bandwidth, or FP32 for a bandwidth-scaled task) as the other end."""
    if task.frames is None or task.seconds_per_frame is None:
        raise ValueError("fixed_task_time needs frames and seconds_per_frame")
    gpus = max(1, gpus or task.gpus)
    here, there = scale_figure(accel, task.scale_by), scale_figure(reference, task.scale_by)
    if here is None or there is None:
        card = accel if here is None else reference
        raise InvalidWorkload(
            Code.FIXED_NO_FIGURE,
            field if here is None else "reference_accelerator",
            accelerator=card.name,
            figure=msg(SCALE_NAMES[task.scale_by]),
        )
    speedup = here / there
    work = task.frames * task.seconds_per_frame / gpus  # reference-seconds per GPU
    expected = work / speedup
    notes = [
        msg(
            Code.TIME_NOTE_FIXED,
            frames=Quantity(task.frames, Unit.COUNT, 0),
            seconds=Quantity(task.seconds_per_frame, Unit.COUNT, 2),
            reference=reference.name,
            reference_figure=Quantity(there, Unit.COUNT, 2),
            figure=Quantity(here, Unit.COUNT, 2),
            scale_by=msg(SCALE_NAMES[task.scale_by]),
            gpus=gpus,
        )
    ]
    fast = slow = speedup
    other = SCALE_BOUND_BY[task.scale_by]
    here_other, there_other = scale_figure(accel, other), scale_figure(reference, other)
    if here_other and there_other:
        bound = here_other / there_other
        fast, slow = max(speedup, bound), min(speedup, bound)
        notes.append(
            msg(
                Code.TIME_NOTE_FIXED_RANGE,
                scale_by=msg(SCALE_NAMES[task.scale_by]),
                other=msg(SCALE_NAMES[other]),
                fast=Quantity(task.seconds_per_frame / fast, Unit.COUNT, 2),
                slow=Quantity(task.seconds_per_frame / slow, Unit.COUNT, 2),
            )
        )
    return FixedTimeEstimate(
        hours=expected / 3600,
        low_hours=work / fast / 3600,
        high_hours=work / slow / 3600,
        frames=task.frames,
        seconds_per_frame=task.seconds_per_frame / speedup,
        speedup=speedup,
        scale_by=task.scale_by,
        gpus=gpus,
        notes=tuple(notes),
    )
