"""Template filters for catalogue figures."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from django import template
from django.utils.formats import number_format

register = template.Library()


@register.filter
def amount(value: object) -> str:
    """A price without trailing zeros, at least two decimals: 1.8800 -> 1.88, 12000 -> 12,000.00."""
    if value is None or value == "":
        return ""
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return str(value)
    exponent = number.normalize().as_tuple().exponent
    places = max(2, -exponent) if isinstance(exponent, int) else 2
    return number_format(number, decimal_pos=places, use_l10n=True, force_grouping=True)
