"""Fair use of the pages (api/fairuse.py): pages are throttled per client (a 429 page in the
visitor's language with Retry-After), saving scenarios (`POST /s/`) has a cap per client an hour,
and a body over the limit is refused before it is read.

Before: four anonymous clients looping a 100-task /s/<key>/ slowed every visitor's /offerings/
from 0.07 s to 2.8 s; `POST /s/` saved 69 scenarios in 100 s; a 300 MB multipart body was read
before its 400."""

from __future__ import annotations

import io

import pytest
from django.core.cache import cache
from django.http import HttpResponse
from django.test import Client, RequestFactory

from api.fairuse import BodyLimitMiddleware, parse_rate


@pytest.fixture(autouse=True)
def fresh_counters():
    cache.clear()
    yield
    cache.clear()


def test_rates_read_as_drf_s():
    assert parse_rate("60/min") == (60, 60)
    assert parse_rate("30/hour") == (30, 3600)
    assert parse_rate("5/s") == (5, 1)


@pytest.mark.django_db
def test_pages_are_throttled_per_client_with_a_429_page(settings):
    settings.PAGE_ANON_RATE = "3/min"
    client = Client()
    statuses = [client.get("/", REMOTE_ADDR="198.51.100.30").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    page = client.get("/", REMOTE_ADDR="198.51.100.30", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert page.status_code == 429
    assert 1 <= int(page["Retry-After"]) <= 60
    assert "请求过多" in page.content.decode()
    # Another client, the API (its own throttles), static files and the probes are not held back.
    assert client.get("/", REMOTE_ADDR="198.51.100.31").status_code == 200
    assert client.get("/api/v1/platforms/", REMOTE_ADDR="198.51.100.30").status_code == 200
    assert client.get("/healthz", REMOTE_ADDR="198.51.100.30").status_code == 200


@pytest.mark.django_db
def test_a_signed_in_user_has_a_rate_of_their_own(settings, django_user_model):
    settings.PAGE_ANON_RATE, settings.PAGE_USER_RATE = "1/min", "3/min"
    user = django_user_model.objects.create_user("reader", password="pw")
    client = Client()
    client.force_login(user)
    statuses = [client.get("/", REMOTE_ADDR="198.51.100.32").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]


@pytest.mark.django_db
def test_saving_scenarios_is_capped_per_client_an_hour(settings):
    settings.SCENARIO_SAVE_RATE = "2/hour"
    client = Client()

    def save(address: str) -> int:
        return client.post("/s/", {"scenario": "{}"}, REMOTE_ADDR=address).status_code

    first, second, third = (save("198.51.100.40") for _ in range(3))
    assert first != 429 and second != 429
    assert third == 429
    assert save("198.51.100.41") != 429


class _Unreadable(io.RawIOBase):
    def readable(self) -> bool:
        return True

    def readinto(self, buffer):  # type: ignore[override]
        raise AssertionError("the body was read")


@pytest.mark.parametrize("path", ["/s/", "/advisor/", "/api/v1/advise/"])
def test_a_body_over_the_limit_is_refused_before_it_is_read(path, settings):
    request = RequestFactory().post(path, data=b"", content_type="multipart/form-data; boundary=x")
    request.META["CONTENT_LENGTH"] = str(300 * 1024 * 1024)
    request.META["wsgi.input"] = _Unreadable()
    middleware = BodyLimitMiddleware(lambda request: HttpResponse("read"))
    response = middleware(request)
    assert response.status_code == 413
    if path.startswith("/api/"):
        assert b'"payload_too_large"' in response.content


def test_the_admin_takes_its_import_s_larger_files(settings):
    request = RequestFactory().post(
        "/admin/platforms/offering/import/", data=b"", content_type="application/octet-stream"
    )
    request.META["CONTENT_LENGTH"] = str(19 * 1024 * 1024)
    response = BodyLimitMiddleware(lambda request: HttpResponse("read"))(request)
    assert response.content == b"read"
    request.META["CONTENT_LENGTH"] = str(settings.ADMIN_MAX_BODY_BYTES + 1)
    assert BodyLimitMiddleware(lambda request: HttpResponse("read"))(request).status_code == 413
