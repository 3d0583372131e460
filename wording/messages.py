"""The engine's messages in the reader's language: the one place codes become sentences.

`render(message)` translates the code's English template (extracted from advisor/engine/messages.py
by makemessages) with gettext in the active language and formats each parameter by locale:
numbers with the locale's separators, sizes in GiB, hours, percentages, money with its currency
and billing unit, vocabulary values by their translated label, lists with the language's
separator, nested messages recursively. `as_json(message)` is the API's
`{"code", "params", "message"}` shape. The CLI renders with English active.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from decimal import ROUND_HALF_UP, Decimal
from enum import StrEnum
from typing import TypeVar

from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils import translation
from django.utils.formats import FORMAT_SETTINGS, get_format, number_format
from django.utils.translation import get_language, ngettext

from advisor.engine import messages as engine
from advisor.engine import vocab
from advisor.engine.messages import Message, Money, Param, Quantity, Unit, money_places
from wording import choices

GiB = 2**30


def gettext(text: str) -> str:
    """Django's gettext in the active language, each text's translation read once per language
    (an answer renders hundreds of messages; a translation does not change while the process
    runs). Named so, its literals are extracted by makemessages as Django's are."""
    table = _in_language(_TRANSLATED)
    found = table.get(text)
    if found is None:
        found = table[text] = translation.gettext(text)
    return found


# By language: each text's translation (gettext).
_TRANSLATED: dict[str | None, dict[str, str]] = {}

K = TypeVar("K")


def _in_language(store: dict[str | None, dict[K, str]]) -> dict[K, str]:
    """`store`'s table for the active language, made on first use."""
    language = _language()
    table = store.get(language)
    if table is None:
        table = store[language] = {}
    return table


# The active language while one is pinned (`one_language`); _UNPINNED outside.
_UNPINNED = object()
_PINNED: ContextVar[object] = ContextVar("advisor_messages_language", default=_UNPINNED)


def _language() -> str | None:
    """The active language: the pinned one within `one_language`, else Django's. Django's
    get_language reads a context-local value through asgiref (some microseconds), and an answer
    formats thousands of figures and sentences in one language."""
    pinned = _PINNED.get()
    return get_language() if pinned is _UNPINNED else pinned  # type: ignore[return-value]


@contextmanager
def one_language() -> Iterator[None]:
    """Within: every message and figure in the language active on entry, read once (a whole
    answer's serialization). Nothing within may activate another language; nested uses keep the
    outer one."""
    if _PINNED.get() is not _UNPINNED:
        yield
        return
    token = _PINNED.set(get_language())
    try:
        yield
    finally:
        _PINNED.reset(token)


T = TypeVar("T")


def _in_one_language(write: Callable[[Message], T], message: Message) -> T:
    """`write(message)` within one_language, without a generator's cost: render and as_json are
    called hundreds of times an answer, each message's parts in the same language."""
    if _PINNED.get() is not _UNPINNED:
        return write(message)
    token = _PINNED.set(get_language())
    try:
        return write(message)
    finally:
        _PINNED.reset(token)


@receiver(setting_changed)
def _forget_translations(*, setting: str, **kwargs: object) -> None:
    """Translations read again where a test changes where they come from or which there are."""
    if setting in ("LANGUAGES", "LANGUAGE_CODE", "LOCALE_PATHS", "INSTALLED_APPS", "USE_I18N"):
        _TRANSLATED.clear()
        _LABELS.clear()


def render(message: Message) -> str:
    """`message` as a sentence in the active language."""
    return _in_one_language(_render, message)


def _render(message: Message) -> str:
    return engine.render(message, gettext, _param)


def render_all(messages: Iterable[Message]) -> list[str]:
    return [render(m) for m in messages]


def texts(items: Iterable[str | Message]) -> list[str]:
    """Names as they are and messages rendered: a plan leg's tasks (plans.Leg.task_labels, where
    a task shared between legs reads "train: 720 h of 1,000 h")."""
    return [item if isinstance(item, str) else render(item) for item in items]


def as_json(message: Message) -> dict[str, object]:
    """{"code", "params", "message"}: numbers stay numbers with their unit; the message is in the
    active language."""
    return _in_one_language(_as_json, message)


def _as_json(message: Message) -> dict[str, object]:
    return engine.as_json(message, render)


def number(value: float | Decimal, places: int) -> str:
    """A number in the active locale, thousands grouped, rounded half up once (as the tables
    round money: 1.005 is 1.01, where float rounding would give 1.00).

    What Django's number_format writes (tests/advisor/test_messages_numbers.py compares them),
    with the locale's separators read once per language: an answer formats hundreds of numbers."""
    exact = value if isinstance(value, Decimal) else Decimal(repr(float(value)))
    rounded = exact.quantize(
        _STEPS[places] if places < len(_STEPS) else Decimal(1).scaleb(-places),
        rounding=ROUND_HALF_UP,
    )
    language = _language()
    separators = _SEPARATORS.get(language)
    if separators is None:
        separators = _SEPARATORS[language] = _separators()
    if separators is _UNGROUPED or not rounded.is_finite():
        return number_format(rounded, decimal_pos=places, force_grouping=True)
    if not rounded:
        rounded = _ZERO  # no sign on a zero, as number_format writes it
    text = f"{rounded:,.{places}f}"
    return text if separators is _PLAIN else text.translate(separators)


