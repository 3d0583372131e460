"""Figure data for the platform page: the price history of each offering and billing unit.

One ordered query reads the platform's observations; consecutive rows of one (offering, unit,
price tier, currency) become one step-shaped Plotly trace, and the last row of each is a current
price (a member price is its own line beside the list price, never a step of it).
Nothing is cached, so a price staff add in the admin is on the chart at the next page load.
Offering and source names are escaped for Plotly (safe_text), which would read them as markup.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from itertools import groupby
from typing import Any

from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext

from advisor.engine import vocab

from .choices import label
from .models import Platform, PriceObservation, in_page_language
from .safe_text import figure_text_escaped
from .templatetags.catalogue import amount as format_amount

# A platform's prices per second and per month differ ten-thousandfold; past this spread the y axis
# is logarithmic so every line stays readable.
LOG_AXIS_SPREAD = 20
# The table under the chart lists this many of the newest observations per series; the whole
# history is in the API (offerings/{id}/prices/) and on the chart.
TABLE_POINTS = 20
# Hover labels write a price the way a reader of a price list expects it: ¥1.88, $2.49.
CURRENCY_SYMBOL = {currency.value: currency.symbol for currency in vocab.Currency}


@dataclass
class PriceSeries:
    """The price history of one offering in one billing unit and currency, oldest first."""

    offering_id: int
    offering_name: str
    unit: str
    currency: str
    points: list[PriceObservation] = field(default_factory=list)
    tier: str = vocab.PriceTier.LIST

    @property
    def unit_label(self) -> str:
        return label(vocab.BillingUnit(self.unit))

    @property
    def tier_label(self) -> str:
        """The tier, for every tier but the list price (which is what a price is by default)."""
        return "" if self.tier == vocab.PriceTier.LIST else label(vocab.PriceTier(self.tier))

    @property
    def recent_points(self) -> list[PriceObservation]:
        """The newest TABLE_POINTS observations, newest first, for the table under the chart."""
        return self.points[: -TABLE_POINTS - 1 : -1]

    @property
    def older_points(self) -> int:
        return max(0, len(self.points) - TABLE_POINTS)

    @property
    def name(self) -> str:
        tier = f", {self.tier_label}" if self.tier_label else ""
        return f"{self.offering_name} · {self.unit_label} ({self.currency}{tier})"


def price_history(platform: Platform) -> list[PriceSeries]:
    """Every price observation of the platform's listed offerings, with sources, as series.

    One query, ordered so that each (offering, unit, tier, currency) is a run of consecutive rows;
    the platform page also reads the current prices from it (the last point of each unit and tier).
    """
    observations = (
        PriceObservation.objects.filter(offering__platform=platform, offering__is_active=True)
        .select_related("source")
        .annotate(offering_name=F("offering__name"), offering_name_zh=F("offering__name_zh"))
        .order_by("offering__name", "offering_id", "unit", "tier", "currency", "observed_at", "pk")
    )
    series = []
    for (offering_id, name, unit, tier, currency), group in groupby(
        observations,
        key=lambda o: (
            o.offering_id,
            # offering_name(_zh): the queryset's annotations, which the model's type does not carry.
            in_page_language(o.offering_name, o.offering_name_zh),  # type: ignore[attr-defined]
            o.unit,
            o.tier,
            o.currency,
        ),
    ):
        series.append(PriceSeries(offering_id, name, unit, currency, list(group), tier))
    return series


def current_prices(series: list[PriceSeries]) -> dict[int, list[PriceObservation]]:
    """The current price per offering, unit and tier (its latest observation, whatever the
    currency), keyed by offering id and ordered from the shortest billing unit to the longest,
    the list price before the other tiers."""
    latest: dict[tuple[int, str, str], PriceObservation] = {}
    for s in series:
        last = s.points[-1]
        known = latest.get((s.offering_id, s.unit, s.tier))
        if known is None or (last.observed_at, last.pk) > (known.observed_at, known.pk):
            latest[(s.offering_id, s.unit, s.tier)] = last
    order = {unit.value: i for i, unit in enumerate(vocab.BillingUnit)}
    tiers = {tier.value: i for i, tier in enumerate(vocab.PriceTier)}
    by_offering: dict[int, list[PriceObservation]] = {}
    for (offering_id, _unit, _tier), price in sorted(
        latest.items(), key=lambda item: (item[0][0], order[item[0][1]], tiers[item[0][2]])
    ):
        by_offering.setdefault(offering_id, []).append(price)
    return by_offering


def _plot_time(moment: datetime) -> str:
    # Plotly ignores UTC offsets in date strings; give it wall-clock time in the site's zone.
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M:%S")


def price_history_figure(series: list[PriceSeries], now: datetime | None = None) -> dict[str, Any]:
    """A Plotly figure ({"data", "layout"}): one step line per series, held at its current price
    until `now` so today's price is visible as a segment, with a range selector and slider."""
    now = now or timezone.now()
    data = []
    for s in series:
        xs = [_plot_time(p.observed_at) for p in s.points]
        ys = [float(p.amount) for p in s.points]
        symbol = CURRENCY_SYMBOL.get(s.currency, f"{s.currency} ")
        texts = [
            f"{symbol}{format_amount(p.amount)} {s.unit_label} · {p.source.title_text}"
            for p in s.points
        ]
        sizes = [7] * len(xs)
        if now > s.points[-1].observed_at:
            xs.append(_plot_time(now))
            ys.append(ys[-1])
            texts.append(
                gettext("%(price)s %(unit)s · still current")
                % {"price": f"{symbol}{format_amount(s.points[-1].amount)}", "unit": s.unit_label}
            )
            sizes.append(0)
        data.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": s.name,
                "x": xs,
                "y": ys,
                "text": texts,
                "hovertemplate": "%{x|%Y-%m-%d}<br>%{text}<extra>%{fullData.name}</extra>",
                "line": {"shape": "hv", "width": 2},
                "marker": {"size": sizes},
                "meta": {
                    "offering": s.offering_id,
                    "unit": s.unit,
                    "currency": s.currency,
                    "tier": s.tier,
                },
            }
        )
    amounts = [p.amount for s in series for p in s.points if p.amount > 0]
    log_axis = bool(amounts) and max(amounts) / min(amounts) > LOG_AXIS_SPREAD
    layout = {
        "margin": {"l": 56, "r": 16, "t": 16, "b": 40},
        "hovermode": "closest",
        "showlegend": True,
        "legend": {"orientation": "h", "y": -0.45, "yanchor": "top"},
        "xaxis": {
            "type": "date",
            "rangeselector": {
                "buttons": [
                    {"count": 1, "step": "month", "stepmode": "backward", "label": gettext("1m")},
                    {"count": 6, "step": "month", "stepmode": "backward", "label": gettext("6m")},
                    {"count": 1, "step": "year", "stepmode": "backward", "label": gettext("1y")},
                    {"step": "all", "label": gettext("all")},
                ]
            },
            "rangeslider": {"visible": True, "thickness": 0.08},
        },
        "yaxis": {
            "title": {
                "text": gettext("Price as listed (log scale)")
                if log_axis
                else gettext("Price as listed")
            },
            "type": "log" if log_axis else "linear",
            "rangemode": "tozero",
            "fixedrange": True,
        },
    }
    return figure_text_escaped({"data": data, "layout": layout})
