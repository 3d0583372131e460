"""Figure data for the platform page: the price history of each offering and billing unit,
bucketed in SQL.

One query finds when the history of the page's first offerings begins, which sets the buckets'
width (days while that fits MAX_POINTS of them, else weeks from Monday, else months, in the site's
time zone); one aggregate query then reads each bucket's min, max, count and sources, as the
prices API does (api/filters.py), and one window query each bucket's last observation, so a chart
has at most MAX_POINTS points per line and the page reads as many rows whatever the history
holds. Each (offering, unit, price tier, currency) is one step-shaped Plotly trace of prices that
were listed: each bucket's last price, drawn on the day it was seen (never an average, which
would draw a price nobody listed), held at the current price (the stored pointer) until now; a
member price is its own line beside the list price.
Nothing is cached, so a price staff add in the admin is on the chart at the next page load.
Offering and source names are escaped for Plotly (safe_text), which would read them as markup.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from django.db.models import Count, DateField, F, Max, Min, Window
from django.db.models.functions import RowNumber, Trunc
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from advisor.engine import vocab
from wording.choices import label

from .models import Offering, PriceObservation, Source
from .safe_text import figure_text_escaped
from .templatetags.catalogue import amount as format_amount
from .templatetags.catalogue import computed as computed_price

# A platform's prices per second and per month differ ten-thousandfold; past this spread the y axis
# is logarithmic so every line stays readable.
LOG_AXIS_SPREAD = 20
# The table under the chart lists this many of the newest buckets per series; the whole history
# is in the API (offerings/{id}/prices/).
TABLE_POINTS = 10
# At most this many buckets per line: days while the history spans no more, else weeks (from
# Monday), else months.
MAX_POINTS = 120
# Hover labels write a price the way a reader of a price list expects it: ¥1.88, $2.49.
CURRENCY_SYMBOL = {currency.value: currency.symbol for currency in vocab.Currency}


@dataclass
class PriceBucket:
    """The observations of one series in one day, week or month: their range, and the last of
    them (`close`, seen on `closed_on`), the price the line steps to."""

    start: date
    low: Decimal
    high: Decimal
    close: Decimal
    closed_on: date
    count: int
    source: Source | None = None  # the one source they cite, None when several
    sources: int = 1


@dataclass
class PriceSeries:
    """The price history of one offering in one billing unit, tier and currency, oldest first, in
    buckets of `bucket` ("day", "week" or "month"); `current` is the current price of its unit and
    tier when it is in this currency."""

    offering_id: int
    offering_name: str
    unit: str
    currency: str
    points: list[PriceBucket] = field(default_factory=list)
    tier: str = vocab.PriceTier.LIST
    bucket: str = "day"
    current: PriceObservation | None = None
    gpu_count: int = 1  # the offering's GPUs, for prices per GPU-hour

    @property
    def unit_label(self) -> str:
        return label(vocab.BillingUnit(self.unit))

    @property
    def tier_label(self) -> str:
        """The tier, for every tier but the list price (which is what a price is by default)."""
        return "" if self.tier == vocab.PriceTier.LIST else label(vocab.PriceTier(self.tier))

    @property
    def basis_label(self) -> str:
        """What its current price is when that is not a bookable offer (a market floor or
        statistic, a competitor's claim: vocab.PriceBasis), else ""."""
        basis = self.current.basis if self.current is not None else vocab.PriceBasis.OFFER
        return "" if basis == vocab.PriceBasis.OFFER else label(vocab.PriceBasis(basis))

    @property
    def recent_points(self) -> list[PriceBucket]:
        """The newest TABLE_POINTS buckets, newest first, for the table under the chart."""
        return self.points[: -TABLE_POINTS - 1 : -1]

    @property
    def older_points(self) -> int:
        """Observations in the buckets older than the table's."""
        return sum(p.count for p in self.points[:-TABLE_POINTS])

    @property
    def name(self) -> str:
        tier = f", {self.tier_label}" if self.tier_label else ""
        return f"{self.offering_name} · {self.unit_label} ({self.currency}{tier})"


def bucket_width(first: date, last: date) -> str:
    """Days while `first`..`last` spans at most MAX_POINTS of them, else weeks, else months."""
    days = (last - first).days + 1
    if days <= MAX_POINTS:
        return "day"
    return "week" if days <= MAX_POINTS * 7 else "month"


def price_history(
    offerings: Iterable[Offering], current: Mapping[int, list[PriceObservation]] | None = None
) -> list[PriceSeries]:
    """The price history of `offerings` (in their order) as bucketed series: four queries per
    call (where the history begins, its buckets, each bucket's last price, the sources they
    cite), whatever the history holds. `current`: each offering's current prices (the page's),
    held on the chart until now."""
    listed = list(offerings)
    if not listed:
        return []
    history = PriceObservation.objects.filter(offering__in=[o.pk for o in listed])
    begins = history.aggregate(first=Min("observed_at"))["first"]
    if begins is None:
        return []
    width = bucket_width(timezone.localdate(begins), timezone.localdate())
    bucketed = history.annotate(day=Trunc("observed_at", width, output_field=DateField()))
    keys = ("offering_id", "unit", "tier", "currency", "day")
    last = (
        bucketed.annotate(
            rank=Window(
                RowNumber(),
                partition_by=[F(k) for k in keys],
                order_by=[F("observed_at").desc(), F("pk").desc()],
            )
        )
        .filter(rank=1)
        .values_list(*keys, "amount", "observed_at")
    )
    closes = {tuple(row[:5]): (row[5], row[6]) for row in last}
    days = (
        bucketed.values(*keys)
        .annotate(
            low=Min("amount"),
            high=Max("amount"),
            count=Count("id"),
            first_source=Min("source_id"),
            sources=Count("source_id", distinct=True),
        )
        .order_by("offering_id", "unit", "tier", "currency", "day")
    )
    rows = list(days)
    cited = Source.objects.in_bulk({r["first_source"] for r in rows if r["sources"] == 1})
    by_key: dict[tuple[int, str, str, str], list[PriceBucket]] = {}
    for r in rows:
        source = cited.get(r["first_source"]) if r["sources"] == 1 else None
        close, closed_at = closes[tuple(r[k] for k in keys)]
        by_key.setdefault((r["offering_id"], r["unit"], r["tier"], r["currency"]), []).append(
            PriceBucket(
                r["day"],
                Decimal(r["low"]),
                Decimal(r["high"]),
                Decimal(close),
                timezone.localdate(closed_at),
                r["count"],
                source,
                r["sources"],
            )
        )
    latest = {
        (price.offering_id, price.unit, price.tier): price
        for prices in (current or {}).values()
        for price in prices
    }
    position = {o.pk: i for i, o in enumerate(listed)}
    names = {o.pk: o.name_text for o in listed}
    gpus = {o.pk: o.gpu_count for o in listed}
    series = []
    for (offering_id, unit, tier, currency), points in sorted(
        by_key.items(), key=lambda item: (position[item[0][0]], *item[0][1:])
    ):
        now_price = latest.get((offering_id, unit, tier))
        held = now_price if now_price is not None and now_price.currency == currency else None
        series.append(
            PriceSeries(
                offering_id,
                names[offering_id],
                unit,
                currency,
                points,
                tier,
                width,
                held,
                gpus[offering_id],
            )
        )
    return series


def _plot_time(moment: datetime) -> str:
    # Plotly ignores UTC offsets in date strings; give it wall-clock time in the site's zone.
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M:%S")


def _bucket_moment(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


def _bucket_text(s: PriceSeries, point: PriceBucket, symbol: str) -> str:
    low, high = format_amount(point.low), format_amount(point.high)
    price = f"{symbol}{format_amount(point.close)}"
    if low != high:  # the line steps to the last price; the others seen in its bucket beside it
        price = f"{price} ({symbol}{low}–{high})"
    seen = ngettext("%(n)s observation", "%(n)s observations", point.count) % {"n": point.count}
    source = (
        point.source.title_text
        if point.source is not None
        else ngettext("%(n)s source", "%(n)s sources", point.sources) % {"n": point.sources}
    )
    return f"{price} {s.unit_label} · {seen} · {source}"


def single_observations(series: list[PriceSeries]) -> bool:
    """Every series holds one observation: a list says it better than a chart of dots."""
    return all(len(s.points) == 1 and s.points[0].count == 1 for s in series)


def _per_gpu_hour(s: PriceSeries, amount: Decimal) -> Decimal:
    return vocab.price_per_gpu_hour(amount, s.unit, s.gpu_count)


def _step(day: date, width: str) -> date:
    if width == "day":
        return day + timedelta(days=1)
    if width == "week":
        return day + timedelta(days=7)
    return (day.replace(day=1) + timedelta(days=32)).replace(day=1)


def _held_days(s: PriceSeries, today: date) -> list[tuple[date, PriceBucket | None]]:
    """Each bucket of the series from its first to today: an observed one on the day its last
    price was seen, with its bucket; one in between (the price held) on its first day, with
    None, so a hover anywhere along the line finds a point (at most MAX_POINTS + 1 of them, the
    bucket width's bound)."""
    observed = {p.start: p for p in s.points}
    out: list[tuple[date, PriceBucket | None]] = []
    day = s.points[0].start
    while day <= today and len(out) <= MAX_POINTS + 1:
        point = observed.get(day)
        out.append((day, None) if point is None else (point.closed_on, point))
        day = _step(day, s.bucket)
    # Observations past the walk (a clock behind the data) are kept all the same.
    out.extend((p.closed_on, p) for p in s.points if p.start > today)
    return out


def _currencies_title(series: list[PriceSeries], text: str) -> str:
    currencies = sorted({s.currency for s in series})
    return text % {"currency": gettext(", ").join(currencies)}


def price_history_figure(
    series: list[PriceSeries], now: datetime | None = None
) -> dict[str, Any] | None:
    """A Plotly figure ({"data", "layout", "views"}): one step line per series through the
    prices it listed (each bucket's last, on the day it was seen), held at its current price
    until `now`, with a legend, and a range selector and slider bounded by the first price and
    `now` (so "1m" is the month to today, never a future). Two views of the same lines
    (static/js/charts.js switches them): per GPU-hour (the default: a price over its unit's hours
    and the offering's GPUs, so hourly and monthly plans share one axis) and as listed. The axis
    names the currency; every bucket between observations has a point of its own, so hovering
    anywhere on a line says its price. None when every series holds a single observation (the
    page lists them instead)."""
    if not series or single_observations(series):
        return None
    now = now or timezone.now()
    today = timezone.localdate(now)
    data = []
    views: dict[str, dict[str, Any]] = {
        "gpu_hour": {"y": [], "text": []},
        "listed": {"y": [], "text": []},
    }
    per_gpu = gettext("per GPU-hour")
    ends: list[str] = []  # each line's last moment
    for s in series:
        symbol = CURRENCY_SYMBOL.get(s.currency, f"{s.currency} ")
        held_amount = s.current.amount if s.current is not None else s.points[-1].close
        xs, sizes = [], []
        listed_y, listed_text, gpu_y, gpu_text = [], [], [], []
        last = s.points[0]
        for day, point in _held_days(s, today):
            xs.append(_plot_time(_bucket_moment(day)))
            if point is not None:
                last = point
                sizes.append(7)
                text = _bucket_text(s, point, symbol)
            else:
                sizes.append(0)
                text = gettext("%(price)s %(unit)s · unchanged") % {
                    "price": f"{symbol}{format_amount(last.close)}",
                    "unit": s.unit_label,
                }
            listed_y.append(float(last.close))
            listed_text.append(text)
            gpu = _per_gpu_hour(s, last.close)
            gpu_y.append(float(gpu))
            gpu_text.append(f"{symbol}{computed_price(gpu)} {per_gpu} · {text}")
        if now > _bucket_moment(s.points[-1].start):
            xs.append(_plot_time(now))
            sizes.append(0)
            current = gettext("%(price)s %(unit)s · still current") % {
                "price": f"{symbol}{format_amount(held_amount)}",
                "unit": s.unit_label,
            }
            listed_y.append(float(held_amount))
            listed_text.append(current)
            gpu = _per_gpu_hour(s, held_amount)
            gpu_y.append(float(gpu))
            gpu_text.append(f"{symbol}{computed_price(gpu)} {per_gpu} · {current}")
        ends.append(max(xs))
        views["gpu_hour"]["y"].append(gpu_y)
        views["gpu_hour"]["text"].append(gpu_text)
        views["listed"]["y"].append(listed_y)
        views["listed"]["text"].append(listed_text)
        data.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                # A market floor or statistic (or a claim) is a reference line, dashed and named.
                "name": f"{s.name} · {s.basis_label}" if s.basis_label else s.name,
                "x": xs,
                "y": gpu_y,
                "text": gpu_text,
                "hovertemplate": "%{x|%Y-%m-%d}<br>%{text}<extra>%{fullData.name}</extra>",
                "line": {"shape": "hv", "width": 2, **({"dash": "dash"} if s.basis_label else {})},
                "marker": {"size": sizes},
                "meta": {
                    "offering": s.offering_id,
                    "unit": s.unit,
                    "currency": s.currency,
                    "tier": s.tier,
                    "bucket": s.bucket,
                    "gpus": s.gpu_count,
                    "listed": [float(p.close) for p in s.points],
                },
            }
        )
    first = min(s.points[0].start for s in series)
    x_range = [_plot_time(_bucket_moment(first)), max(ends)]  # to now, or a later price
    amounts = [a for s in series for p in s.points for a in (p.low, p.high) if a > 0]
    log_listed = bool(amounts) and max(amounts) / min(amounts) > LOG_AXIS_SPREAD
    per_hour = [
        _per_gpu_hour(s, a) for s in series for p in s.points for a in (p.low, p.high) if a > 0
    ]
    log_gpu = bool(per_hour) and max(per_hour) / min(per_hour) > LOG_AXIS_SPREAD
    views["gpu_hour"]["title"] = _currencies_title(
        series,
        gettext("Price per GPU-hour (%(currency)s, log scale)")
        if log_gpu
        else gettext("Price per GPU-hour (%(currency)s)"),
    )
    views["gpu_hour"]["type"] = "log" if log_gpu else "linear"
    views["listed"]["title"] = _currencies_title(
        series,
        gettext("Price as listed (%(currency)s, log scale)")
        if log_listed
        else gettext("Price as listed (%(currency)s)"),
    )
    views["listed"]["type"] = "log" if log_listed else "linear"
    layout = {
        "margin": {"l": 64, "r": 16, "t": 16, "b": 40},
        "hovermode": "closest",
        "hoverdistance": 30,
        # The lines are the offerings the reader picked (at most CHART_MAX): each is named.
        "showlegend": True,
        "legend": {"orientation": "h", "y": -0.45, "yanchor": "top"},
        "xaxis": {
            "type": "date",
            # From the first price to now: the range buttons count back from today.
            "range": x_range,
            "autorange": False,
            "rangeselector": {
                "buttons": [
                    {"count": 1, "step": "month", "stepmode": "backward", "label": gettext("1m")},
                    {"count": 6, "step": "month", "stepmode": "backward", "label": gettext("6m")},
                    {"count": 1, "step": "year", "stepmode": "backward", "label": gettext("1y")},
                    {"step": "all", "label": gettext("all")},
                ]
            },
            "rangeslider": {"visible": True, "thickness": 0.08, "range": x_range},
        },
        "yaxis": {
            "title": {"text": views["gpu_hour"]["title"]},
            "type": views["gpu_hour"]["type"],
            "rangemode": "tozero",
            "fixedrange": True,
        },
    }
    figure = figure_text_escaped({"data": data, "layout": layout})
    for view in views.values():  # their hover texts name offerings and sources, as the traces do
        texts = figure_text_escaped({"data": [{"text": t} for t in view["text"]]})["data"]
        view["text"] = [t["text"] for t in texts]
    figure["views"] = views
    return figure
