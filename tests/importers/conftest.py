"""Importer test fixtures: the seeded accelerator table and the platforms the samples list."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from platforms.importers import observed_at_value, offers_import
from platforms.models import Platform, Source
from platforms.seed import SeedReport, load_accelerators

DATA = Path(__file__).parent / "data"
DAY_1 = date(2026, 11, 1)
DAY_2 = date(2026, 11, 20)


def sample(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


@pytest.fixture
def accelerators(db):
    return load_accelerators(SeedReport())


def make_platform(slug: str, name: str, delivery_forms: list[str]) -> Platform:
    source = Source.objects.create(
        title=f"{name} website", url=f"https://{slug}.example", kind="manual"
    )
    return Platform.objects.create(
        slug=slug,
        name=name,
        name_en=name,
        region="global",
        delivery_forms=delivery_forms,
        source=source,
    )


@pytest.fixture
def lambda_cloud(accelerators) -> Platform:
    return make_platform("lambda", "Lambda", ["cloud_vm"])


@pytest.fixture
def runpod(accelerators) -> Platform:
    return make_platform("runpod", "RunPod", ["cloud_container"])


@pytest.fixture
def aws(accelerators) -> Platform:
    return make_platform("aws", "AWS", ["cloud_vm"])


def run(text: str, fmt: str, platform: Platform | None, day: date = DAY_1, **options):
    """Import `text` observed on `day`, as the command and the admin do."""
    return offers_import(
        text=text,
        fmt=fmt,
        filename=options.pop("filename", f"{fmt}.csv"),
        observed_at=observed_at_value(day),
        platform=platform,
        **options,
    )
