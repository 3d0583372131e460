"""The Chinese advisor page speaks Chinese: no English sentence in what a reader sees.

The page is fetched with a Chinese browser for the blank form, for each preset's link (as the page
builds it, with the names it gives the tasks), for each preset with stale prices left out (the
article's prices are from May 2026: most offerings drop out, and for some presets nothing fits)
and for a scenario that nothing fits (a budget of 1 CNY). Its visible text (no <script>, <style>
or <template>, no tags, no attribute values but what an input box shows) may hold Latin script
only where Chinese technical writing keeps it:

- names: platforms, accelerators (with their aliases and MIG profiles) and model presets, read
  from the catalogue and the engine's vocabulary, plus the few in NAMES;
- units and technical terms: TECHNICAL_TERMS;
- formula symbols and identifiers: single letters (s·b·h·L), products of them (s/h), anything
  with a digit (A100, zero3, 1g.10gb), directly after a digit (5as/h), code identifiers
  (vram_gib, d_in) and addresses (autodl.com/home);
- text marked as another language (the language switcher's "English", lang="en").

Every other Latin word is reported with the sentence it stands in, grouped by the first case that
shows it.
"""

from __future__ import annotations

import functools
import re
import warnings
from html.parser import HTMLParser
from urllib.parse import parse_qsl, urlsplit

import pytest
import time_machine
from django.urls import reverse
from django.utils.deprecation import RemovedInDjango60Warning

from advisor import presets
from advisor.engine.hardware import load_accelerators
from advisor.engine.model_catalogue import MODELS
from advisor.engine.presets import MODEL_PRESETS, PRESET_INFO
from platforms.models import Accelerator, AcceleratorAlias, MigProfile, Offering, Platform
from platforms.renting import COUNTRY_OF_REGION, MARKET_COUNTRY
from tests.conftest import NOW

