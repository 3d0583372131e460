"""API fixtures: clients for the three kinds of caller, and a small catalogue to read.

The catalogue extends the shared chain (source -> platform -> accelerator -> offering ->
price_history) with an A100 80GB that has MIG profiles, a second platform, prices in two billing
units, storage prices and an exchange rate.
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from decimal import Decimal

import pytest
import schemathesis
import time_machine
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.cache import cache
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from knox.models import AuthToken
from rest_framework.test import APIClient
from werkzeug.test import TestResponse
from werkzeug.wrappers import Request

from config.wsgi import application
from platforms import services
from platforms.models import (
    Accelerator,
    AcceleratorAlias,
    ExchangeRate,
    MigProfile,
    Platform,
    StoragePrice,
)
from tests.conftest import NOW, make_offering


@pytest.fixture(autouse=True)
def _fresh_throttle_history():
    # Throttles count requests in the cache; one test's requests must not count against another's.
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def frozen():
    """The clock stands at tests.conftest.NOW."""
    with time_machine.travel(NOW, tick=False):
        yield NOW


def _client_for(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {AuthToken.objects.create(user=user)[1]}")
    return client


@pytest.fixture
def anon_client() -> APIClient:
    return APIClient()


@pytest.fixture
def user_client(db) -> APIClient:
    user = get_user_model().objects.create_user("reader", password="pw-reader-123")
    return _client_for(user)


@pytest.fixture
def staff_client(db) -> APIClient:
    """Staff who keep prices: the admin's permission to add them, which the API asks for too."""
    user = get_user_model().objects.create_user("keeper", password="pw-keeper-123", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="add_priceobservation"))
    return _client_for(user)


@pytest.fixture
def clients(anon_client, user_client, staff_client) -> dict[str, APIClient]:
    return {"anonymous": anon_client, "user": user_client, "staff": staff_client}


@pytest.fixture
def a100(source) -> Accelerator:
    accelerator = Accelerator.objects.create(
        slug="a100-80gb",
        name="A100 80GB",
        vendor="NVIDIA",
        architecture="Ampere",
        vram_gib=Decimal("80"),
        memory_bandwidth_gbps=2039,
        bf16_tflops=312,
        nvlink=True,
        nvlink_bandwidth_gbps=600,
        confidence="verified",
        figure_confidence={"bf16_tflops": "secondary"},
        mig_slots=8,
        mig_max_compute=7,
        source=source,
    )
    for alias in ("A100-80GB", "NVIDIA A100-SXM4-80GB"):
        alias_row = AcceleratorAlias(accelerator=accelerator, alias=alias)
        alias_row.full_clean()
        alias_row.save()
    MigProfile.objects.create(
        accelerator=accelerator,
        name="1g.10gb",
        memory_gib=Decimal("9.75"),
        memory_slices=1,
        compute_slices=1,
        max_count=7,
        starts=[0, 1, 2, 3, 4, 5, 6],
    )
    MigProfile.objects.create(
        accelerator=accelerator,
        name="3g.40gb",
        memory_gib=Decimal("39.5"),
        memory_slices=4,
        compute_slices=3,
        max_count=2,
        starts=[0, 4],
    )
    return accelerator


@pytest.fixture
def other_platform(source) -> Platform:
    return Platform.objects.create(
        slug="bigcloud",
        name="大云",
        name_en="Big Cloud",
        multi_task="mig",
        delivery_forms=["bare_metal"],
        interconnects=["nvlink"],
        physically_exclusive=True,
        source=source,
    )


def add_price(offering, source, unit, amount, days_ago, currency="CNY"):
    return services.price_observation_create(
        offering=offering,
        unit=unit,
        amount=Decimal(amount),
        currency=currency,
        source=source,
        observed_at=NOW - timedelta(days=days_ago),
    )


@pytest.fixture
def catalogue(platform, other_platform, accelerator, a100, source, offering, price_history):
    """Four listed offerings and one delisted:

    name          platform   GPU          count  VRAM/GPU  hour   month      notes
    RTX 4090 VM   testcloud  rtx-4090     1      24        1.88   -          (shared fixture)
    4090 x8       testcloud  rtx-4090     8      24        14.00  8000       interruptible
    A100 pooled   testcloud  a100-80gb    1      20        3.10   -          pooled slice
    A100 x8       bigcloud   a100-80gb    8      80        60.00  28000      nvlink, bare metal
    old A100      bigcloud   a100-80gb    1      80        9.00   -          not listed
    """
    x8 = make_offering(platform, accelerator, source, name="4090 x8", gpu_count=8)
    x8.interruptible = True
    x8.save()
    add_price(x8, source, "hour", "14.00", 3)
    add_price(x8, source, "month", "8000", 3)
    pooled = make_offering(
        platform,
        a100,
        source,
        name="A100 pooled",
        sharing_mode="pooled",
        pooled_vram_gib=Decimal("20"),
        delivery_form="pooled_container",
    )
    add_price(pooled, source, "hour", "3.10", 200)  # stale
    big = make_offering(
        other_platform,
        a100,
        source,
        name="A100 x8",
        gpu_count=8,
        interconnect="nvlink",
        delivery_form="bare_metal",
    )
    add_price(big, source, "hour", "60.00", 5)
    add_price(big, source, "month", "28000", 5)
    old = make_offering(other_platform, a100, source, name="old A100", is_active=False)
    add_price(old, source, "hour", "9.00", 400)
    StoragePrice.objects.create(
        platform=platform,
        kind="data_disk",
        unit="gb_month",
        amount=Decimal("0.70"),
        currency="CNY",
        free_gb=50,
        billed_when_stopped=True,
        observed_at=NOW - timedelta(days=40),
        source=source,
    )
    storage = StoragePrice.objects.create(
        platform=platform,
        kind="data_disk",
        unit="gb_month",
        amount=Decimal("0.50"),
        currency="CNY",
        free_gb=50,
        billed_when_stopped=True,
        observed_at=NOW - timedelta(days=10),
        source=source,
    )
    rate = ExchangeRate.objects.create(
        base="USD", quote="CNY", rate=Decimal("7.1"), as_of=date(2026, 11, 1), source=source
    )
    return {
        "4090": offering,
        "4090x8": x8,
        "pooled": pooled,
        "a100x8": big,
        "old": old,
        "storage": storage,
        "rate": rate,
    }


def openapi_document() -> dict:
    """The OpenAPI document /api/schema/ serves, generated without a request or a database."""
    generator = SchemaGenerator()
    return json.loads(OpenApiJsonRenderer().render(generator.get_schema(request=None, public=True)))


@pytest.fixture(scope="session")
def openapi():
    """The API's own schema, loaded by schemathesis, to check responses against."""
    schema = schemathesis.openapi.from_dict(openapi_document())
    schema.app = application  # calls made through the schema go to the WSGI app directly
    return schema


def conforms(openapi, method: str, path: str, response) -> None:
    """Fail unless a test-client response has the status, headers and body the schema documents."""
    operation = openapi[path][method.upper()]
    operation.validate_response(as_werkzeug(response))


def as_werkzeug(response) -> TestResponse:
    """A Django test response as the werkzeug response schemathesis knows how to check."""
    request = Request.from_values(
        path=response.wsgi_request.path, method=response.wsgi_request.method
    )
    return TestResponse(
        response.content,
        response.status_code,
        list(response.items()),
        request=request,
    )
