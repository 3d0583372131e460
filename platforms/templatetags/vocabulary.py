"""Template tags for the closed sets of advisor/engine/vocab.py, so templates never spell them."""

from __future__ import annotations

from django import template

from advisor.engine import vocab

register = template.Library()


@register.simple_tag
def group_kinds(group: str) -> str:
    """The task kinds a scenario field group applies to, space-separated in declaration order:
    `data-kinds="{% group_kinds "training" %}"` -> "full_finetune lora qlora" (advisor.js)."""
    return " ".join(vocab.kinds_of_group(group))
