"""Fixtures for the advisor page and its goldens: the seed catalogue at a fixed date."""

from __future__ import annotations

import pytest
import time_machine

from tests.conftest import NOW


@pytest.fixture
def seed(db):
    from platforms.seed import load_seed

    load_seed()


@pytest.fixture
def frozen():
    """The clock at tests.conftest.NOW, so price ages and staleness do not drift."""
    with time_machine.travel(NOW, tick=False):
        yield NOW
