"""The price feeds a fresh install defines: fixtures/feeds.json, loaded when the seed is
(`manage.py load_seed`, `make setup`: platforms.seed sends `seed_loaded`, feeds.apps connects
`on_seed_loaded` to it, since the catalogue may not import the feeds).

One SkyPilot feed per cloud with GPUs whose catalog SkyPilot publishes, at the address SkyPilot
itself reads it from (skypilot-org/skypilot `sky/skylet/constants.py`: HOSTED_CATALOG_DIR_URL
`https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs`, schema `v8`),
onto that cloud's platform; and the ECB's daily euro reference rates
(https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml), which write the USD/CNY rate.
Each feed's schedule follows its source's cadence (`cadence` in the file).

Like the rest of the seed it only creates what is missing: a feed staff changed (its schedule, or
switched off) is left as it is. A feed whose platform the catalogue lacks is not created. The
feeds run only where FEEDS_ENABLED is on (production): `make run` and the tests never fetch.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings

from platforms.models import Platform

from .models import Feed

SHIPPED = Path(settings.BASE_DIR) / "fixtures" / "feeds.json"


def shipped_feeds(path: Path | None = None) -> list[dict[str, Any]]:
    feeds: list[dict[str, Any]] = json.loads((path or SHIPPED).read_text(encoding="utf-8"))["feeds"]
    return feeds


def load_shipped_feeds(path: Path | None = None) -> tuple[int, list[str]]:
    """Create the shipped feeds that are missing; returns (created, names left out for want of
    their platform)."""
    created, left_out = 0, []
    for row in shipped_feeds(path):
        platform = None
        if row["platform"]:
            platform = Platform.objects.filter(slug=row["platform"]).first()
            if platform is None:
                left_out.append(row["name"])
                continue
        if Feed.objects.filter(name=row["name"]).exists():
            continue
        feed = Feed(
            name=row["name"],
            url=row["url"],
            format=row["format"],
            platform=platform,
            schedule=row["schedule"],
        )
        feed.full_clean()
        feed.save()
        created += 1
    return created, left_out


def on_seed_loaded(sender: object, report: Any, **kwargs: object) -> None:
    """platforms.seed.seed_loaded's receiver: the shipped feeds, counted in the seed's report."""
    created, _left_out = load_shipped_feeds()
    report.add("price feeds", True, created)
