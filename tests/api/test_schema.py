"""The OpenAPI schema is valid, its documentation pages work offline, and the API keeps to it.

The last test fuzzes every operation with schemathesis against the WSGI app, on the test
catalogue: no 5xx, and every status, header and body as documented. It is bounded (25 generated
cases per operation, derandomised) so the run is the same every time and fits in the suite.
"""

from __future__ import annotations

import re

import pytest
import schemathesis
from django.core.management import call_command
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from advisor.engine.messages import Code
from config.wsgi import application
from tests.api.conftest import openapi_document
from tests.conftest import examples


def test_the_schema_validates_as_openapi_3_without_warnings(tmp_path):
    # --fail-on-warn turns any drf-spectacular warning (an undocumented shape) into an error.
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", tmp_path / "api.yaml")
    assert (tmp_path / "api.yaml").read_text().startswith("openapi: 3.0.3")


def test_the_schema_is_served_as_json_and_yaml(client, db):
    assert client.get("/api/schema/", HTTP_ACCEPT="application/json").json()["info"]["title"]
    assert client.get("/api/schema/").content.startswith(b"openapi: 3.0.3")


@pytest.mark.parametrize(
    ("page", "asset"),
    [("/api/docs/", "swagger-ui-bundle.js"), ("/api/redoc/", "redoc.standalone.js")],
)
def test_the_documentation_pages_load_their_scripts_from_this_server(client, db, page, asset):
    html = client.get(page).content.decode()
    urls = re.findall(r'src="([^"]+)"', html)
    script = next(url for url in urls if url.endswith(asset))
    # Served by the sidecar app from our own static files, never from a CDN.
    assert script.startswith("/static/drf_spectacular_sidecar/")
    assert client.get(script).status_code == 200


# The scenario, the ranges (min <= max, from <= to) and the query combinations are checked by the
# engine and the serializers beyond what a JSON schema can say, so a request the schema allows can
# still rightly be a 400. Every other check stays on, the server-error and conformance checks first.
BEYOND_THE_SCHEMA = [positive_data_acceptance]

api = schemathesis.openapi.from_dict(openapi_document())
api.app = application


@pytest.fixture
def fuzzed_catalogue(catalogue):
    """The test catalogue, served by the bare WSGI app inside the test's transaction.

    At the end of a request the WSGI handler closes database connections it thinks are stale, and
    one inside a test transaction looks stale; on Postgres that would end the transaction. Django's
    test client avoids this by unhooking the same signal handler, and so does this fixture.
    """
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield catalogue
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@api.parametrize()
@settings(
    max_examples=examples(25),
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_every_operation_keeps_to_the_schema_under_fuzzing(case, fuzzed_catalogue):
    # The fuzzer's WSGI client asks for gzip but does not unpack it (tests/test_compression.py
    # checks the compressed answers): plain bodies, to compare with the schema.
    case.call_and_validate(
        excluded_checks=BEYOND_THE_SCHEMA, headers={"Accept-Encoding": "identity"}
    )


def test_the_schema_documents_every_message_code():
    """Reasons, warnings, notes and errors are `Message`s whose `code` is one of the engine's."""
    schemas = openapi_document()["components"]["schemas"]
    assert schemas["MessageCode"]["enum"] == [code.value for code in Code]
    message = schemas["Message"]["properties"]
    assert message["code"]["allOf"] == [{"$ref": "#/components/schemas/MessageCode"}]
    reasons = schemas["Recommendation"]["properties"]["reasons"]["items"]
    assert reasons == {"$ref": "#/components/schemas/Message"}


def test_the_advice_documents_its_unpriced_platforms_by_slug_and_name():
    """The advice's method fields keep their documented shapes (extend_schema_field on
    AdviceReportSerializer's getters): each unpriced platform is a {slug, name} object."""
    schemas = openapi_document()["components"]["schemas"]
    field = schemas["AdviceReport"]["properties"]["unpriced_platforms"]
    assert field["items"] == {"$ref": "#/components/schemas/UnpricedPlatform"}
    assert set(schemas["UnpricedPlatform"]["properties"]) == {"slug", "name"}


def _shape(value: object) -> object:
    """Keys and value types, recursively; a list by its first item."""
    if isinstance(value, dict):
        return {key: _shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shape(value[0])] if value else []
    return type(value).__name__


def test_the_advise_example_has_the_shape_of_a_live_answer(db, frozen):
    """The documented example is a body the endpoint gives for its request today (the seed
    catalogue at tests.conftest.NOW), so the two cannot drift apart."""
    from rest_framework.test import APIClient

    from api.examples import ADVISE_RESPONSE_BODY, TRAINING_INFERENCE
    from platforms.seed import load_seed

    load_seed()
    live = APIClient().post("/api/v1/advise/", TRAINING_INFERENCE, format="json").json()
    live["recommendations"] = live["recommendations"][:1]
    assert _shape(ADVISE_RESPONSE_BODY) == _shape(live)
    assert (
        ADVISE_RESPONSE_BODY["recommendations"][0]["offering"]
        == (live["recommendations"][0]["offering"])
    )


def test_redoc_names_its_language_and_fetches_no_fonts_from_elsewhere(client):
    html = client.get("/api/redoc/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert '<html lang="zh-hans">' in html
    assert "fonts.googleapis.com" not in html and "fonts.gstatic.com" not in html
