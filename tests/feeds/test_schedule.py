"""Feed schedules: intervals and crontabs in the site's time zone (Asia/Shanghai)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from feeds.schedule import ScheduleError, parse


def local(*args: int) -> datetime:
    return timezone.make_aware(datetime(*args))


@pytest.mark.parametrize(
    ("text", "delta"),
    [
        ("30m", timedelta(minutes=30)),
        ("6h", timedelta(hours=6)),
        ("1d", timedelta(days=1)),
        (" 2 D ", timedelta(days=2)),
        ("90min", timedelta(minutes=90)),
    ],
)
def test_an_interval_counts_from_the_last_run(text, delta):
    start = local(2026, 11, 20, 10, 7)

    assert parse(text).next_after(start) == start + delta


@pytest.mark.parametrize(
    ("text", "after", "expected"),
    [
        ("0 3 * * *", local(2026, 11, 20, 10, 0), local(2026, 11, 21, 3, 0)),
        ("0 3 * * *", local(2026, 11, 20, 2, 59), local(2026, 11, 20, 3, 0)),
        ("0 3 * * *", local(2026, 11, 20, 3, 0), local(2026, 11, 21, 3, 0)),
        ("*/15 * * * *", local(2026, 11, 20, 10, 7), local(2026, 11, 20, 10, 15)),
        # 2026-11-20 is a Friday: the next weekday morning is Monday.
        ("30 8 * * mon-fri", local(2026, 11, 20, 9, 0), local(2026, 11, 23, 8, 30)),
        ("0 0 1 * *", local(2026, 11, 20, 9, 0), local(2026, 12, 1, 0, 0)),
        ("0 12 29 2 *", local(2026, 11, 20, 9, 0), local(2028, 2, 29, 12, 0)),
    ],
)
def test_a_crontab_finds_its_next_time(text, after, expected):
    assert parse(text).next_after(after) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "A schedule is an interval"),
        ("daily", "A schedule is an interval"),
        ("0m", "at least 1 minute"),
        ("0 3 * *", "A schedule is an interval"),
        ("61 * * * *", "Not a crontab"),
        ("0 3 * * someday", "Not a crontab"),
        ("0 0 31 2 *", "never occurs"),
    ],
)
def test_a_bad_schedule_says_what_is_accepted(text, message):
    with pytest.raises(ScheduleError, match=message):
        parse(text)
