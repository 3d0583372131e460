"""A Llama-shaped decoder in plain PyTorch, built from a config with random weights.

Nothing is downloaded and `transformers` is not needed: the modules follow Meta's reference
implementation (meta-llama/llama, `llama/model.py`: RMSNorm, rotary embeddings, SwiGLU feed-forward,
untied output head) and, for the attention kernels, the two paths of Hugging Face's Llama
(`transformers/models/llama/modeling_llama.py`): `eager_attention_forward`, which materialises
softmax(QKᵀ/√d)V with the softmax taken in fp32, and the path through
`torch.nn.functional.scaled_dot_product_attention`
(https://pytorch.org/docs/stable/generated/torch.nn.functional.scaled_dot_product_attention.html).

Shapes and sources:
- RMSNorm: Zhang & Sennrich 2019, "Root Mean Square Layer Normalization", arXiv:1910.07467; the
  norm is computed in fp32 and cast back, as the reference code does (`self._norm(x.float())`).
- Rotary position embeddings: Su et al. 2021, "RoFormer", arXiv:2104.09864 (rotate-half form).
- Grouped-query attention: Ainslie et al. 2023, "GQA", arXiv:2305.13245; `kv_heads` key/value
  heads shared by `heads // kv_heads` query heads each.
- SwiGLU: Shazeer 2020, "GLU Variants Improve Transformer", arXiv:2002.05202:
  down(silu(gate(x)) · up(x)).
- LoRA: Hu et al. 2021, arXiv:2106.09685: W x + (α/r)·B A x with A (r × d_in) and B (d_out × r),
  B initialised to zero; no adapter dropout. Targets "attention" (q, k, v, o) or "all_linear"
  (q, k, v, o, gate, up, down: PEFT's `target_modules="all-linear"`, which leaves the output head
  out).
- Activation checkpointing "full": each decoder layer runs under `torch.utils.checkpoint.checkpoint`
  with `use_reentrant=False` (https://pytorch.org/docs/stable/checkpoint.html), so only the layer
  inputs are kept and the layer is recomputed in the backward pass.
- The loss upcasts the logits to fp32 before cross-entropy (Hugging Face's `ForCausalLMLoss` calls
  `logits.float()` too), as a plain PyTorch loop does: `F.cross_entropy` keeps the fp32
  log-softmax output, and nothing keeps the 16-bit logits or their fp32 copy past the forward, so
  the loss peaks at 12 B per token and vocabulary entry in the backward pass (the estimator's
  `framework: pytorch`; Hugging Face's own training loop holds more).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

ATTENTION_IMPLEMENTATIONS = ("eager", "sdpa")
LORA_TARGETS = {
    "attention": ("q_proj", "k_proj", "v_proj", "o_proj"),
    "all_linear": ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"),
}


@dataclass(frozen=True)
class LlamaConfig:
    """The shape fields of a Llama `config.json`."""

    name: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    intermediate: int
    vocab: int
    rope_theta: float = 500_000.0
    norm_eps: float = 1e-5

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads

    def params(self) -> int:
        """Parameter count of the untied model: embedding, layers, final norm, output head."""
        h, kv = self.hidden, self.kv_heads * self.head_dim
        attention = h * h * 2 + h * kv * 2  # q, o and k, v
        mlp = 3 * h * self.intermediate
        norms = 2 * h
        return 2 * self.vocab * h + self.layers * (attention + mlp + norms) + h


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x.float()
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * h.to(x.dtype)


class LoRALinear(nn.Module):
    """A frozen linear layer plus a trainable low-rank update (α/r)·B A x."""

    def __init__(self, base: nn.Linear, rank: int, alpha: float) -> None:
        super().__init__()
        self.base = base
        self.base.weight.requires_grad_(False)
        weight = base.weight
        self.lora_a = nn.Parameter(
            torch.empty(rank, base.in_features, dtype=weight.dtype, device=weight.device)
        )
        self.lora_b = nn.Parameter(
            torch.zeros(base.out_features, rank, dtype=weight.dtype, device=weight.device)
        )
        nn.init.kaiming_uniform_(self.lora_a, a=math.sqrt(5))
        self.scale = alpha / rank

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.base(x) + F.linear(F.linear(x, self.lora_a), self.lora_b) * self.scale


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rope_tables(
    config: LlamaConfig, seq_len: int, dtype: torch.dtype
) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin of the rotary angles, (seq_len, head_dim), as RoFormer defines them."""
    dim = config.head_dim
    inv_freq = 1.0 / (config.rope_theta ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
    angles = torch.outer(torch.arange(seq_len, dtype=torch.float32), inv_freq)
    angles = torch.cat((angles, angles), dim=-1)
    return angles.cos().to(dtype), angles.sin().to(dtype)


def repeat_kv(x: torch.Tensor, groups: int) -> torch.Tensor:
    """(b, kv_heads, s, d) -> (b, kv_heads·groups, s, d), as the eager GQA path copies them."""
    if groups == 1:
        return x
    b, kv, s, d = x.shape
    return x[:, :, None, :, :].expand(b, kv, groups, s, d).reshape(b, kv * groups, s, d)


class Attention(nn.Module):
    def __init__(self, config: LlamaConfig, implementation: str) -> None:
        super().__init__()
        if implementation not in ATTENTION_IMPLEMENTATIONS:
            raise ValueError(f"attention must be one of {ATTENTION_IMPLEMENTATIONS}")
        self.implementation = implementation
        self.heads, self.kv_heads, self.head_dim = config.heads, config.kv_heads, config.head_dim
        h, kv = config.hidden, config.kv_heads * config.head_dim
        self.q_proj = nn.Linear(h, h, bias=False)
        self.k_proj = nn.Linear(h, kv, bias=False)
        self.v_proj = nn.Linear(h, kv, bias=False)
        self.o_proj = nn.Linear(h, h, bias=False)

    def forward(
        self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, mask: torch.Tensor | None
    ) -> torch.Tensor:
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        if self.implementation == "sdpa":
            # Fused kernel (FlashAttention-style on CPU): no s×s score matrix is stored; GQA
            # without copying K and V (enable_gqa).
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        else:
            groups = self.heads // self.kv_heads
            k, v = repeat_kv(k, groups), repeat_kv(v, groups)
            scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.head_dim)
            assert mask is not None
            scores = scores + mask
            weights = F.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype)
            out = torch.matmul(weights, v)
        out = out.transpose(1, 2).reshape(b, s, self.heads * self.head_dim)
        return self.o_proj(out)


