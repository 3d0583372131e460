"""Our JSON price feed (docs/feeds.md): what a platform or a scraper publishes for `feeds` to read.

One document lists offers, each with its prices in any billing units; it parses into the same
`OfferRow`s as the CSV formats, so it is checked, planned and written the same way. JSON has no
useful line numbers: a problem's "line" is the offer's position in `offers`, from 1 (0: the
document as a whole), and its message names the field (`offers[2].prices[0].amount`).
Unknown keys are errors, so a misspelt field is never silently ignored. A document is read a
window of characters at a time, one offer held at once, and refused as `json.load` would refuse it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, TypeVar

from django.db import models

from platforms.models import BillingUnit, Currency, DeliveryForm, Interconnect, SharingMode

from .interconnect import interconnect_for
from .rows import (
    OfferRow,
    Parsed,
    PriceRow,
    RowError,
    RowProblem,
    Text,
    number_value,
    observed_at_value,
    parse_all,
    price_amount,
    ram_value,
    shown,
    url_value,
)

VERSION = 1
DOCUMENT_KEYS = {"version", "platform", "observed_at", "source_url", "offers"}
OFFER_REQUIRED = ("key", "name", "accelerator", "gpu_count", "prices")
OFFER_KEYS = {
    *OFFER_REQUIRED,
    "platform",
    "gpu_memory_gib",
    "vcpus",
    "ram_gib",
    "disk_gb",
    "region",
    "interruptible",
    "delivery_form",
    "sharing_mode",
    "interconnect",
    "pooled_vram_gib",
    "mig_profile",
}
PRICE_REQUIRED = ("unit", "amount", "currency")
PRICE_KEYS = {*PRICE_REQUIRED, "observed_at", "source_url"}

T = TypeVar("T")


# One price per billing unit and date in an offer, or across offers of one key: the same twice
# is an error.
SAME_UNIT = "error"


def read(text: Text, parsed: Parsed) -> Iterator[OfferRow]:
    """The document's offers, one at a time. A document that is an object is read a window at a
    time (`_members`), twice: first whole, to check it and take its defaults (which may follow
    the offers), then for its offers. Anything else is read whole (json.load), to be refused."""
    scanner = _Scanner(text)
    if scanner.peek() != "{":
        yield from _read_whole(_rewound(text), parsed)
        return
    document: dict[str, Any] = {}
    # Which "offers" member (counting from 1) is the array of offers: the last one, as json.load
    # keeps the last value of a repeated key.
    arrays = wanted = 0
    try:
        for key, value in _members(scanner, 0):
            if key == "offers":
                if value is _ARRAY:
                    arrays += 1
                    wanted, value = arrays, []
                else:
                    wanted = 0
            document[key] = value
    except (NotJSON, RecursionError) as exc:
        parsed.errors.append(RowProblem(0, "not JSON", f"not a JSON document: {exc}"))
        return
    try:
        _, defaults = _document(document)
    except RowError as exc:
        parsed.errors.append(RowProblem(0, "bad document", str(exc)))
        return
    if not wanted:
        return
    offers = (value for key, value in _members(_Scanner(_rewound(text)), wanted) if key == OFFER)
    for number, offer in enumerate(offers, start=1):
        parsed.total = number
        try:
            row = _offer(number, offer, defaults)
        except RowError as exc:
            parsed.errors.append(RowProblem(number, "bad value", f"offers[{number - 1}]: {exc}"))
            continue
        yield row


def _read_whole(text: Text, parsed: Parsed) -> Iterator[OfferRow]:
    try:
        document = json.loads(text) if isinstance(text, str) else json.load(text)
    except (ValueError, RecursionError) as exc:
        parsed.errors.append(RowProblem(0, "not JSON", f"not a JSON document: {exc}"))
        return
    try:
        offers, defaults = _document(document)
    except RowError as exc:
        parsed.errors.append(RowProblem(0, "bad document", str(exc)))
        return
    parsed.total = len(offers)
    for number, offer in enumerate(offers, start=1):
        try:
            yield _offer(number, offer, defaults)
        except RowError as exc:
            parsed.errors.append(RowProblem(number, "bad value", f"offers[{number - 1}]: {exc}"))


def _rewound(text: Text) -> Text:
    if not isinstance(text, str):
        text.seek(0)
    return text


# --- reading a document a window at a time ------------------------------------------------------

# Characters read from a stream at a time; the window holds the value being read and what is
# left of the last read.
WINDOW = 64 * 1024
# The longest token a window can cut (-Infinity), and more: a decoding error this near the end of
# the window may only mean that the value goes on past it.
TOKEN_CHARS = 10
_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
# What `_members` gives for an array of offers, whose elements it yields one by one instead.
_ARRAY = object()
OFFER = "offers[]"


class NotJSON(ValueError):
    """A document json.load would refuse, said as json.JSONDecodeError says it (the line, column
    and character in the whole document)."""


class _Scanner:
    """A JSON text, a string or a stream read a window at a time; the part before the value
    being read is dropped."""

    def __init__(self, text: Text) -> None:
        self.stream = None if isinstance(text, str) else text
        self.window = text if isinstance(text, str) else ""
        self.eof = self.stream is None
        self.pos = 0
        # Characters and line breaks of the document before the window, and where the last of
        # those line breaks is (for the positions errors give).
        self.base = self.newlines = 0
        self.last_newline = -1

    def _more(self) -> bool:
        if self.stream is None or self.eof:
            return False
        data = self.stream.read(WINDOW)
        if not data:
            self.eof = True
            return False
        done = self.window[: self.pos]
        self.newlines += done.count("\n")
        if (at := done.rfind("\n")) >= 0:
            self.last_newline = self.base + at
        self.base += self.pos
        self.window, self.pos = self.window[self.pos :] + data, 0
        return True

    def peek(self) -> str:
        """The next character that is not white space ("" at the end); not taken."""
        while True:
            space = _SPACE.match(self.window, self.pos)
            assert space is not None
            self.pos = space.end()
            if self.pos < len(self.window):
                return self.window[self.pos]
            if not self._more():
                return ""

    def take(self, allowed: str, message: str) -> str:
        char = self.peek()
        if not char or char not in allowed:
            raise self.error(message, self.pos)
        self.pos += 1
        return char

    def value(self) -> Any:
        if not self.peek():
            raise self.error("Expecting value", self.pos)
        while True:
            try:
                found, end = _DECODER.raw_decode(self.window, self.pos)
            except json.JSONDecodeError as exc:
                cut = exc.pos >= len(self.window) - TOKEN_CHARS or exc.msg.startswith(
                    "Unterminated string"
                )
                if cut and self._more():
                    continue
                raise self.error(exc.msg, exc.pos) from None
            # A number that ends the window may go on in the next read.
            if end < len(self.window) or not self._more():
                self.pos = end
                return found

    def error(self, message: str, pos: int) -> NotJSON:
        at = self.base + pos
        newline = self.window.rfind("\n", 0, pos)
        line = self.newlines + self.window.count("\n", 0, pos) + 1
        column = at - (self.base + newline if newline >= 0 else self.last_newline)
        return NotJSON(f"{message}: line {line} column {column} (char {at})")


def _members(scanner: _Scanner, offers_of: int) -> Iterator[tuple[str, Any]]:
    """The members of the document's top-level object, in order, as (key, value), with what
    json.load refuses raised as NotJSON. The value of an "offers" member that is an array is
    `_ARRAY`: its elements are read one at a time, and yielded first, as (OFFER, element), for
    the `offers_of`-th such member (from 1; 0: none)."""
    scanner.take("{", "Expecting value")
    arrays = 0
    if scanner.peek() == "}":
        scanner.pos += 1
    else:
        while True:
            if scanner.peek() != '"':
                raise scanner.error(
                    "Expecting property name enclosed in double quotes", scanner.pos
                )
            key = scanner.value()
            scanner.take(":", "Expecting ':' delimiter")
            if key == "offers" and scanner.peek() == "[":
                arrays += 1
                scanner.pos += 1
                if scanner.peek() == "]":
                    scanner.pos += 1
                else:
                    while True:
                        element = scanner.value()
                        if arrays == offers_of:
                            yield OFFER, element
                        if scanner.take(",]", "Expecting ',' delimiter") == "]":
                            break
                yield key, _ARRAY
            else:
                yield key, scanner.value()
            if scanner.take(",}", "Expecting ',' delimiter") == "}":
                break
    if scanner.peek():
        raise scanner.error("Extra data", scanner.pos)


def parse(text: Text) -> Parsed:
    return parse_all(text, read, same_unit=SAME_UNIT)


@dataclass(frozen=True)
class _Defaults:
    """What the document states for every offer and price that does not state it itself."""

    platform: str
    observed_at: datetime | None
    source_url: str


def _document(document: object) -> tuple[list[Any], _Defaults]:
    if not isinstance(document, dict):
        raise RowError("the document must be a JSON object with 'version' and 'offers'")
    unknown = sorted(set(document) - DOCUMENT_KEYS)
    if unknown:
        raise RowError("unknown key(s): " + _keys(unknown))
    if document.get("version") != VERSION:
        version = shown(repr(document.get("version")), quoted=False)
        raise RowError(f"version must be {VERSION}, not {version}")
    offers = document.get("offers")
    if not isinstance(offers, list):
        raise RowError("offers must be a list")
    defaults = _Defaults(
        platform=_text(document, "platform"),
        observed_at=_date(document, "observed_at"),
        source_url=_url(document, "source_url"),
    )
    return offers, defaults


def _offer(number: int, offer: object, defaults: _Defaults) -> OfferRow:
    if not isinstance(offer, dict):
        raise RowError("an offer must be an object")
    unknown = sorted(set(offer) - OFFER_KEYS)
    if unknown:
        raise RowError("unknown key(s): " + _keys(unknown))
    for key in OFFER_REQUIRED:
        if key not in offer or offer[key] in ("", None):
            raise RowError(f"{key} is required")
    key, accelerator = _text(offer, "key"), _text(offer, "accelerator")
    platform = _text(offer, "platform") or defaults.platform
    gpu_count = _whole(offer, "gpu_count")
    if gpu_count is None or gpu_count < 1:
        raise RowError("gpu_count must be 1 or more")
    prices = offer["prices"]
    if not isinstance(prices, list) or not prices:
        raise RowError("prices must be a list of at least one price")
    interconnect = _choice(offer, "interconnect", Interconnect)
    bandwidth = None
    if interconnect is None:
        # Not stated: the sourced family table may know the instance type, as for native CSV.
        interconnect, bandwidth = interconnect_for(
            key.split("@")[0], gpu_count, accelerator, provider=platform
        )
    return OfferRow(
        lines=[number],
        external_id=key,
        name=_text(offer, "name"),
        accelerator_name=accelerator,
        gpu_count=gpu_count,
        prices=[_price(i, price, defaults) for i, price in enumerate(prices)],
        gpu_memory_gib=_number(offer, "gpu_memory_gib"),
        platform_slug=platform,
        vcpus=_whole(offer, "vcpus"),
        ram_gib=ram_value(_number(offer, "ram_gib")),
        disk_gb=_whole(offer, "disk_gb"),
        region=_text(offer, "region"),
        interruptible=_bool(offer, "interruptible"),
        delivery_form=_choice(offer, "delivery_form", DeliveryForm),
        sharing_mode=_choice(offer, "sharing_mode", SharingMode),
        interconnect=interconnect,
        interconnect_bandwidth_gbps=bandwidth,
        pooled_vram_gib=_number(offer, "pooled_vram_gib"),
        mig_profile=_text(offer, "mig_profile") or None,
    )


def _price(index: int, price: object, defaults: _Defaults) -> PriceRow:
    where = f"prices[{index}]"
    if not isinstance(price, dict):
        raise RowError(f"{where} must be an object")
    unknown = sorted(set(price) - PRICE_KEYS)
    if unknown:
        raise RowError(f"{where}: unknown key(s): " + ", ".join(unknown))
    for key in PRICE_REQUIRED:
        if price.get(key) in ("", None):
            raise RowError(f"{where}.{key} is required")
    unit = _within(where, lambda: _choice(price, "unit", BillingUnit))
    currency = _within(where, lambda: _choice(price, "currency", Currency))
    amount = _within(where, lambda: _number(price, "amount"))
    assert unit is not None and currency is not None and amount is not None
    return PriceRow(
        unit=unit,
        amount=_within(where, lambda: price_amount(amount, "amount")),
        currency=currency,
        observed_at=_within(where, lambda: _date(price, "observed_at")) or defaults.observed_at,
        source_url=_within(where, lambda: _url(price, "source_url")) or defaults.source_url,
    )


def _keys(keys: list[str]) -> str:
    return ", ".join(shown(key, quoted=False) for key in keys)


def _within(where: str, read: Callable[[], T]) -> T:
    try:
        return read()
    except RowError as exc:
        raise RowError(f"{where}.{exc}") from None


# --- typed values: JSON types are checked, never guessed ------------------------------------------


def _text(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise RowError(f"{key} must be a string, not {shown(json.dumps(value), quoted=False)}")
    if "\x00" in value:
        # PostgreSQL cannot store it: refused here, not by the database when the file is written.
        raise RowError(f"{key} contains a NUL character (\\u0000)")
    return value.strip()


def _number(data: dict[str, Any], key: str) -> Decimal | None:
    """A number, or a string holding one ("1.88": money is best written as a string)."""
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise RowError(f"{key} must be a number, not {shown(json.dumps(value), quoted=False)}")
    if isinstance(value, float) and not math.isfinite(value):
        # 1e400 as a JSON number: Python reads it as infinity.
        raise RowError(f"{key} is not a finite number: {value!r}")
    return number_value(str(value).strip(), key)


def _whole(data: dict[str, Any], key: str) -> int | None:
    number = _number(data, key)
    if number is None:
        return None
    if number != number.to_integral_value():
        raise RowError(f"{key} is not a whole number: {shown(str(data[key]), quoted=False)}")
    return int(number)


def _bool(data: dict[str, Any], key: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise RowError(f"{key} must be true or false, not {shown(json.dumps(value), quoted=False)}")
    return value


def _choice(data: dict[str, Any], key: str, choices: type[models.TextChoices]) -> str | None:
    value = _text(data, key)
    if not value:
        return None
    for candidate in (value.lower(), value.upper()):
        if candidate in choices.values:
            return candidate
    raise RowError(f"{key} must be one of {', '.join(choices.values)}, not {shown(value)}")


def _date(data: dict[str, Any], key: str) -> datetime | None:
    value = _text(data, key)
    if not value:
        return None
    try:
        return observed_at_value(value)
    except RowError as exc:
        raise RowError(f"{key}: {exc}") from None


def _url(data: dict[str, Any], key: str) -> str:
    try:
        return url_value(_text(data, key))
    except RowError as exc:
        raise RowError(f"{key}: {exc}") from None
