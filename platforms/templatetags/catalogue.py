"""Template filters for catalogue figures and names: the formatting rules of wording/messages.py
(one per kind of figure, in the page's language) and a platform's names, each once."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django import template

from advisor.engine.vocab import HOURS_PER_MONTH, StorageUnit
from platforms.models import platform_names
from wording import messages

register = template.Library()


def _decimal(value: object) -> Decimal | None:
    if value is None or value == "":
        return None
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


@register.filter
def amount(value: object) -> str:
    """A price as listed: its own digits, 2 to 6 decimals (1.8800 -> 1.88, 12000 -> 12,000.00)."""
    number = _decimal(value)
    return str(value or "") if number is None else messages.listed_price(number)


@register.filter
def computed(value: object) -> str:
    """A price we derived (converted, per GPU-hour, per GiB-hour): cents, or three significant
    digits below 0.10."""
    number = _decimal(value)
    return str(value or "") if number is None else messages.computed_price(number)


@register.filter
def total(value: object) -> str:
    """A total amount of money: cents."""
    number = _decimal(value)
    return str(value or "") if number is None else messages.total(number)


@register.filter
def hours(value: object) -> str:
    """Hours: one decimal, whole from 100 h."""
    number = _decimal(value)
    return str(value or "") if number is None else messages.hours_number(float(number))


@register.filter
def gib(value: object) -> str:
    """A size in GiB: two decimals."""
    number = _decimal(value)
    return str(value or "") if number is None else messages.gib_number(float(number))


@register.filter
def rate(value: object) -> str:
    """An exchange or credit rate: 2 to 4 decimals."""
    number = _decimal(value)
    return str(value or "") if number is None else messages.rate_number(number)


def _names(platform: Any) -> tuple[str, str]:
    if isinstance(platform, dict):
        return platform_names(platform["name"], platform.get("name_en") or "")
    return platform_names(platform.name, platform.name_en)


@register.filter
def primary_name(platform: Any) -> str:
    """The name a platform is shown by (a Platform or a values() dict)."""
    return _names(platform)[0]


@register.filter
def secondary_name(platform: Any) -> str:
    """The English name shown beside it, or "" when it would repeat the first."""
    return _names(platform)[1]


@register.filter
def who_about(source: Any, subject: Any = None) -> str:
    """Whose statement a source is about `subject` (a Platform): "智星云 about a competitor
    (competitor claim)" (Source.who_about_whom)."""
    return str(source.who_about_whom(subject)) if source is not None else ""


# Choices longer than this many characters do not fit one column of a form's grid (19rem at
# 0.9rem type, advisor.css): their select spans two.
LONG_CHOICE = 30


@register.filter
def keyed(mapping: Any, key: Any) -> Any:
    """`mapping[key]`, or None: a value a view computed per object (a price's confirmation)."""
    return mapping.get(key) if mapping else None


@register.filter
def has_long_choice(bound_field: Any) -> bool:
    """Whether a form field is a select with a choice too long for one grid column."""
    choices = getattr(getattr(bound_field, "field", None), "choices", None)
    if not choices:
        return False
    labels: list[str] = []
    for _value, label in choices:
        if isinstance(label, list | tuple):  # a group of choices
            labels.extend(str(inner) for _inner, inner in label)
        else:
            labels.append(str(label))
    return any(len(label) > LONG_CHOICE for label in labels)


@register.filter
def per_gb_month(price: Any) -> Decimal | None:
    """A storage price (a StoragePrice) per GB-month, so that a table shows storage in one unit:
    a month of 720 h as the advisor bills it, TB = 1000 GB (advisor/engine/vocab.py)."""
    try:
        unit = StorageUnit(price.unit)
    except ValueError:
        return None
    return Decimal(price.amount) * HOURS_PER_MONTH / unit.hours / unit.gb
