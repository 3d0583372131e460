"""The import report: what an import did (or, in a dry run, would do) to each offering, the rows it
skipped and why, the rows it refused, and the summary the command and the admin print.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from platforms.models import Source

from .registry import FORMAT_LABELS
from .rows import RowProblem


@dataclass
class Change:
    """What the import does (or would do) to one offering."""

    action: str  # "created" | "updated" | "unchanged"
    platform: str
    external_id: str
    lines: list[int]
    details: list[str] = field(default_factory=list)


# Changes kept with their details (the admin's preview lists at most this many); the counts cover
# every offering of the file. A catalog of 100,000 offerings would otherwise keep 100,000 lists.
CHANGES_KEPT = 1000


@dataclass
class ImportReport:
    fmt: str
    filename: str
    dry_run: bool
    total_rows: int = 0
    # The first CHANGES_KEPT changes, in the order their offerings' last rows come in the file;
    # `actions` counts them all.
    changes: list[Change] = field(default_factory=list)
    actions: Counter[str] = field(default_factory=Counter)
    skipped: list[RowProblem] = field(default_factory=list)
    errors: list[RowProblem] = field(default_factory=list)
    merged: int = 0
    prices_added: int = 0
    prices_seen: int = 0
    # Storage and no-GPU-mode prices of platforms (native CSV rows with a `record`).
    platform_prices_added: int = 0
    applied: bool = False
    sources: list[Source] = field(default_factory=list)
    # Every offering the file describes, as (platform slug, external id): what a feed's file
    # lists, so that a feed run can tell the offerings that left it (feeds.services).
    listed: set[tuple[str, str]] = field(default_factory=set)

    @property
    def ok(self) -> bool:
        return not self.errors

    def add_change(self, change: Change) -> None:
        self.actions[change.action] += 1
        self.listed.add((change.platform, change.external_id))
        if len(self.changes) < CHANGES_KEPT:
            self.changes.append(change)

    @property
    def offerings(self) -> int:
        """Offerings the file describes (created, updated or unchanged), kept or not."""
        return sum(self.actions.values())

    def count(self, action: str) -> int:
        return self.actions[action]

    @property
    def created(self) -> int:
        return self.count("created")

    @property
    def updated(self) -> int:
        return self.count("updated")

    @property
    def unchanged(self) -> int:
        return self.count("unchanged")

    @property
    def skipped_rows(self) -> int:
        return len({problem.line for problem in self.skipped})

    def skipped_by_reason(self) -> list[tuple[str, int, str]]:
        """(reason, rows, their lines as ranges), most frequent first."""
        lines: dict[str, list[int]] = defaultdict(list)
        for problem in self.skipped:
            lines[problem.reason].append(problem.line)
        counts = Counter({reason: len(found) for reason, found in lines.items()})
        return [(reason, n, line_ranges(lines[reason])) for reason, n in counts.most_common()]

    def summary_lines(self) -> list[str]:
        verb = "would be " if not self.applied else ""
        lines = [
            f"{FORMAT_LABELS.get(self.fmt, self.fmt)} {self.filename}: {self.total_rows} rows"
            + (" (dry run: nothing written)" if self.dry_run else ""),
            f"offerings {verb}created {self.created}, updated {self.updated}, "
            f"unchanged {self.unchanged}",
            f"prices {verb}added {self.prices_added}, re-seen {self.prices_seen}",
        ]
        if self.platform_prices_added:
            lines.append(f"storage and no-GPU-mode prices {verb}added {self.platform_prices_added}")
        if self.merged:
            lines.append(
                f"merged {self.merged} rows into an earlier row's offering "
                "(same instance and region, e.g. another zone: lowest price kept)"
            )
        lines.append(f"skipped {self.skipped_rows} rows")
        lines += [
            f"  {reason}: {n} (lines {ranges})" for reason, n, ranges in self.skipped_by_reason()
        ]
        nothing = "; nothing was written" if self.errors else ""
        lines.append(f"errors {len(self.errors)}{nothing}")
        return lines


def line_ranges(lines: Iterable[int]) -> str:
    """ "2-18, 40" for [2, 3, ..., 18, 40]."""
    ordered = sorted(set(lines))
    parts = []
    start = prev = None
    for line in [*ordered, None]:
        if start is not None and prev is not None and line == prev + 1:
            prev = line
            continue
        if start is not None:
            parts.append(str(start) if start == prev else f"{start}-{prev}")
        start = prev = line
    return ", ".join(parts)
