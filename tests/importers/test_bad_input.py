"""Hostile cells in every format's rows are "line N: message" errors, in the dry run and on apply
alike, and nothing is written: a number too large to round (1e400), a value longer than the csv
module reads (128 KiB), a NUL character (which PostgreSQL's text refuses, so it used to pass the
dry run and crash the write)."""

from __future__ import annotations

import json

import pytest

from platforms.importers.rows import MAX_FIELD_CHARS
from platforms.models import Offering, PriceObservation

from .conftest import run

NATIVE = (
    "offering_key,name,accelerator,gpu_count,billing_unit,amount,currency,vcpus,ram_gib,disk_gb"
)
NATIVE_ROW = {
    "offering_key": "a10-1x",
    "name": "A10",
    "accelerator": "A10",
    "gpu_count": "1",
    "billing_unit": "hour",
    "amount": "1.29",
    "currency": "USD",
    "vcpus": "30",
    "ram_gib": "200",
    "disk_gb": "512",
}
GPUHUNT = "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot,disk_size"
GPUHUNT_ROW = {
    "instance_name": "gpu_1x_a10",
    "location": "us-east-1",
    "price": "1.29",
    "cpu": "30",
    "memory": "200",
    "gpu_count": "1",
    "gpu_name": "A10",
    "gpu_memory": "24",
    "spot": "False",
    "disk_size": "512",
}
SKYPILOT = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice"
)
SKYPILOT_ROW = {
    "InstanceType": "gpu_1x_a10",
    "AcceleratorName": "A10",
    "AcceleratorCount": "1",
    "vCPUs": "30",
    "MemoryGiB": "200",
    "Price": "1.29",
    "Region": "us-east-1",
    "GpuInfo": "",
    "SpotPrice": "0.5",
}
CSV_FORMATS = {
    "native": (NATIVE, NATIVE_ROW),
    "gpuhunt": (GPUHUNT, GPUHUNT_ROW),
    "skypilot": (SKYPILOT, SKYPILOT_ROW),
}
# Every number column of each CSV format.
NUMBER_COLUMNS = [
    ("native", "gpu_count"),
    ("native", "amount"),
    ("native", "vcpus"),
    ("native", "ram_gib"),
    ("native", "disk_gb"),
    ("gpuhunt", "price"),
    ("gpuhunt", "cpu"),
    ("gpuhunt", "memory"),
    ("gpuhunt", "gpu_count"),
    ("gpuhunt", "gpu_memory"),
    ("gpuhunt", "disk_size"),
    ("skypilot", "AcceleratorCount"),
    ("skypilot", "vCPUs"),
    ("skypilot", "MemoryGiB"),
    ("skypilot", "Price"),
    ("skypilot", "SpotPrice"),
]
# Every text column of each CSV format that the catalogue stores.
TEXT_COLUMNS = [
    ("native", "offering_key"),
    ("native", "name"),
    ("native", "accelerator"),
    ("gpuhunt", "instance_name"),
    ("gpuhunt", "location"),
    ("gpuhunt", "gpu_name"),
    ("skypilot", "InstanceType"),
    ("skypilot", "AcceleratorName"),
    ("skypilot", "Region"),
]


# The columns that make an offering's key: the bad row changes one to be an offering of its own.
KEY_COLUMNS = {"native": ["offering_key"], "gpuhunt": ["instance_name", "location"]}
KEY_COLUMNS["skypilot"] = ["InstanceType", "Region"]


def csv_file(fmt: str, column: str, value: str) -> str:
    """A good first row and, on line 3, the same with `column` set to `value`."""
    header, row = CSV_FORMATS[fmt]
    names = header.split(",")
    bad = {**row, column: value}
    if column not in KEY_COLUMNS[fmt]:
        key = KEY_COLUMNS[fmt][0]
        bad[key] += "-2"
    good = ",".join(row[name] for name in names)
    return f"{header}\n{good}\n{','.join(bad[name] for name in names)}\n"


def both_runs(text: str, fmt: str, platform):
    """The dry run's and the import's errors as the admin and the command show them."""
    preview = run(text, fmt, platform, dry_run=True)
    report = run(text, fmt, platform)
    assert not report.applied
    assert (Offering.objects.count(), PriceObservation.objects.count()) == (0, 0)
    return [str(p) for p in preview.errors], [str(p) for p in report.errors]


@pytest.mark.parametrize(
    ("fmt", "column", "value"),
    [(fmt, column, "1e400") for fmt, column in NUMBER_COLUMNS]
    + [("native", "amount", "9" * 40), ("skypilot", "vCPUs", "1e19")],
)
def test_a_number_too_large_is_an_error_on_its_line(lambda_cloud, fmt, column, value):
    preview, applied = both_runs(csv_file(fmt, column, value), fmt, lambda_cloud)

    assert preview == applied
    assert len(preview) == 1 and preview[0].startswith("line 3: ")
    assert f"{column} is too large: " in preview[0], preview