class MLP(nn.Module):
    def __init__(self, config: LlamaConfig) -> None:
        super().__init__()
        self.gate_proj = nn.Linear(config.hidden, config.intermediate, bias=False)
        self.up_proj = nn.Linear(config.hidden, config.intermediate, bias=False)
        self.down_proj = nn.Linear(config.intermediate, config.hidden, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self, config: LlamaConfig, attention: str) -> None:
        super().__init__()
        self.input_norm = RMSNorm(config.hidden, config.norm_eps)
        self.self_attn = Attention(config, attention)
        self.post_attention_norm = RMSNorm(config.hidden, config.norm_eps)
        self.mlp = MLP(config)

    def forward(
        self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, mask: torch.Tensor | None
    ) -> torch.Tensor:
        x = x + self.self_attn(self.input_norm(x), cos, sin, mask)
        return x + self.mlp(self.post_attention_norm(x))


class Llama(nn.Module):
    def __init__(
        self, config: LlamaConfig, attention: str = "sdpa", checkpointing: str = "none"
    ) -> None:
        super().__init__()
        if checkpointing not in ("none", "full"):
            raise ValueError("checkpointing must be 'none' or 'full'")
        self.config, self.attention, self.checkpointing = config, attention, checkpointing
        self.embed_tokens = nn.Embedding(config.vocab, config.hidden)
        self.layers = nn.ModuleList(DecoderLayer(config, attention) for _ in range(config.layers))
        self.norm = RMSNorm(config.hidden, config.norm_eps)
        self.lm_head = nn.Linear(config.hidden, config.vocab, bias=False)

    def forward(self, tokens: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Mean next-token cross-entropy of `tokens` (b, s) against `targets` (b, s)."""
        s = tokens.shape[1]
        x = self.embed_tokens(tokens)
        cos, sin = rope_tables(self.config, s, x.dtype)
        mask = None
        if self.attention == "eager":  # the additive causal mask, made once per forward
            mask = torch.full((s, s), float("-inf"), dtype=x.dtype).triu(1)
        for layer in self.layers:
            if self.checkpointing == "full":
                x = checkpoint(layer, x, cos, sin, mask, use_reentrant=False)
            else:
                x = layer(x, cos, sin, mask)
        logits = self.lm_head(self.norm(x))
        return F.cross_entropy(logits.float().view(-1, self.config.vocab), targets.view(-1))


def add_lora(model: Llama, rank: int, alpha: float, targets: str) -> int:
    """Freeze `model` and wrap the `targets` linear layers with LoRA; returns trainable params."""
    for p in model.parameters():
        p.requires_grad_(False)
    names = LORA_TARGETS[targets]
    for layer in model.layers:
        for parent in (layer.self_attn, layer.mlp):
            for name in names:
                base = getattr(parent, name, None)
                if isinstance(base, nn.Linear):
                    setattr(parent, name, LoRALinear(base, rank, alpha))
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


class MasterWeightAdamW(torch.optim.Optimizer):
    """AdamW over 16-bit model parameters with an fp32 master copy and fp32 moments.

    Mixed-precision training as Micikevicius et al. 2018 ("Mixed Precision Training",
    arXiv:1710.03740) and the ZeRO paper (arXiv:1910.02054, section 3: 2 + 2 + 12 bytes per
    parameter) describe it: the model holds 16-bit weights and 16-bit gradients, the optimizer an
    fp32 master copy, momentum and variance. The update is Loshchilov & Hutter's AdamW
    (arXiv:1711.05101), as `torch.optim.AdamW` computes it; the gradient is upcast one parameter
    at a time, so the fp32 gradient copy is never held for the whole model.
    """

    def __init__(
        self,
        params: list[nn.Parameter],
        lr: float = 1e-4,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.01,
    ) -> None:
        super().__init__(
            params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay}
        )

    @torch.no_grad()
    def step(self, closure: None = None) -> None:  # type: ignore[override]
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["master"] = p.detach().float()
                    state["exp_avg"] = torch.zeros_like(state["master"])
                    state["exp_avg_sq"] = torch.zeros_like(state["master"])
                state["step"] += 1
                master, exp_avg, exp_avg_sq = state["master"], state["exp_avg"], state["exp_avg_sq"]
                grad = p.grad.float()
                master.mul_(1 - group["lr"] * group["weight_decay"])
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                del grad
                bias1 = 1 - beta1 ** state["step"]
                bias2 = 1 - beta2 ** state["step"]
                denom = (exp_avg_sq.sqrt() / math.sqrt(bias2)).add_(group["eps"])
                master.addcdiv_(exp_avg, denom, value=-group["lr"] / bias1)
                del denom
                p.copy_(master)
