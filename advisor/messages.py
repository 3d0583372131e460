"""The engine's messages in the reader's language: the one place codes become sentences.

`render(message)` translates the code's English template (extracted from advisor/engine/messages.py
by makemessages) with gettext in the active language and formats each parameter by locale:
numbers with the locale's separators, sizes in GiB, hours, percentages, money with its currency
and billing unit, vocabulary values by their translated label, lists with the language's
separator, nested messages recursively. `as_json(message)` is the API's
`{"code", "params", "message"}` shape. The CLI renders with English active.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from decimal import ROUND_HALF_UP, Decimal
from enum import StrEnum

from django.utils.formats import number_format
from django.utils.translation import gettext, ngettext

from advisor.engine import messages as engine
from advisor.engine import vocab
from advisor.engine.messages import Message, Money, Param, Quantity, Unit, money_places
from platforms import choices

GiB = 2**30


def render(message: Message) -> str:
    """`message` as a sentence in the active language."""
    return engine.render(message, gettext, _param)


def render_all(messages: Iterable[Message]) -> list[str]:
    return [render(m) for m in messages]


def as_json(message: Message) -> dict[str, object]:
    """{"code", "params", "message"}: numbers stay numbers with their unit; the message is in the
    active language."""
    return engine.as_json(message, render)


def number(value: float | Decimal, places: int) -> str:
    """A number in the active locale, thousands grouped, rounded half up once (as the tables
    round money: 1.005 is 1.01, where float rounding would give 1.00)."""
    exact = value if isinstance(value, Decimal) else Decimal(repr(float(value)))
    rounded = exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return number_format(rounded, decimal_pos=places, force_grouping=True)


def money(value: Money) -> str:
    """An amount with its currency (and per billing unit), in the active locale."""
    text = gettext("%(amount)s %(currency)s") % {
        "amount": number(value.amount, money_places(value.amount)),
        "currency": value.currency,
    }
    if value.per:
        per = choices.UNIT_NOUNS[vocab.BillingUnit(value.per)]
        text = gettext("%(amount)s/%(unit)s") % {"amount": text, "unit": per}
    return text


def quantity(q: Quantity) -> str:
    def places(default: int) -> int:
        return default if q.places is None else q.places

    if q.unit is Unit.BYTES:
        return gettext("%(n)s GiB") % {"n": number(q.value / GiB, places(2))}
    if q.unit is Unit.HOURS:
        return gettext("%(n)s h") % {"n": number(q.value, places(1))}
    if q.unit is Unit.DAYS:
        days = round(q.value)
        return ngettext("%(n)s day", "%(n)s days", days) % {"n": number(days, 0)}
    if q.unit is Unit.FRACTION:
        return gettext("%(n)s%%") % {"n": number(q.value * 100, places(0))}
    if q.unit is Unit.GB:
        return gettext("%(n)s GB") % {"n": number(q.value, places(0))}
    if q.unit is Unit.TOKENS_PER_S:
        return gettext("%(n)s tokens/s") % {"n": number(q.value, places(1))}
    return number(q.value, places(0))


def enum_label(member: StrEnum) -> str:
    """A vocabulary value as it reads inside a sentence."""
    if isinstance(member, vocab.BillingUnit):
        return str(choices.UNIT_NOUNS[member])
    return choices.label(member)


def _param(value: Param, nested: Callable[[Message], str]) -> str:
    if isinstance(value, Message):
        return nested(value)
    if isinstance(value, Quantity):
        return quantity(value)
    if isinstance(value, Money):
        return money(value)
    if isinstance(value, tuple):
        return gettext(", ").join(_param(v, nested) for v in value)
    if isinstance(value, StrEnum):
        return enum_label(value)
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    if isinstance(value, int):
        return number(value, 0)
    if isinstance(value, float):
        return number(value, 0 if value == int(value) else 2)
    return "" if value is None else str(value)
