"""Exchange-rate files: the European Central Bank's daily euro reference rates
(https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml), written as ExchangeRate rows.

The file gives "1 EUR = x CCY" for one day (`<Cube time='2025-05-09'>`, then one
`<Cube currency='USD' rate='1.1252'/>` per currency). The ECB publishes it "usually ... around
16:00 CET on every working day, except on TARGET closing days"
(https://www.ecb.europa.eu/stats/policy_and_exchange_rates/euro_reference_exchange_rates/html/index.en.html).

Every pair of the catalogue's currencies (`Currency`) is written once, dated by the file's day:
the rate of `base` in `quote` is the cross rate through the euro,
`rate(base, quote) = x(quote) / x(base)` with x(EUR) = 1, rounded to the six places a rate keeps
(1 USD = 8.1470 / 1.1252 = 7.240491 CNY on 2025-05-09). The pair's direction follows
`BASE_ORDER` (USD before CNY, as the seed's rates are). A rate already stored for the pair and
day is left as it is (counted unchanged); a different one is an error, never overwritten.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from datetime import date
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from xml.etree import ElementTree

from django.db import transaction

from platforms import services
from platforms.models import Currency, ExchangeRate, Source

from .rows import RowProblem

ECB_NAMESPACE = "{http://www.ecb.int/vocabulary/2002-08-01/eurofxref}"
# The order pairs are written in: a pair's base is the one listed first here.
BASE_ORDER = ("EUR", "USD", "CNY")
RATE_PLACES = Decimal("0.000001")
# The formats a rate feed reads, with their labels (feeds.models.FEED_FORMATS).
RATE_FORMAT_LABELS = {"ecb": "ECB euro reference rates (XML)"}


class RatesError(ValueError):
    """A file that is not a rate file of its format."""


@dataclass(frozen=True)
class DailyRates:
    day: date
    # Units of each currency per euro; EUR itself is 1.
    per_euro: dict[str, Decimal]


def parse_ecb(text: str) -> DailyRates:
    """The day and rates of an ECB eurofxref-daily.xml; RatesError says what is wrong."""
    if "<!DOCTYPE" in text or "<!ENTITY" in text:
        raise RatesError("the file declares a DOCTYPE or an entity: not the ECB's file")
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as exc:
        raise RatesError(f"not XML: {exc}") from None
    days = root.findall(f"./{ECB_NAMESPACE}Cube/{ECB_NAMESPACE}Cube[@time]")
    if len(days) != 1:
        raise RatesError(f"expected one day of rates, found {len(days)}")
    try:
        day = date.fromisoformat(days[0].attrib["time"])
    except ValueError:
        raise RatesError(f"the day {days[0].attrib['time']!r} is not a date") from None
    per_euro: dict[str, Decimal] = {"EUR": Decimal(1)}
    for cube in days[0].findall(f"./{ECB_NAMESPACE}Cube"):
        currency, raw = cube.attrib.get("currency", ""), cube.attrib.get("rate", "")
        try:
            rate = Decimal(raw)
        except InvalidOperation:
            raise RatesError(f"the rate of {currency!r} is not a number: {raw!r}") from None
        if not rate.is_finite() or rate <= 0:
            raise RatesError(f"the rate of {currency!r} must be more than zero, not {raw!r}")
        per_euro[currency] = rate
    return DailyRates(day=day, per_euro=per_euro)


def pairs(currencies: list[str]) -> list[tuple[str, str]]:
    """Each pair of `currencies` once, its base the one `BASE_ORDER` lists first."""
    ordered = sorted(
        currencies, key=lambda c: (BASE_ORDER.index(c) if c in BASE_ORDER else len(BASE_ORDER), c)
    )
    return list(itertools.combinations(ordered, 2))


def cross_rate(rates: DailyRates, base: str, quote: str) -> Decimal:
    """Units of `quote` per one `base`, through the euro, to six places."""
    return (rates.per_euro[quote] / rates.per_euro[base]).quantize(
        RATE_PLACES, rounding=ROUND_HALF_EVEN
    )


@dataclass
class RatesReport:
    """What a rate import did, with the counts a feed run keeps (as ImportReport's)."""

    fmt: str
    filename: str
    day: date | None = None
    total_rows: int = 0
    created: int = 0
    unchanged: int = 0
    errors: list[RowProblem] = field(default_factory=list)
    applied: bool = False
    written: list[ExchangeRate] = field(default_factory=list)
    # Counts an offer import has and a rate import never makes.
    updated: int = 0
    skipped_rows: int = 0
    prices_added: int = 0
    prices_seen: int = 0

    @property
    def ok(self) -> bool:
        return not self.errors

    def summary_lines(self) -> list[str]:
        label = RATE_FORMAT_LABELS.get(self.fmt, self.fmt)
        day = self.day.isoformat() if self.day else "no day"
        lines = [f"{label} {self.filename}: {self.total_rows} rates of {day}"]
        lines += [f"  {rate}" for rate in self.written]
        lines.append(f"exchange rates added {self.created}, unchanged {self.unchanged}")
        nothing = "; nothing was written" if self.errors else ""
        lines.append(f"errors {len(self.errors)}{nothing}")
        return lines


def rates_import(*, text: str, fmt: str, filename: str, source_url: str) -> RatesReport:
    """Write the file's rates for every pair of the catalogue's currencies, in one transaction,
    or nothing when the file cannot be read or disagrees with a stored rate of the same day."""
    report = RatesReport(fmt=fmt, filename=filename)
    if fmt != "ecb":
        report.errors.append(RowProblem(0, "unknown format", f"no rate format {fmt!r}"))
        return report
    try:
        rates = parse_ecb(text)
    except RatesError as exc:
        report.errors.append(RowProblem(0, "not a rate file", str(exc)))
        return report
    report.day, report.total_rows = rates.day, len(rates.per_euro) - 1
    wanted = [c for c in Currency.values if c in rates.per_euro]
    missing = sorted(set(Currency.values) - set(wanted))
    if missing:
        report.errors.append(
            RowProblem(0, "missing currency", f"the file has no rate for {', '.join(missing)}")
        )
        return report
    with transaction.atomic():
        source = _source(rates.day, source_url)
        for base, quote in pairs(wanted):
            rate = cross_rate(rates, base, quote)
            stored = ExchangeRate.objects.filter(base=base, quote=quote, as_of=rates.day).first()
            if stored is None:
                report.written.append(
                    ExchangeRate.objects.create(
                        base=base, quote=quote, rate=rate, as_of=rates.day, source=source
                    )
                )
                report.created += 1
            elif stored.rate == rate:
                report.unchanged += 1
            else:
                report.errors.append(
                    RowProblem(
                        0,
                        "conflicting rate",
                        f"1 {base} = {rate} {quote} on {rates.day}, but {stored.rate} is stored",
                    )
                )
        if report.errors:
            transaction.set_rollback(True)
            report.written = []
            report.created = 0
            return report
        if report.created:
            services.catalogue_changed()
            services.explorer_keys_refresh()  # the explorer converts at the latest rates
    report.applied = True
    return report


def _source(day: date, url: str) -> Source:
    """The ECB's publication of one day: the document every rate of that day cites."""
    title = f"Euro foreign exchange reference rates, {day.isoformat()}"
    source, _ = Source.objects.get_or_create(
        title=title,
        url=url,
        defaults={
            "title_zh": f"欧洲中央银行欧元外汇参考汇率，{day.isoformat()}",
            "publisher": "European Central Bank",
            "published_on": day,
            "kind": "third_party",
            "confidence": "verified",
            "notes": (
                "Rates against the euro; other pairs are cross rates through the euro "
                "(x(quote) / x(base)), rounded to six places."
            ),
        },
    )
    return source