# Units and technical terms that Chinese technical writing keeps in Latin script, as the Chinese
# catalogue does (显存 GiB, BF16 精度, LoRA 微调, KV 缓存, ...). Compared as written.
TECHNICAL_TERMS = {
    # Units and currencies.
    "B", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB", "GB/s", "Gb/s", "Gbps", "TFLOPS",
    "W", "bit",
    "h", "s", "ms", "tokens", "token", "tokens/s", "tok/s", "B/token", "CNY", "USD",
    # Hardware and interconnects.
    "GPU", "GPUs", "CPU", "vCPU", "vCPUs", "RAM", "VRAM", "MIG", "NVLink", "NVSwitch", "PCIe",
    "SXM", "sGPU", "RTX", "VM", "CUDA", "NCCL", "EC", "TCP", "RDMA", "InfiniBand", "NIC",
    # Number formats, as labels and as the scenario's values.
    "BF16", "FP16", "FP32", "FP8", "INT8", "INT4", "NF4", "TF32",
    "bf16", "fp16", "fp32", "fp8", "int8", "int4", "nf4",
    # Training and serving: methods, optimizers, model parts.
    "LoRA", "QLoRA", "FSDP", "ZeRO", "ZeRO-Offload", "ZeRO-Infinity", "DeepSpeed", "AdamW",
    "adamw", "SGD", "sgd", "KV", "MFU", "LLM", "LM", "MoE", "MLA", "logits", "all-reduce",
    "busbw", "FlashAttention", "SwiGLU", "LLaMA", "Pareto", "OOM",
    # Workloads, formats and interfaces.
    "CFD", "SDXL", "CSV", "JSON", "API", "Jupyter", "POST", "curl",
}  # fmt: skip
# Names the catalogue's texts cite that are not platforms, accelerators or model presets.
NAMES = {
    "NVIDIA",
    "HGX",  # NVIDIA's 8-GPU board ("NVIDIA HGX H100 (8 GPUs)", CoreWeave's and Nebius' names)
    "GitHub",
    "CFETS",  # the China Foreign Exchange Trade System, source of the exchange rates
    "Korthikanti",  # the activation-memory formula's author (Korthikanti et al., 2022)
    "PrivShield",  # a project named in a source title (matpool-runbook)
    # Trainers, kernels and inference servers the memory and serving models name.
    "Hugging", "Face", "Trainer", "TRL", "PEFT", "LLaMA-Factory", "Liger", "torchtune", "Unsloth",
    "CCE", "FusedLinearCrossEntropy", "CEWithChunkedOutputLoss", "vLLM", "SGLang", "SDPA",
    "RMSNorm", "MLP", "Megatron-LM", "TensorRT-LLM", "generate", "eager", "Eager", "PyTorch",
    # How a mixture of experts runs its experts (advisor/engine/timing.py): trainers and kernels.
    "Transformers", "Megatron", "GEMM",
    # Hugging Face, as the serving engine's choice abbreviates it.
    "HF",
    # Diffusion pipelines, their parts and trainers, and what rendering needs of a card.
    "SD", "UNet", "MMDiT", "VAE", "CLIP", "OpenCLIP", "T5-XXL", "diffusers", "kohya",
    "SimpleTuner", "bitsandbytes", "cuDNN", "GeForce", "RT", "OptiX", "NVENC", "FP64",
    # Compute stacks, their vendors, ports and kernels (advisor/engine/stacks.py), a CPU maker.
    "ROCm", "CANN", "MUSA", "BIRENSUPA", "HIP", "OpenCL", "Ascend", "NPU", "AMD", "Intel",
    "vLLM-Ascend", "vLLM-MUSA", "MATE", "musify", "ModelSlim", "compressed-tensors",
    "FlashInfer", "xFormers", "flash-attn", "flash-attn-npu", "ms-swift", "Marlin", "AWQ", "GPTQ",
    "multi-backend-refactor",
    # vLLM's flag for FP16 (--dtype half), and a float's not-a-number.
    "dtype", "half", "NaN",
}  # fmt: skip
LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:[./'’+\-][A-Za-z0-9_]+)*")
# Addresses and file names: autodl.com/home, app.hyper.ai/pricing, api-notes.md.
ADDRESS = re.compile(r"[A-Za-z][\w\-]*(?:\.[A-Za-z][\w\-]*)+(?:/[\w\-./]*)?")
# A <pre> holds code (the results' API request: JSON and a curl command), not sentences.
SKIPPED = {"script", "style", "template", "pre"}
BLOCKS = {
    "address", "article", "button", "caption", "code", "dd", "details", "div", "dl", "dt",
    "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
    "header", "label", "legend", "li", "main", "nav", "ol", "option", "p", "section", "select",
    "summary", "table", "tbody", "td", "tfoot", "th", "thead", "title", "tr", "ul", "br",
    "small", "textarea", "input",
}  # fmt: skip
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
SHOWN_INPUTS = {"text", "search", "number", ""}


class VisibleText(HTMLParser):
    """The text a reader sees, one string per block (paragraph, cell, list item, label, ...).

    Text inside an element marked with a language other than Chinese (lang="en") is left out:
    it is in that language on purpose."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self._buffer: list[str] = []
        self._hidden: list[str] = []  # open tags whose content is not checked

    def _flush(self) -> None:
        text = " ".join("".join(self._buffer).split())
        if text:
            self.blocks.append(text)
        self._buffer = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        lang = (attrs.get("lang") or "").lower()
        if tag in BLOCKS:
            self._flush()
        if self._hidden:
            if tag not in VOID:
                self._hidden.append(tag)
            return
        if tag in SKIPPED or (lang and not lang.startswith("zh") and tag not in VOID):
            self._hidden.append(tag)
            return
        shown = tag == "input" and (attrs.get("type") or "").lower() in SHOWN_INPUTS
        if shown and attrs.get("value"):
            self.blocks.append(attrs["value"])

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID and self._hidden and self._hidden[-1] == tag:
            self._hidden.pop()

    def handle_endtag(self, tag):
        if tag in BLOCKS:
            self._flush()
        if self._hidden and tag in self._hidden:
            while self._hidden.pop() != tag:
                pass

    def handle_data(self, data):
        if not self._hidden:
            self._buffer.append(data)

    def close(self):
        super().close()
        self._flush()


def visible_blocks(html: str) -> list[str]:
    parser = VisibleText()
    parser.feed(html)
    parser.close()
    return parser.blocks


def catalogue_names() -> list[str]:
    """Names from the catalogue and the engine's vocabulary, longest first."""
    names: set[str] = set(NAMES)
    for platform in Platform.objects.all():
        names.update({platform.name, platform.name_en, str(platform)})
    names.update(Accelerator.objects.values_list("name", flat=True))
    names.update(Accelerator.objects.values_list("vendor", flat=True))
    names.update(AcceleratorAlias.objects.values_list("alias", flat=True))
    # Every alias as the table writes it: the database keeps one spelling per normalised form.
    names.update(alias for spec in load_accelerators().values() for alias in spec.aliases)
    names.update(MigProfile.objects.values_list("name", flat=True))
    # Regions as the catalogs write them: identifiers (Azure's eastus), not words.
    names.update(Offering.objects.values_list("region", flat=True))
    # Country codes (ISO 3166-1 alpha-2) the renters' filters take: identifiers, not words.
    names.update(c for regions in COUNTRY_OF_REGION.values() for c in regions.values())
    names.update(MARKET_COUNTRY.values())
    names.update(MODEL_PRESETS)
    names.update(info.name for info in PRESET_INFO.values())
    # The model catalogue's models and families, listed in the form by their names.
    for model in MODELS.models.values():
        names.update({model.id, model.name, model.family, model.group})
    return sorted((n for n in names if n), key=len, reverse=True)


def is_symbol(word: str, before: str) -> bool:
    """A formula symbol, unit, identifier or address rather than a word."""
    pieces = re.split(r"[./'’+\-]", word)
    return (
        len(word) == 1
        or any(c.isdigit() for c in word)
        or before.isdigit()
        or "_" in word
        or all(len(p) <= 1 for p in pieces)
        or ADDRESS.fullmatch(word) is not None
    )


@functools.lru_cache(maxsize=4)
def _names_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    # Longest first, and never inside a longer word: the alias "T4" is not the "T4" of "INT4".
    alternatives = "|".join(re.escape(name) for name in names)
    return re.compile(rf"(?<![A-Za-z0-9])(?:{alternatives})(?![A-Za-z0-9])")


def english_words(block: str, names: list[str]) -> list[str]:
    block = _names_pattern(tuple(names)).sub(" ", block)
    words = []
    for match in LATIN_WORD.finditer(block):
        word = match.group()
        before = block[match.start() - 1] if match.start() else ""
        if word not in TECHNICAL_TERMS and not is_symbol(word, before):
            words.append(word)
    return words


@pytest.fixture
def seeded(db):
    from platforms.seed import load_seed

    load_seed()
    with time_machine.travel(NOW, tick=False):
        yield


def zh_get(client, query) -> str:
    response = client.get(reverse("advisor:index"), query, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.status_code == 200
    return response.content.decode()


def preset_links(html: str) -> dict[str, list[tuple[str, str]]]:
    """The query of each preset link on the page, as the page writes it."""
    return {
        slug: parse_qsl(urlsplit(href.replace("&amp;", "&")).query, keep_blank_values=True)
        for href, slug in re.findall(r'<a href="([^"]+)" data-preset="([^"]+)"', html)
    }


def chinese_pages(client) -> dict[str, str]:
    """Every case the test reads: {case: page}."""
    pages = {"blank form": zh_get(client, {})}
    links = preset_links(pages["blank form"])
    assert set(links) == set(presets.PRESETS)
    for slug, query in links.items():
        pages[f"preset {slug}"] = zh_get(client, query)
        fresh_only = [*query, ("fresh_only", "on")]
        pages[f"preset {slug}, stale prices left out"] = zh_get(client, fresh_only)
    query = [(k, v) for k, v in links["training-inference"] if k != "budget_per_month"]
    pages["nothing fits: a budget of 1 CNY"] = zh_get(client, [*query, ("budget_per_month", "1")])
    return pages


def test_the_preset_links_name_their_tasks_in_chinese(client, seeded):
    links = preset_links(zh_get(client, {}))
    names = {v for k, v in links["training-inference"] if k.endswith("-name")}
    assert names == {"日间推理", "夜间微调"}
    english = preset_links(client.get(reverse("advisor:index")).content.decode())
    assert {v for k, v in english["training-inference"] if k.endswith("-name")} == {
        "daytime inference",
        "night fine-tune",
    }
    assert presets.PRESETS["training-inference"].scenario["tasks"][0]["name"] == (
        "daytime inference"
    )


def test_the_nothing_fits_cases_say_so(client, seeded):
    pages = chinese_pages(client)
    assert "目录中没有能运行该场景的实例规格" in pages["nothing fits: a budget of 1 CNY"]
    assert "目录中没有能运行该场景的实例规格" in pages["preset medical-70b, stale prices left out"]


def test_the_chinese_advisor_pages_show_no_english_sentence(client, seeded):
    names = catalogue_names()
    offending: dict[str, list[tuple[str, list[str]]]] = {}
    for case, html in chinese_pages(client).items():
        assert '<html lang="zh-hans">' in html, case
        for block in visible_blocks(html):
            words = english_words(block, names)
            if words:
                offending.setdefault(case, []).append((block, words))
    report, seen = [], set()
    for case, blocks in offending.items():
        fresh = [(block, words) for block, words in blocks if block not in seen]
        seen.update(block for block, _ in blocks)
        if fresh:
            report.append(f"== {case}")
            report.extend(f"  [{', '.join(dict.fromkeys(w))}]  {b}" for b, w in fresh)
    print("\n".join(report))
    assert not seen, (
        f"{len(seen)} sentences with English words on the Chinese advisor page "
        "(printed above with the words, by the first case that shows them)"
    )


def test_the_platform_page_shows_the_catalogue_in_the_pages_language(client, seeded):
    url = reverse("platforms:detail", args=["autodl"])
    zh = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "只有 /root/autodl-fs 在释放后仍保留" in zh  # the data-retention policy
    assert "按开机时长计费" in zh  # the idle policy
    assert "算力市场：价格因主机和地区而异。" in zh  # the notes
    assert "付费数据盘扩容，会员参考价" in zh  # a storage price's note
    assert "AutoDL 挂牌价（2026-10-01 于 autodl.com/home 查询）" in zh  # a source's title
    assert "按秒计量、按小时结算；包日/包周/包月" in zh  # a fact's Chinese value
    assert "Data kept after shutdown" not in zh and "listed prices as queried" not in zh
    en = client.get(url).content.decode()
    assert "Data kept after shutdown" in en and "listed prices as queried" in en
    assert "按开机时长计费" not in en

    zh = client.get(
        reverse("platforms:detail", args=["zhixingyun"]), HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    assert "RTX 4090 48G × 8 裸金属" in zh and "bare metal" not in zh  # offering names


def test_the_comparison_page_shows_facts_and_sources_in_the_pages_language(client, seeded):
    zh = client.get(reverse("platforms:comparison"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    body = zh.content.decode()
    assert "裸金属+云容器+云主机三重" in body and "Bare metal + cloud container" not in body
    assert "智星云谈竞品" in body and "on competitors" not in body
    en = client.get(reverse("platforms:comparison")).content.decode()
    assert "Bare metal + cloud container + cloud VM" in en and "on competitors" in en


def test_the_admin_edits_the_chinese_texts(admin_client, seeded):
    from platforms.models import Offering, Platform, Source

    offering = Offering.objects.get(external_id="zxy-4090-48g-8x-bm")
    pages = {
        "name_zh": reverse("admin:platforms_offering_change", args=[offering.pk]),
        "data_retention_zh": reverse(
            "admin:platforms_platform_change", args=[Platform.objects.get(slug="autodl").pk]
        ),
        "title_zh": reverse("admin:platforms_source_change", args=[Source.objects.first().pk]),
    }
    for field, url in pages.items():
        with warnings.catch_warnings():
            # The platform and source forms have a URLField: Django 5.2 warns of its default scheme.
            warnings.simplefilter("ignore", RemovedInDjango60Warning)
            response = admin_client.get(url)
        assert response.status_code == 200
        assert f'name="{field}"' in response.content.decode()
