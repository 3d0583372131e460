"""#1 against the next recommendations, for the results' "Explain #1 against #2": the table's
figures of #1 and #2 side by side, and for each of the next three a sentence of what #1 costs
and takes more or less (the engine's Comparison, `Recommendation.vs_first`), with what tells a
tie apart (the engine's own reason, found by its code).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from advisor import charts
from advisor.engine.messages import Code
from advisor.engine.ranking import Recommendation
from wording import messages

NEXT = 3  # recommendations #1 is set against


def plan_name(rec: Recommendation) -> str:
    """A recommendation by its platform and offering; a plan of several legs by each leg's."""
    legs = rec.legs or (rec,)
    return " + ".join(f"{leg.platform_name} · {leg.offering_name}" for leg in legs)


def _sentence(rec: Recommendation, currency: str, basis: str) -> str:
    vs = rec.vs_first
    assert vs is not None  # every recommendation after #1 has one
    amount = {"amount": charts.money_text(abs(vs.cost)), "currency": currency, "basis": basis}
    if vs.cost > 0:
        parts = [_("#1 costs %(amount)s %(currency)s less %(basis)s") % amount]
    elif vs.cost < 0:
        parts = [_("#1 costs %(amount)s %(currency)s more %(basis)s") % amount]
    else:
        parts = [_("#1 costs the same")]
    if vs.time_hours is not None and charts.hours_text(abs(vs.time_hours)) != charts.hours_text(0):
        shown = {"hours": charts.hours_text(abs(vs.time_hours))}
        if vs.time_hours > 0:
            parts.append(_("finishes %(hours)s h sooner") % shown)
        else:
            parts.append(_("takes %(hours)s h longer") % shown)
    name = plan_name(rec)
    text = _("Against #%(rank)s, %(name)s: %(parts)s.") % {
        "rank": rec.rank,
        "name": name,
        "parts": _(", ").join(parts),
    }
    # A tie: the engine's reason says it is one and what else tells the two apart.
    apart = [messages.render(m) for m in rec.reasons if m.code is Code.REASON_TIED_WITH_FIRST]
    return " ".join([text, *apart])


def explain_first(rows: list[dict[str, Any]], currency: str, basis: str) -> dict[str, Any] | None:
    """#1 and #2 side by side (rows as advisor.views._rows makes them) and the sentences; None
    with fewer than two recommendations."""
    if len(rows) < 2:
        return None
    recs = [r["rec"] for r in rows[: NEXT + 1]]
    return {
        "pair": rows[:2],
        "sentences": [_sentence(rec, currency, basis) for rec in recs[1:]],
    }
