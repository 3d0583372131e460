"""The engine's user-facing errors.

`AdvisorError` and its subclasses carry a `Message` (a code with parameters) a person can act on,
and the scenario field it is about; views and the API render the message in the reader's language
and answer 400 (422 for `NoFit`), the CLI prints it in English and exits non-zero. Any other
exception from the engine is a bug.
"""

from __future__ import annotations

from dataclasses import dataclass

from advisor.engine.messages import Code, Message, Param


class AdvisorError(Exception):
    """Something the user can fix: bad input, an impossible combination, nothing fits."""

    def __init__(self, detail: Message | Code, field: str | None = None, **params: Param) -> None:
        self.detail = detail if isinstance(detail, Message) else Message(detail, params)
        self.field = field
        super().__init__(self.message)

    @property
    def code(self) -> Code:
        return self.detail.code

    @property
    def message(self) -> str:
        """The message in English (the CLI's language); the edge renders `detail` per language."""
        return self.detail.english()

    def as_dict(self) -> dict[str, str]:
        return {"field": self.field or "non_field_errors", "message": self.message}

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message


class InvalidWorkload(AdvisorError):
    """A field of the scenario is wrong, or fields contradict each other."""


@dataclass(frozen=True)
class ClosestMiss:
    """The offering that came nearest to running a scenario, and why it does not.

    `closeness` is what the reason measures: bytes short (does not fit), hours (misses the
    deadline) or the busiest month's cost in the scenario's currency (over budget)."""

    reason: Code
    offering_id: int | str
    platform: str
    accelerator: str  # slug
    closeness: float
    label: Message  # the offering on its platform, with the reason's figure
    gpus_per_instance: int = 1  # the offering's: what "more GPUs" fills whole instances of


class NoFit(AdvisorError):
    """The scenario is valid, but nothing in the given hardware or catalogue can run it."""

    # Platforms in scope with no current price at all, as (slug, name) (advise.advise).
    unpriced_platforms: tuple[tuple[str, str], ...] = ()
    # The nearest miss, by the first of over budget, misses the deadline, does not fit.
    closest_miss: ClosestMiss | None = None
    # Offerings left out, by the reason's code, most first (what a suggestion may relax).
    rejected: tuple[tuple[Code, int], ...] = ()
