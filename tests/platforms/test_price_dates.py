"""A price date is neither in the future nor before 2010 on every path that writes one: the
database, the write services, the admin, the API and every importer (rows, the import's own
date, storage rows).

2010: no GPU was rented from a cloud before Amazon EC2's Cluster GPU instances, announced on
15 November 2010 (https://aws.amazon.com/about-aws/whats-new/2010/11/15/announcing-cluster-gpu-instances-for-amazon-ec2/);
an earlier date is a mistyped year, and year 1 also overflowed the database write (SQLite).
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import Permission, User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient

from platforms import services
from platforms.importers import observed_at_value, offers_import
from platforms.models import (
    EARLIEST_PRICE_AT,
    IdleModePrice,
    Offering,
    PriceObservation,
    StoragePrice,
)
from tests.conftest import NOW

TOO_EARLY = "A price cannot be observed before 2010: no cloud rented GPUs before then."
LAST_DAY_OF_2009 = datetime(2009, 12, 31, 23, 59, tzinfo=UTC)
YEAR_ONE = datetime(1, 1, 1, tzinfo=UTC)
NATIVE = "offering_key,name,accelerator,gpu_count,billing_unit,amount,currency,observed_at\n"


def test_the_bound_is_the_first_day_of_2010():
    assert datetime(2010, 1, 1, tzinfo=UTC) == EARLIEST_PRICE_AT


@pytest.mark.parametrize(
    ("model", "fields", "constraint"),
    [
        (
            PriceObservation,
            {"unit": "hour", "amount": Decimal("1.5"), "currency": "CNY"},
            "price_observed_since_2010",
        ),
        (
            StoragePrice,
            {"kind": "data_disk", "unit": "gb_month", "amount": Decimal("0.5"), "currency": "CNY"},
            "storage_observed_since_2010",
        ),
        (
            IdleModePrice,
            {"unit": "hour", "amount": Decimal("0.1"), "currency": "CNY"},
            "idlemode_observed_since_2010",
        ),
    ],
)
def test_the_database_refuses_a_price_observed_before_2010(
    offering, source, model, fields, constraint
):
    owner = {"offering": offering} if model is PriceObservation else {"platform": offering.platform}
    seen = {"last_seen_at": LAST_DAY_OF_2009} if model is PriceObservation else {}
    row = model(**owner, **fields, **seen, source=source, observed_at=LAST_DAY_OF_2009)

    with pytest.raises(ValidationError, match=TOO_EARLY):
        row.full_clean()
    # Past every check in Python (bulk_create runs none): the named constraint refuses it.
    with (
        pytest.raises(IntegrityError, match=f"{constraint}|CHECK constraint failed"),
        transaction.atomic(),
    ):
        model.objects.bulk_create([row])


def test_the_write_services_refuse_a_date_before_2010(offering, source):
    with pytest.raises(ValidationError, match=TOO_EARLY):
        services.price_observation_create(
            offering=offering,
            unit="hour",
            amount=Decimal("1.5"),
            currency="CNY",
            source=source,
            observed_at=YEAR_ONE,
        )
    with pytest.raises(ValidationError, match=TOO_EARLY):
        services.price_date_check(moment=LAST_DAY_OF_2009)
    services.price_date_check(moment=EARLIEST_PRICE_AT)  # the bound itself is allowed
    assert not PriceObservation.objects.exists()


def test_the_api_refuses_a_price_observed_before_2010_on_its_field(db, offering):
    keeper = User.objects.create_user("keeper", password="pw", is_staff=True)
    keeper.user_permissions.add(Permission.objects.get(codename="add_priceobservation"))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {AuthToken.objects.create(user=keeper)[1]}")

    response = client.post(
        f"/api/v1/offerings/{offering.pk}/prices/",
        {"unit": "hour", "amount": "1.50", "currency": "CNY", "observed_at": "2009-06-01T00:00Z"},
        format="json",
    )

    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"observed_at": [TOO_EARLY]}


def test_the_admin_refuses_a_new_price_observed_before_2010_beside_its_field(client, offering):
    from tests.platforms.test_admin import offering_form_data

    superuser = User.objects.create_superuser("root", password="pw")
    client.force_login(superuser)
    url = reverse("admin:platforms_offering_change", args=[offering.pk])

    response = client.post(
        url,
        offering_form_data(
            offering, new_price_amount="1.00", new_price_observed_at="0001-01-01 00:00:00"
        ),
    )

    assert response.status_code == 200
    assert TOO_EARLY in response.content.decode()
    assert not PriceObservation.objects.exists()


@pytest.fixture
def lambda_cloud(db):
    from platforms.seed import SeedReport, load_accelerators
    from tests.importers.conftest import make_platform

    load_accelerators(SeedReport())
    return make_platform("lambda", "Lambda", ["cloud_vm"])


def run(text: str, fmt: str, platform, day: date = date(2026, 11, 1), **options):
    return offers_import(
        text=text,
        fmt=fmt,
        filename=f"{fmt}.csv",
        observed_at=observed_at_value(day),
        platform=platform,
        **options,
    )


@pytest.mark.parametrize("observed", ["0001-01-01", "2009-12-31"])
def test_an_imported_row_dated_before_2010_is_an_error_on_its_line(lambda_cloud, observed):
    text = (
        NATIVE
        + "a10-1x,A10,A10,1,hour,1.29,USD,2026-10-01\n"
        + (f"a10-2x,A10 x2,A10,2,hour,2.58,USD,{observed}\n")
    )

    preview = run(text, "native", lambda_cloud, dry_run=True)
    report = run(text, "native", lambda_cloud)

    expected = [f"line 3: observed_at: {TOO_EARLY}"]
    assert [str(p) for p in preview.errors] == [str(p) for p in report.errors] == expected
    assert not report.applied and not Offering.objects.exists()


def test_a_json_feed_price_dated_before_2010_is_an_error_on_its_offer(lambda_cloud):
    text = json.dumps(
        {
            "version": 1,
            "platform": "lambda",
            "offers": [
                {
                    "key": "a10-1x",
                    "name": "A10",
                    "accelerator": "A10",
                    "gpu_count": 1,
                    "prices": [
                        {
                            "unit": "hour",
                            "amount": "1.29",
                            "currency": "USD",
                            "observed_at": "0001-01-01",
                        }
                    ],
                }
            ],
        }
    )

    report = run(text, "json", lambda_cloud)

    assert [str(p) for p in report.errors] == [f"line 1: observed_at: {TOO_EARLY}"]
    assert not Offering.objects.exists()


def test_a_storage_row_dated_before_2010_is_an_error_on_its_line(lambda_cloud):
    text = (
        "offering_key,name,accelerator,gpu_count,billing_unit,amount,currency,observed_at,"
        "platform,record,storage_kind\n"
        ",data disk,,,gb_month,0.5,CNY,1999-01-01,lambda,storage,data_disk\n"
    )

    report = run(text, "native", lambda_cloud)

    assert [str(p) for p in report.errors] == [f"line 2: observed_at: {TOO_EARLY}"]
    assert not StoragePrice.objects.exists()


def test_an_import_dated_before_2010_is_one_error_for_the_file(lambda_cloud):
    report = run(
        NATIVE + "a10-1x,A10,A10,1,hour,1.29,USD,\n", "native", lambda_cloud, day=date(9, 1, 1)
    )

    assert [(p.line, p.reason, str(p)) for p in report.errors] == [(0, "date too early", TOO_EARLY)]


def test_the_future_rule_still_holds_beside_the_lower_bound(offering, source):
    later = timezone.now() + timedelta(days=1)
    with pytest.raises(ValidationError, match="in the future"):
        services.price_date_check(moment=later)
    services.price_date_check(moment=NOW)
