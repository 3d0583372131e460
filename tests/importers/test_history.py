"""Imports keep history: idempotent for one date, append on change, re-see on no change, atomic."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from platforms.importers import observed_at_value
from platforms.models import Offering, PriceObservation, Source

from .conftest import DAY_1, DAY_2, run, sample

LAMBDA = "skypilot-v8-lambda-vms.csv"
HEADER = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice"
)
A10 = "\"{'Gpus': [{'Name': 'A10', 'Count': 1, 'MemoryInfo': {'SizeInMiB': 24576}}]}\""


def a10(price="1.29", vcpus="30.0", ram="200.0") -> str:
    return f"gpu_1x_a10,A10,1.0,{vcpus},{ram},{price},us-east-1,{A10},"


def catalog(*rows: str) -> str:
    return "\r\n".join([HEADER, *rows]) + "\r\n"


def snapshot() -> tuple:
    return (
        list(Offering.objects.order_by("pk").values_list("pk", "vcpus", "ram_gib", "accelerator")),
        list(
            PriceObservation.objects.order_by("pk").values_list(
                "pk", "amount", "observed_at", "last_seen_at"
            )
        ),
        Source.objects.count(),
    )


def test_importing_the_same_file_for_the_same_date_twice_changes_nothing(lambda_cloud):
    first = run(sample(LAMBDA), "skypilot", lambda_cloud)
    before = snapshot()

    second = run(sample(LAMBDA), "skypilot", lambda_cloud)

    assert snapshot() == before
    assert (first.created, second.created, second.updated) == (374, 0, 0)
    assert second.unchanged == 374
    assert (second.prices_added, second.prices_seen) == (0, 0)


def test_an_unchanged_price_on_a_later_date_moves_last_seen_and_adds_no_row(lambda_cloud):
    run(sample(LAMBDA), "skypilot", lambda_cloud, day=DAY_1)

    report = run(sample(LAMBDA), "skypilot", lambda_cloud, day=DAY_2)

    assert report.unchanged == 374 and report.prices_seen == 374 and report.prices_added == 0
    assert PriceObservation.objects.count() == 374
    observation = PriceObservation.objects.get(offering__external_id="gpu_1x_a100@us-east-1")
    assert observation.observed_at == observed_at_value(DAY_1)
    assert observation.last_seen_at == observed_at_value(DAY_2)
    # A re-sighting records no new Source: the price points to the import that observed it.
    assert Source.objects.filter(kind="import").count() == 1


def test_a_changed_price_on_a_later_date_is_appended_and_the_old_one_kept(lambda_cloud):
    run(catalog(a10(price="1.29")), "skypilot", lambda_cloud, day=DAY_1)

    report = run(catalog(a10(price="1.49")), "skypilot", lambda_cloud, day=DAY_2)

    assert (report.updated, report.prices_added) == (1, 1)
    assert report.changes[0].details == ["price 1.49 USD/hour (was 1.29 USD)"]
    offering = Offering.objects.get()
    history = list(offering.prices.order_by("observed_at").values_list("amount", "observed_at"))
    assert history == [
        (Decimal("1.29"), observed_at_value(DAY_1)),
        (Decimal("1.49"), observed_at_value(DAY_2)),
    ]
    assert PriceObservation.objects.current().get().amount == Decimal("1.49")


def test_a_later_import_with_changed_specs_updates_the_offering(lambda_cloud):
    run(catalog(a10()), "skypilot", lambda_cloud, day=DAY_1)

    report = run(catalog(a10(vcpus="32.0", ram="216.0")), "skypilot", lambda_cloud, day=DAY_2)

    assert report.updated == 1
    assert report.changes[0].details[:2] == ["vcpus: 30 -> 32", "ram_gib: 200 -> 216"]
    offering = Offering.objects.get()
    assert (offering.vcpus, offering.ram_gib) == (32, Decimal("216.0"))
    assert offering.prices.count() == 1  # the price did not change: re-seen, not re-recorded


def test_staff_corrections_a_catalog_does_not_state_survive_a_reimport(lambda_cloud):
    run(catalog(a10()), "skypilot", lambda_cloud, day=DAY_1)
    Offering.objects.update(interconnect="none", delivery_form="bare_metal")

    report = run(catalog(a10()), "skypilot", lambda_cloud, day=DAY_2)

    assert report.unchanged == 1
    assert Offering.objects.values_list("interconnect", "delivery_form").get() == (
        "none",
        "bare_metal",
    )


def test_a_different_price_for_a_date_already_recorded_is_an_error_not_a_rewrite(lambda_cloud):
    run(catalog(a10(price="1.29")), "skypilot", lambda_cloud, day=DAY_1)

    report = run(catalog(a10(price="1.39")), "skypilot", lambda_cloud, day=DAY_1)

    assert not report.applied
    assert [(p.line, p.reason) for p in report.errors] == [(2, "conflicting price")]
    assert "history is not rewritten" in report.errors[0].message
    assert PriceObservation.objects.get().amount == Decimal("1.29")


def test_an_older_snapshot_fills_in_history_without_changing_the_current_price(lambda_cloud):
    run(catalog(a10(price="1.29")), "skypilot", lambda_cloud, day=DAY_2)

    report = run(catalog(a10(price="1.10")), "skypilot", lambda_cloud, day=DAY_1)

    assert report.prices_added == 1
    assert PriceObservation.objects.count() == 2
    assert PriceObservation.objects.current().get().amount == Decimal("1.29")


def test_a_file_with_bad_rows_writes_nothing_and_reports_every_bad_row(lambda_cloud):
    text = catalog(
        a10(),
        f"gpu_1x_a10,A10,1.0,30.0,200.0,cheap,us-west-1,{A10},",
        "cpu_4x_general,,,4.0,16.0,0.2,us-east-1,,",
        f"gpu_1x_a10,A10,1.0,30.0,200.0,-1,eu-west-1,{A10},",
        f"gpu_1x_a10,A10,one,30.0,200.0,1.29,eu-west-2,{A10},",
        f"gpu_1x_a10,A10,1.0,30.0,200.0,1.29,,{A10},",
        "gpu_1x_a10,A10,1.0,30.0,200.0,1.29,us-south-1,\"{'Gpus': [\",",
        f"gpu_2x_a10,A10,2.0,60.0,400.0,2.58,us-east-1,{A10},",
    )

    report = run(text, "skypilot", lambda_cloud)

    assert [(p.line, p.message) for p in report.errors] == [
        (3, "Price is not a number: 'cheap'"),
        (5, "Price is negative: -1"),
        (6, "AcceleratorCount is not a number: 'one'"),
        (7, "Region is empty"),
        (8, "GpuInfo is not a Python literal"),
    ]
    assert not report.applied
    assert (Offering.objects.count(), PriceObservation.objects.count()) == (0, 0)
    assert not Source.objects.filter(kind="import").exists()
    assert report.summary_lines()[-1] == "errors 5; nothing was written"


def test_a_dry_run_reports_the_same_counts_and_writes_nothing(lambda_cloud):
    preview = run(sample(LAMBDA), "skypilot", lambda_cloud, dry_run=True)

    assert (preview.created, preview.prices_added, preview.applied) == (374, 374, False)
    assert (Offering.objects.count(), PriceObservation.objects.count()) == (0, 0)
    assert preview.summary_lines()[1] == "offerings would be created 374, updated 0, unchanged 0"


def test_progress_is_reported_per_line_up_to_the_total_in_one_phase(lambda_cloud):
    """A dry run checks; an import writes each batch as it is checked: one phase each, counting
    every row read (the 34 skipped ones with the rest)."""
    preview, calls = [], []
    run(
        sample(LAMBDA),
        "skypilot",
        lambda_cloud,
        dry_run=True,
        progress=lambda *args: preview.append(args),
    )
    run(sample(LAMBDA), "skypilot", lambda_cloud, progress=lambda *args: calls.append(args))

    assert {phase for phase, _, _ in preview} == {"checking"}
    assert {phase for phase, _, _ in calls} == {"writing"}
    for seen in (preview, calls):
        done = [(done, total) for _, done, total in seen]
        assert done == sorted(done) and done[0] == (0, 408) and done[-1] == (408, 408)


def test_observed_dates_are_the_start_of_the_day_in_the_site_time_zone():
    assert observed_at_value("2026-11-01") == observed_at_value(date(2026, 11, 1))
    assert observed_at_value("2026-11-01").isoformat() == "2026-11-01T00:00:00+08:00"
    assert observed_at_value("2026-11-01T09:30:00+00:00").isoformat() == (
        "2026-11-01T09:30:00+00:00"
    )


def test_a_write_that_collides_with_a_concurrent_import_rolls_back_the_whole_file(
    lambda_cloud, monkeypatch
):
    run(catalog(a10()), "skypilot", lambda_cloud, day=DAY_1)
    before = snapshot()
    # As if another import created the offering between our reads and our writes.
    monkeypatch.setattr("platforms.importers.plan.existing_offerings", lambda keys: {})
    second = f"gpu_2x_a10,A10,2.0,60.0,400.0,2.58,us-east-1,{A10},"

    report = run(catalog(second, a10()), "skypilot", lambda_cloud, day=DAY_2)

    assert not report.applied
    assert [p.reason for p in report.errors] == ["conflict"]
    assert str(report.errors[0]).startswith("the catalogue changed while importing")
    assert snapshot() == before