@pytest.mark.parametrize(
    ("fmt", "column"),
    [
        ("native", "name"),
        ("native", "amount"),
        ("gpuhunt", "instance_name"),
        ("gpuhunt", "memory"),
        ("skypilot", "Region"),
        ("skypilot", "Price"),
    ],
)
def test_a_nul_character_is_an_error_on_its_line_not_a_crash_when_written(
    lambda_cloud, fmt, column
):
    value = CSV_FORMATS[fmt][1][column] + "\x00x"
    preview, applied = both_runs(csv_file(fmt, column, value), fmt, lambda_cloud)

    assert preview == applied == [f"line 3: {column} contains a NUL character (\\x00)"]


@pytest.mark.parametrize("fmt", CSV_FORMATS)
def test_a_value_longer_than_the_csv_reader_takes_is_an_error_on_its_line(lambda_cloud, fmt):
    column = CSV_FORMATS[fmt][0].split(",")[1]
    text = csv_file(fmt, column, "x" * (MAX_FIELD_CHARS + 1))
    assert len(text.encode()) > 128 * 1024

    preview, applied = both_runs(text, fmt, lambda_cloud)

    assert preview == applied == [f"line 3: a value is longer than {MAX_FIELD_CHARS:,} characters"]


ACCELERATOR_COLUMNS = {("native", "accelerator"), ("gpuhunt", "gpu_name")}
ACCELERATOR_COLUMNS.add(("skypilot", "AcceleratorName"))


@pytest.mark.parametrize(("fmt", "column"), TEXT_COLUMNS)
def test_a_long_text_value_is_refused_by_its_columns_limit_and_quoted_short(
    lambda_cloud, fmt, column
):
    """Each column's own limit refuses it (an accelerator name that long names no accelerator,
    and its row is skipped as such); every message stays short."""
    text = csv_file(fmt, column, "y" * (MAX_FIELD_CHARS - 10))

    preview = run(text, fmt, lambda_cloud, dry_run=True)
    report = run(text, fmt, lambda_cloud, strict=True)

    problems = [str(p) for p in preview.errors + preview.skipped + report.errors]
    assert problems and all(p.startswith("line 3: ") for p in problems), problems
    assert max(len(p) for p in problems) < 300
    assert all(len(line) < 300 for line in preview.summary_lines())
    if (fmt, column) in ACCELERATOR_COLUMNS:
        assert [p.line for p in preview.skipped] == [3] and not preview.errors
    assert not report.applied and not Offering.objects.exists()


def test_a_bad_value_is_quoted_cut_short_in_its_message(lambda_cloud):
    text = csv_file("native", "amount", "z" * 10_000)

    preview, _ = both_runs(text, "native", lambda_cloud)

    assert preview == [f"line 3: amount is not a number: '{'z' * 40}'... (10,000 characters)"]


def feed(offer_changes: dict | None = None, price_changes: dict | None = None) -> str:
    offer = {"key": "a10-1x", "name": "A10", "accelerator": "A10", "gpu_count": 1}
    price = {"unit": "hour", "amount": "1.29", "currency": "USD"}
    second = {
        **offer,
        "key": "a10-2x",
        **(offer_changes or {}),
        "prices": [{**price, **(price_changes or {})}],
    }
    return json.dumps(
        {"version": 1, "platform": "lambda", "offers": [{**offer, "prices": [price]}, second]}
    )


@pytest.mark.parametrize(
    ("offer", "price", "message"),
    [
        (None, {"amount": "1e400"}, "offers[1]: prices[0].amount is too large: '1e400'"),
        (None, {"amount": 1e300 * 1e300}, "offers[1]: prices[0].amount is not a finite number"),
        ({"gpu_count": "1e400"}, None, "offers[1]: gpu_count is too large: '1e400'"),
        ({"ram_gib": "1e400"}, None, "offers[1]: ram_gib is too large: '1e400'"),
        ({"vcpus": 10**40}, None, "offers[1]: vcpus is too large"),
        ({"name": "A\x0010"}, None, "offers[1]: name contains a NUL character (\\u0000)"),
        ({"region": "\x00"}, None, "offers[1]: region contains a NUL character (\\u0000)"),
    ],
)
def test_the_json_feed_refuses_the_same_values_on_the_offers_line(
    lambda_cloud, offer, price, message
):
    text = feed(offer, price).replace("Infinity", "1e400")

    preview, applied = both_runs(text, "json", lambda_cloud)

    assert preview == applied
    assert len(preview) == 1 and preview[0].startswith(f"line 2: {message}"), preview


def test_a_nul_in_an_unknown_key_is_quoted_not_stored(lambda_cloud):
    text = feed({"colour\x00": "red"})

    preview, applied = both_runs(text, "json", lambda_cloud)

    assert preview == applied == ["line 2: offers[1]: unknown key(s): colour\\x00"]
