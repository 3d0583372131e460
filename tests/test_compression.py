"""Compression: dynamic HTML and JSON gzipped for clients that accept it; static files compressed
ahead, hashed and cached for good, under `make run` (config/storage.py) as under `make serve`."""

from __future__ import annotations

import gzip
import re

import pytest
from django.conf import settings
from django.contrib.staticfiles.storage import staticfiles_storage
from django.core.management import call_command
from django.test import RequestFactory, override_settings
from whitenoise.middleware import WhiteNoiseMiddleware

from platforms.models import Platform


@pytest.fixture
def platforms(source):
    for i in range(5):
        Platform.objects.create(
            slug=f"cloud-{i}", name=f"云 {i}", name_en=f"Cloud {i}", source=source
        )


@pytest.mark.parametrize("url", ["/", "/offerings/", "/api/v1/platforms/"])
def test_pages_and_json_are_gzipped_for_clients_that_accept_it(client, platforms, url):
    plain = client.get(url)
    packed = client.get(url, HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert plain.status_code == packed.status_code == 200
    assert not plain.has_header("Content-Encoding")
    assert packed["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed["Vary"]
    assert gzip.decompress(packed.content).startswith(plain.content[:20])
    assert len(packed.content) < len(plain.content)


def test_static_files_do_not_pass_through_the_page_compression(client):
    """WhiteNoise answers /static/ before GZipMiddleware: a file served from the app folders (the
    test settings collect nothing) goes out as it is, not compressed on every request."""
    response = client.get("/static/css/site.css", HTTP_ACCEPT_ENCODING="gzip")
    assert response.status_code == 200
    assert not response.has_header("Content-Encoding")


@pytest.fixture
def collected(tmp_path):
    """collectstatic of the project's own static folder with `make run`'s storage and DEBUG on."""
    with override_settings(
        DEBUG=True,
        STATIC_ROOT=tmp_path,
        STATICFILES_DIRS=[settings.BASE_DIR / "static"],
        STATICFILES_FINDERS=["django.contrib.staticfiles.finders.FileSystemFinder"],
        STORAGES={
            **settings.STORAGES,
            "staticfiles": {"BACKEND": "config.storage.HashedStaticFilesStorage"},
        },
        WHITENOISE_USE_FINDERS=False,
        WHITENOISE_AUTOREFRESH=False,
    ):
        call_command("collectstatic", interactive=False, verbosity=0)
        yield tmp_path


def test_make_runs_storage_names_collected_files_by_their_hash_with_debug_on(collected):
    url = staticfiles_storage.url("css/site.css")
    assert re.fullmatch(r"/static/css/site\.[0-9a-f]{12}\.css", url), url
    # Not collected (yet): the plain name, which WhiteNoise finds in the app folders.
    assert staticfiles_storage.url("css/not-collected.css") == "/static/css/not-collected.css"


def test_whitenoise_serves_a_hashed_file_gzipped_and_cached_for_good(collected):
    url = staticfiles_storage.url("js/charts.js")
    serve = WhiteNoiseMiddleware(get_response=lambda request: None)
    response = serve(RequestFactory().get(url, HTTP_ACCEPT_ENCODING="gzip"))
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert response["Cache-Control"] == "max-age=315360000, public, immutable"
    body = b"".join(response.streaming_content)
    assert gzip.decompress(body) == (settings.BASE_DIR / "static" / "js" / "charts.js").read_bytes()


def test_the_development_settings_use_it_and_leave_static_files_to_whitenoise():
    from config.settings import dev

    assert dev.STORAGES["staticfiles"]["BACKEND"] == "config.storage.HashedStaticFilesStorage"
    assert dev.INSTALLED_APPS[0] == "whitenoise.runserver_nostatic"
    middleware = dev.MIDDLEWARE
    assert middleware.index("django.middleware.gzip.GZipMiddleware") == (
        middleware.index("whitenoise.middleware.WhiteNoiseMiddleware") + 1
    )
