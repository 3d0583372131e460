"""When a feed runs: every N minutes, hours or days ("30m", "6h", "1d"), or a five-field crontab
("0 3 * * *": minute, hour, day of month, month, day of week; in the site's time zone).

A crontab's fields are read by Celery's parser (ranges, steps, lists, weekday names); a day must
match both the day of month and the day of week, as in Celery's own crontab.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from celery.schedules import crontab
from django.utils import timezone
from django.utils.translation import gettext as _

INTERVAL = re.compile(r"^\s*(\d+)\s*(m|min|h|d)\s*$", re.IGNORECASE)
UNIT_MINUTES = {"m": 1, "min": 1, "h": 60, "d": 24 * 60}
# Long enough for any crontab that can match at all (29 February comes every four years).
SEARCH_DAYS = 4 * 366 + 1


class ScheduleError(ValueError):
    """A schedule that cannot be read; the message says what is accepted."""


@dataclass(frozen=True)
class Schedule:
    text: str
    interval: timedelta | None = None
    minutes: tuple[int, ...] = ()
    hours: tuple[int, ...] = ()
    days_of_month: frozenset[int] = frozenset()
    months: frozenset[int] = frozenset()
    # Celery's numbering: 0 is Sunday.
    days_of_week: frozenset[int] = frozenset()

    def next_after(self, moment: datetime) -> datetime:
        """The first time after `moment` the feed is due."""
        if self.interval is not None:
            return moment + self.interval
        local = timezone.localtime(moment)
        day = local.date()
        for _day in range(SEARCH_DAYS):
            if self._matches(day):
                for hour in self.hours:
                    for minute in self.minutes:
                        candidate = timezone.make_aware(datetime.combine(day, time(hour, minute)))
                        if candidate > moment:
                            return candidate
            day += timedelta(days=1)
        raise ScheduleError(_("The crontab %(text)s never matches a day.") % {"text": self.text})

    def _matches(self, day: date) -> bool:
        return (
            day.month in self.months
            and day.day in self.days_of_month
            and (day.isoweekday() % 7) in self.days_of_week
        )


def parse(text: str) -> Schedule:
    """A schedule from its text; ScheduleError names what is wrong."""
    found = INTERVAL.match(text)
    if found:
        count = int(found.group(1))
        if count < 1:
            raise ScheduleError(_("An interval must be at least 1 minute."))
        minutes = count * UNIT_MINUTES[found.group(2).lower()]
        return Schedule(text=text.strip(), interval=timedelta(minutes=minutes))
    fields = text.split()
    if len(fields) != 5:
        raise ScheduleError(
            _(
                "A schedule is an interval (30m, 6h, 1d) or a crontab of five fields "
                "(minute hour day-of-month month day-of-week), not %(text)r."
            )
            % {"text": text}
        )
    minute, hour, day_of_month, month, day_of_week = fields
    try:
        spec = crontab(
            minute=minute,
            hour=hour,
            day_of_month=day_of_month,
            month_of_year=month,
            day_of_week=day_of_week,
        )
    except ValueError as exc:
        raise ScheduleError(
            _("Not a crontab %(text)r: %(error)s") % {"text": text, "error": exc}
        ) from None
    # The expanded fields (sets of numbers) are attributes the type stubs do not list.
    expanded: dict[str, set[int]] = vars(spec)
    schedule = Schedule(
        text=" ".join(fields),
        minutes=tuple(sorted(expanded["minute"])),
        hours=tuple(sorted(expanded["hour"])),
        days_of_month=frozenset(expanded["day_of_month"]),
        months=frozenset(expanded["month_of_year"]),
        days_of_week=frozenset(expanded["day_of_week"]),
    )
    schedule.next_after(timezone.now())  # "30 2 31 2 *" (31 February) is an error now, not later
    return schedule
