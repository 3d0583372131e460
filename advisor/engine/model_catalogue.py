"""The model catalogue: every model a scenario can name, and the one place `model` is resolved.

The catalogue is the presets (`presets.py`, kept under their ids) and the sourced architectures of
`fixtures/models.json` (each with its source, date and grade; docs/memory-model.md, "A model by
name or by its config.json"). An entry of the data is read as the config.json it was copied from:
its fields go through `hf_config.shape_of_config`, under its family's transformers `model_type`,
and the parameters are counted the way a pasted config.json's are, so a model picked by name and
its config.json give the same architecture. Where its layers are not the kind the counter reads
(the data's `catalogue.params` is "published"), or its shape is incomplete, the published total
(and active) parameters are used with whatever shape is given. An entry with neither is left out
of the pickable set, with the reason (`Code.EXCLUDED_*`).

A model is found by its id, its name or its Hugging Face repository, in any case; an entry that is
the same model as a preset (`catalogue.preset`) resolves to the preset.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from advisor.engine.errors import InvalidWorkload
from advisor.engine.hf_config import arch_of, shape_of_config
from advisor.engine.messages import Code, msg
from advisor.engine.presets import MODEL_PRESETS, PRESET_INFO
from advisor.engine.types import ModelArch

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "fixtures" / "models.json"

Basis = Literal["preset", "counted", "published"]

# The data's field -> the config.json field it was copied from.
CONFIG_FIELDS = {
    "hidden_size": "hidden_size",
    "layers": "num_hidden_layers",
    "num_attention_heads": "num_attention_heads",
    "num_kv_heads": "num_key_value_heads",
    "head_dim": "head_dim",
    "intermediate_size": "intermediate_size",
    "vocab_size": "vocab_size",
    "tie_embeddings": "tie_word_embeddings",
    "kv_lora_rank": "kv_lora_rank",
    "q_lora_rank": "q_lora_rank",
    "qk_rope_head_dim": "qk_rope_head_dim",
    "qk_nope_head_dim": "qk_nope_head_dim",
    "v_head_dim": "v_head_dim",
}
MOE_FIELDS = {
    "num_experts": "num_experts",
    "experts_per_token": "num_experts_per_tok",
    "moe_intermediate_size": "moe_intermediate_size",
    "shared_experts": "n_shared_experts",
    "shared_expert_intermediate_size": "shared_expert_intermediate_size",
    "first_k_dense_layers": "first_k_dense_replace",
}
EXCLUSIONS = {
    "no_count": Code.EXCLUDED_NO_COUNT,
    "shape_not_counted": Code.EXCLUDED_SHAPE_NOT_COUNTED,
    "tie_unknown": Code.EXCLUDED_TIE_UNKNOWN,
}


@dataclass(frozen=True)
class CatalogueModel:
    """One model of the catalogue: what the form lists and where its figures come from."""

    id: str
    name: str
    family: str  # the family's name ("Qwen3")
    group: str  # the name the form lists it under
    kind: str  # llm-dense, llm-moe, vlm, embedding, reranker, speech, diffusion, encoder
    hf_repo: str
    source: str
    grade: str  # P: the model's own config or card; S: a third-party copy; U: unverified
    arch: ModelArch | None  # None: left out, `excluded` says why
    basis: Basis | None = None
    excluded: Code | None = None


@dataclass(frozen=True)
class Catalogue:
    models: Mapping[str, CatalogueModel]  # by id, the left-out ones included
    index: Mapping[str, str]  # lower-case id, name, Hugging Face repo or alias -> id

    @property
    def pickable(self) -> tuple[CatalogueModel, ...]:
        return tuple(m for m in self.models.values() if m.arch is not None)

    def find(self, name: str) -> CatalogueModel | None:
        key = self.index.get(name.strip().lower())
        return None if key is None else self.models[key]

    def resolve(self, name: str, path: str) -> tuple[str, ModelArch]:
        """(the model's id, its architecture), or InvalidWorkload at `path`."""
        model = self.find(name)
        if model is None:
            close = difflib.get_close_matches(
                name.strip().lower(), [m.id for m in self.pickable], n=3
            )
            if close:
                raise InvalidWorkload(
                    Code.UNKNOWN_MODEL_DID_YOU_MEAN, path, name=name, suggestions=tuple(close)
                )
            raise InvalidWorkload(Code.UNKNOWN_MODEL, path, name=name)
        if model.arch is None:
            assert model.excluded is not None
            reason = msg(model.excluded)
            raise InvalidWorkload(Code.MODEL_NOT_ESTIMABLE, path, model=model.name, reason=reason)
        return model.id, model.arch


def _config_of(entry: Mapping[str, Any], model_type: str | None) -> dict[str, Any]:
    """The config.json fields an entry of the data was copied from."""
    config: dict[str, Any] = {"model_type": model_type or ""}
    for field, key in CONFIG_FIELDS.items():
        if entry.get(field) is not None:
            config[key] = entry[field]
    for field, key in MOE_FIELDS.items():
        if (entry.get("moe") or {}).get(field) is not None:
            config[key] = entry["moe"][field]
    if config.get("num_key_value_heads") is None and entry.get("attention") == "mqa":
        config["num_key_value_heads"] = 1  # one K/V head, as the data's attention says
    config.update(entry.get("catalogue", {}).get("config", {}))
    return config


def _published(entry: Mapping[str, Any], config: Mapping[str, Any]) -> ModelArch | None:
    """The published counts with the shape the entry gives, else None."""
    total = entry.get("params_computed") or entry.get("params_total")
    if not total:
        return None
    mla = bool(entry.get("kv_lora_rank"))
    dims = {
        "layers": config.get("num_hidden_layers"),
        "hidden": config.get("hidden_size"),
        "heads": config.get("num_attention_heads"),
        "kv_heads": None if mla else config.get("num_key_value_heads"),
        "head_dim": None if mla else config.get("head_dim"),
        "intermediate": config.get("intermediate_size"),
        "vocab": config.get("vocab_size"),
        "mla_kv_lora_rank": config.get("kv_lora_rank"),
        "mla_rope_head_dim": config.get("qk_rope_head_dim") if mla else None,
    }
    active = entry.get("params_active")
    given: dict[str, Any] = {k: int(v) for k, v in dims.items() if v is not None}
    return ModelArch(params=round(total), active_params=round(active) if active else None, **given)


def _arch(entry: Mapping[str, Any], model_type: str | None) -> tuple[ModelArch, Basis] | None:
    notes = entry.get("catalogue", {})
    config = _config_of(entry, model_type)
    if notes.get("params") != "published":
        try:
            return arch_of(shape_of_config(config)), "counted"
        except InvalidWorkload:
            pass  # an incomplete shape: the published counts, if any
    published = _published(entry, config)
    return None if published is None else (published, "published")


def catalogue_from_dict(data: Mapping[str, Any]) -> Catalogue:
    """The catalogue from data shaped as fixtures/models.json, with the presets."""
    families = data["families"]

    def names(family: str) -> tuple[str, str]:
        info = families[family]
        return info["name"], families[info.get("group", family)]["name"]

    models: dict[str, CatalogueModel] = {}
    index: dict[str, str] = {}
    for key, arch in MODEL_PRESETS.items():
        entry: Mapping[str, Any] = next(
            (e for e in data["models"] if e.get("catalogue", {}).get("preset") == key), {}
        )
        family = entry.get("family") or data["presets"][key]
        family_name, group = names(family)
        models[key] = CatalogueModel(
            id=key,
            name=PRESET_INFO[key].name,
            family=family_name,
            group=group,
            kind=entry.get("kind") or ("diffusion" if arch.family == "diffusion" else "llm-dense"),
            hf_repo=entry.get("hf_repo", ""),
            source=PRESET_INFO[key].source,
            grade=entry.get("grade", "S"),
            arch=arch,
            basis="preset",
        )
        aliases = [entry.get("id"), entry.get("name"), entry.get("hf_repo")] if entry else []
        for alias in [key, PRESET_INFO[key].name, *aliases]:
            if alias:
                index.setdefault(alias.lower(), key)
    for entry in data["models"]:
        notes = entry.get("catalogue", {})
        if notes.get("preset"):
            continue
        family_name, group = names(entry["family"])
        excluded = EXCLUSIONS.get(notes.get("excluded", ""))
        found = None if excluded else _arch(entry, families[entry["family"]]["model_type"])
        if found is None and excluded is None:
            excluded = Code.EXCLUDED_NO_COUNT
        models[entry["id"]] = CatalogueModel(
            id=entry["id"],
            name=entry["name"],
            family=family_name,
            group=group,
            kind=entry["kind"],
            hf_repo=entry.get("hf_repo") or "",
            source=entry["source"],
            grade=entry["grade"],
            arch=None if found is None else found[0],
            basis=None if found is None else found[1],
            excluded=excluded,
        )
        for alias in (entry["id"], entry["name"], entry.get("hf_repo")):
            if alias:
                index.setdefault(alias.lower(), entry["id"])
    return Catalogue(MappingProxyType(models), MappingProxyType(index))


def load_catalogue(path: str | Path | None = None) -> Catalogue:
    """Read the catalogue from `path` (default: the repository's fixtures/models.json)."""
    with open(path or DEFAULT_PATH, encoding="utf-8") as handle:
        return catalogue_from_dict(json.load(handle))


# Built once at import and never changed: the catalogue every scenario names its model from.
MODELS = load_catalogue()
