"""An import reads its file in two passes (rows.MergedRows): the offerings it plans are those the
whole-file parser merges in memory (`parse`), with the same errors and merged count, however far
apart an offering's rows are and even when every key shares one hash."""

from __future__ import annotations

from decimal import Decimal

import pytest

from platforms.importers import rows
from platforms.importers.registry import FORMATS, rows_for

from .conftest import sample

SAMPLES = [
    ("skypilot", "skypilot-v8-aws-vms.csv"),
    ("skypilot", "skypilot-v8-lambda-vms.csv"),
    ("skypilot", "skypilot-v8-runpod-vms.csv"),
    ("gpuhunt", "gpuhunt-sample.csv"),
    ("native", "native-sample.csv"),
]
# SkyPilot samples read in their cloud's dialect (GCP joins GPU rows to host rows read earlier).
CLOUD_SAMPLES = [
    ("gcp", "skypilot-v8-gcp-vms.csv"),
    ("azure", "skypilot-v8-azure-gpu-vms.csv"),
    ("hyperstack", "skypilot-v8-hyperstack-vms.csv"),
    ("nebius", "skypilot-v8-nebius-vms.csv"),
    ("vastai", "skypilot-v8-vast-vms.csv"),
    ("verda", "skypilot-v8-verda-vms.csv"),
]
HEADER = "offering_key,name,accelerator,gpu_count,billing_unit,amount,currency,observed_at\n"


def offering(row: rows.OfferRow) -> tuple[object, ...]:
    return (rows.offer_key(row), sorted(row.lines), sorted(row.prices, key=repr), row.hardware())


def both(fmt: str, text: str) -> tuple[rows.Parsed, rows.Parsed, int]:
    """The whole-file parse, and what the two passes give (their rows put into a Parsed)."""
    whole = FORMATS[fmt].parse(text)
    source = rows_for(fmt, text)
    streamed = source.scan()
    streamed.rows = list(source.offerings(streamed.errors))
    streamed.merged = source.merged
    return whole, streamed, source.rows_read


def assert_same(whole: rows.Parsed, streamed: rows.Parsed) -> None:
    assert sorted(map(offering, streamed.rows), key=repr) == sorted(
        map(offering, whole.rows), key=repr
    )
    assert sorted(streamed.errors, key=repr) == sorted(whole.errors, key=repr)
    assert (streamed.total, streamed.skipped, streamed.merged) == (
        whole.total,
        whole.skipped,
        whole.merged,
    )
    assert (streamed.storage, streamed.idle_modes) == (whole.storage, whole.idle_modes)


@pytest.mark.parametrize(("cloud", "name"), CLOUD_SAMPLES)
def test_the_two_passes_read_each_cloud_as_the_whole_file_does(cloud, name):
    from platforms.importers import skypilot

    text = sample(name)
    whole = skypilot.parse(text, cloud)
    source = rows_for("skypilot", text, cloud)
    streamed = source.scan()
    streamed.rows = list(source.offerings(streamed.errors))
    streamed.merged = source.merged

    assert whole.rows and not whole.errors
    assert_same(whole, streamed)


@pytest.mark.parametrize(("fmt", "name"), SAMPLES)
def test_the_two_passes_give_the_offerings_of_the_whole_file(fmt, name):
    whole, streamed, read = both(fmt, sample(name))

    assert whole.rows and read == whole.total
    assert_same(whole, streamed)


@pytest.mark.parametrize(("fmt", "name"), SAMPLES)
def test_keys_of_one_hash_wait_for_each_other_and_still_merge_alike(fmt, name, monkeypatch):
    whole = FORMATS[fmt].parse(sample(name))
    monkeypatch.setattr(rows, "hash", lambda key: 0, raising=False)
    _, streamed, _ = both(fmt, sample(name))

    assert_same(whole, streamed)


def test_an_offering_s_first_and_last_rows_fold_together_across_the_file():
    lines = [f"k{i},box {i},RTX 4090,1,hour,1.{i:02d},CNY,2026-11-01" for i in range(50)]
    lines += ["k0,box 0,RTX 4090,1,month,900,CNY,2026-11-01"]  # line 52
    lines += ["k1,box 1,RTX 4090,1,hour,1.50,CNY,2026-11-01"]  # line 53: k1's hour again
    lines += ["k2,box two,RTX 4090,1,month,900,CNY,2026-11-01"]  # line 54: k2 renamed
    text = HEADER + "\n".join(lines) + "\n"
    source = rows_for("native", text)
    parsed = source.scan()
    order = []
    found = {}
    for row in source.offerings(parsed.errors):
        order.append(row.external_id)
        found[row.external_id] = row

    assert sorted((p.unit, p.amount) for p in found["k0"].prices) == [
        ("hour", Decimal("1.000000")),
        ("month", Decimal("900.000000")),
    ]
    assert found["k0"].lines == [2, 52]
    assert [str(problem) for problem in parsed.errors] == [
        "line 53: a hour price dated 2026-11-01 for 'k1' is already on line 3",
        "line 54: offering 'k2' is described differently on line 4",
    ]
    # Each offering as soon as its last row is read: k0, k1 and k2 wait for theirs.
    assert order[:3] == ["k3", "k4", "k5"] and order[-3:] == ["k0", "k1", "k2"]
    assert len(order) == 50


def test_the_second_pass_needs_the_first():
    source = rows_for("native", HEADER)
    with pytest.raises(RuntimeError):
        next(source.offerings([]))