# Decimal steps of 0 to 6 places, for quantize.
_STEPS = tuple(Decimal(1).scaleb(-places) for places in range(7))
_ZERO = Decimal(0)
# By language: a table turning Python's "1,234.5" into the locale's separators, _PLAIN where
# they are Python's own, _UNGROUPED where the grouping is not in threes (number_format then).
_SEPARATORS: dict[str | None, dict[int, str]] = {}
_PLAIN: dict[int, str] = {}
_UNGROUPED: dict[int, str] = {}


@receiver(setting_changed)
def _forget_separators(*, setting: str, **kwargs: object) -> None:
    """The separators read again when a test overrides the formats (where Django reads its
    formats again, and when the format modules change)."""
    if setting in FORMAT_SETTINGS or setting in ("USE_THOUSAND_SEPARATOR", "FORMAT_MODULE_PATH"):
        _SEPARATORS.clear()


def _separators() -> dict[int, str]:
    decimal, thousand = get_format("DECIMAL_SEPARATOR"), get_format("THOUSAND_SEPARATOR")
    if get_format("NUMBER_GROUPING") != 3:
        return _UNGROUPED
    if (decimal, thousand) == (".", ","):
        return _PLAIN
    return str.maketrans({".": str(decimal), ",": str(thousand)})


# ------------------------------------------------------------------ one rule per kind of figure
# Every page, chart, CSV-free sentence and the admin format figures through these, so one
# amount reads the same everywhere in a language (the locale gives the separators):
# - a total (a month, a job, a difference, a storage bill): cents;
# - a price as listed (typed by staff or imported): its own digits, at least 2 and at most 6
#   decimals, never trailing zeros past 2 (1.6600 reads 1.66, 0.000164 keeps its digits);
# - a price we computed (converted, per GPU-hour, per GiB, per million tokens): cents from
#   0.10 up, below that three significant digits (at most 6 decimals), so a column of
#   computed prices has one precision;
# - hours: one decimal below 100 h, whole hours from 100 h (720 h, not 720.0 h);
# - sizes: GiB with two decimals;
# - exchange and credit rates: their own digits, at least 2 and at most 4 decimals.
HOURS_WHOLE_FROM = 100


def total(amount: Decimal | float) -> str:
    """A total amount of money (without its currency): cents."""
    return number(amount, 2)


def listed_price(amount: Decimal | float) -> str:
    """A price as a platform lists it: its own digits (money_places)."""
    exact = amount if isinstance(amount, Decimal) else Decimal(repr(float(amount)))
    return number(exact, money_places(exact))


def computed_price(amount: Decimal | float) -> str:
    """A price we derived: cents from 0.10 up, else three significant digits (at most 6)."""
    exact = amount if isinstance(amount, Decimal) else Decimal(repr(float(amount)))
    size = abs(exact)
    if size >= Decimal("0.1") or size == 0:
        return number(exact, 2)
    # adjusted() is the exponent of the first significant digit: 0.0545 -> -2.
    places = min(6, 2 - size.adjusted())
    return number(exact, places)


def hours_number(value: float) -> str:
    """Hours without their unit: one decimal, whole from HOURS_WHOLE_FROM."""
    return number(value, 0 if abs(value) >= HOURS_WHOLE_FROM else 1)


def gib_number(value: float) -> str:
    """A size in GiB without its unit: two decimals."""
    return number(value, 2)


def rate_number(value: Decimal | float) -> str:
    """An exchange or credit rate: its own digits, at least 2 and at most 4 decimals."""
    exact = value if isinstance(value, Decimal) else Decimal(repr(float(value)))
    return number(exact, min(4, money_places(exact)))


def money(value: Money) -> str:
    """An amount with its currency (and per billing unit), in the active locale."""
    text = gettext("%(amount)s %(currency)s") % {
        "amount": number(value.amount, money_places(value.amount)),
        "currency": value.currency,
    }
    if value.per:
        per = enum_label(vocab.BillingUnit(value.per))
        text = gettext("%(amount)s/%(unit)s") % {"amount": text, "unit": per}
    return text


def quantity(q: Quantity) -> str:
    def places(default: int) -> int:
        return default if q.places is None else q.places

    if q.unit is Unit.BYTES:
        return gettext("%(n)s GiB") % {"n": number(q.value / GiB, places(2))}
    if q.unit is Unit.HOURS:
        shown = hours_number(q.value) if q.places is None else number(q.value, q.places)
        return gettext("%(n)s h") % {"n": shown}
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
    """A vocabulary value as it reads inside a sentence, read once per language (gettext)."""
    table = _in_language(_LABELS)
    key = (type(member), member)  # members of two enums with one value compare equal
    found = table.get(key)
    if found is None:
        if isinstance(member, vocab.BillingUnit):
            found = str(choices.UNIT_NOUNS[member])
        else:
            found = choices.label(member)
        table[key] = found
    return found


# By language: each vocabulary value's label (enum_label), by its enum and value.
_LABELS: dict[str | None, dict[tuple[type[StrEnum], StrEnum], str]] = {}


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
    if isinstance(value, Decimal):  # an amount without its currency: as a listed price reads
        return listed_price(value)
    return "" if value is None else str(value)
