"""The engine's user-facing errors.

`AdvisorError` and its subclasses carry a message a person can act on; views and the API turn them
into 400 responses with field messages, the CLI into a non-zero exit. Any other exception from the
engine is a bug.
"""

from __future__ import annotations


class AdvisorError(Exception):
    """Something the user can fix: bad input, an impossible combination, nothing fits."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field

    def as_dict(self) -> dict[str, str]:
        return {"field": self.field or "non_field_errors", "message": self.message}

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message


class InvalidWorkload(AdvisorError):
    """A field of the scenario is wrong, or fields contradict each other."""


class NoFit(AdvisorError):
    """The scenario is valid, but nothing in the given hardware or catalogue can run it."""
