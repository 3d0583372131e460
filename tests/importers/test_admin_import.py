"""The admin's "Import offers": upload, preview (nothing written), confirm (written by a background
job whose page shows its progress); staff only."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Permission, User
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from feeds.models import ImportJob
from platforms.models import Offering, PriceObservation

from .conftest import sample

URL = reverse("admin:platforms_offering_import")
LAMBDA = "skypilot-v8-lambda-vms.csv"


@pytest.fixture
def importer(db) -> User:
    user = User.objects.create_user("importer", password="pw", is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(
            content_type__app_label="platforms",
            codename__in=["view_offering", "add_offering", "add_priceobservation"],
        )
    )
    return user


def upload(client, target, text: str, **extra):
    data = {
        "file": SimpleUploadedFile("vms.csv", text.encode(), content_type="text/csv"),
        "format": "skypilot",
        "platform": target.pk,
        "observed_on": "2026-11-01",
        "source_url": "",
        "preview": "Preview",
        **extra,
    }
    return client.post(URL, data)


def confirmation_data(response) -> dict:
    """The hidden fields of the confirm form, as the browser would send them back."""
    data = {"apply": "Confirm and import"}
    for bound in response.context["confirmation"]:
        value = bound.value()
        # An unticked checkbox is not sent at all.
        if value not in (None, False):
            data[bound.name] = value
    return data


def test_the_offering_list_links_to_the_import_page(client, importer):
    client.force_login(importer)

    response = client.get(reverse("admin:platforms_offering_changelist"))

    assert response.status_code == 200
    assert URL in response.content.decode()
    page = client.get(URL)
    assert page.status_code == 200
    assert {"file", "format", "platform", "observed_on", "source_url", "strict"} <= set(
        page.context["form"].fields
    )
    assert 'enctype="multipart/form-data"' in page.content.decode()


def test_a_preview_shows_what_would_change_and_writes_nothing(client, importer, lambda_cloud):
    client.force_login(importer)

    response = upload(client, lambda_cloud, sample(LAMBDA))

    assert response.status_code == 200
    report = response.context["report"]
    assert (report.dry_run, report.created, report.skipped_rows) == (True, 374, 34)
    page = response.content.decode()
    assert "Preview: nothing has been written" in page
    assert "offerings would be created 374, updated 0, unchanged 0" in page
    assert "gpu_1x_a100@us-east-1" in page
    assert "CPU-only instance (no GPU)" in page and "2-35" in page
    assert 'name="apply"' in page
    assert (Offering.objects.count(), PriceObservation.objects.count()) == (0, 0)


def test_confirming_the_preview_imports_the_file_in_a_background_job(
    client, importer, lambda_cloud, django_capture_on_commit_callbacks
):
    client.force_login(importer)
    preview = upload(client, lambda_cloud, sample(LAMBDA))

    # The job goes to the worker once it is committed (here: eagerly, in this process).
    with django_capture_on_commit_callbacks(execute=True) as started:
        response = client.post(URL, confirmation_data(preview))

    job = ImportJob.objects.get()
    assert len(started) == 1
    assert response.status_code == 302
    assert response.url == reverse("admin:platforms_offering_import_job", args=[job.pk])
    assert (job.status, job.created_by, job.created, job.rows) == ("succeeded", importer, 374, 408)
    assert job.text == ""  # the file is not kept once applied
    assert Offering.objects.filter(platform=lambda_cloud).count() == 374
    observation = PriceObservation.objects.get(offering__external_id="gpu_1x_a100@us-east-1")
    assert observation.created_by == importer
    assert timezone.localtime(observation.observed_at).date().isoformat() == "2026-11-01"
    page = client.get(response.url).content.decode()
    assert "The file was imported." in page
    assert (
        "SkyPilot catalog (vms.csv) vms.csv: 408 rows</li><li>offerings created 374, updated 0, "
        "unchanged 0</li><li>prices added 374, re-seen 0"
    ) in page
    assert 'id="job-refresh"' not in page


def test_a_queued_job_shows_its_progress_with_a_refresh_link_and_as_json(
    client, importer, lambda_cloud
):
    client.force_login(importer)
    preview = upload(client, lambda_cloud, sample(LAMBDA))
    # Not committed, so no worker has it yet.
    response = client.post(URL, confirmation_data(preview))
    job = ImportJob.objects.get()

    page = client.get(response.url).content.decode()
    status = client.get(response.url, {"format": "json"}).json()

    assert job.status == "queued" and Offering.objects.count() == 0
    assert "waits for a worker" in page and "Nothing has been written yet." in page
    assert f'href="{response.url}" id="job-refresh"' in page
    assert '<progress id="job-progress" max="100" value="0">' in page
    assert status == {
        "status": "queued",
        "status_label": "waiting for a worker",
        "finished": False,
        "phase": "",
        "done": 0,
        "total": 0,
        "percent": 0,
        "progress_text": "",
    }


def test_a_running_job_reports_the_rows_done_from_the_cache(client, importer, lambda_cloud):
    client.force_login(importer)
    job = ImportJob.objects.create(
        status="running",
        format="skypilot",
        filename="vms.csv",
        platform=lambda_cloud,
        observed_at=timezone.now(),
    )
    cache.set(f"feeds:import-job:{job.pk}:progress", {"phase": "writing", "done": 50, "total": 200})
    url = reverse("admin:platforms_offering_import_job", args=[job.pk])

    status = client.get(url, {"format": "json"}).json()
    page = client.get(url).content.decode()

    # Checking is the first half of the bar, writing the second.
    assert (status["percent"], status["progress_text"]) == (62, "writing rows: 50 of 200")
    assert "writing rows: 50 of 200" in page and "The import is running." in page


def test_a_bad_file_previews_its_errors_with_lines_and_offers_no_confirm(
    client, importer, lambda_cloud
):
    client.force_login(importer)
    text = (
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo\n"
        "gpu_1x_a10,A10,1,30,200,1.29,us-east-1,\n"
        "gpu_1x_a10,A10,1,30,200,n/a,us-west-1,\n"
    )

    response = upload(client, lambda_cloud, text)

    page = response.content.decode()
    assert "1 bad row: fix the file and upload it again" in page
    assert re.search(r"<td>3</td><td>Price is not a number: &#x27;n/a&#x27;</td>", page)
    assert 'name="apply"' not in page
    assert Offering.objects.count() == 0


def test_a_tampered_confirmation_is_refused(client, importer, lambda_cloud):
    client.force_login(importer)
    data = confirmation_data(upload(client, lambda_cloud, sample(LAMBDA)))
    data["payload"] = data["payload"][:-3] + "xyz"

    response = client.post(URL, data)

    assert response.status_code == 200
    assert "The preview expired or was altered" in response.content.decode()
    assert Offering.objects.count() == 0


def test_confirming_without_a_preview_only_previews(client, importer, lambda_cloud):
    client.force_login(importer)

    response = upload(client, lambda_cloud, sample(LAMBDA), apply="Confirm and import")

    assert response.status_code == 200
    assert response.context["report"].dry_run
    assert Offering.objects.count() == 0


def test_a_catalog_format_needs_a_platform(client, importer, lambda_cloud):
    client.force_login(importer)

    response = upload(client, lambda_cloud, sample(LAMBDA), platform="")

    assert response.context["form"].errors == {
        "platform": ["Choose the platform this catalog lists."]
    }


def test_people_who_are_not_staff_are_sent_to_the_login_page(client, db):
    client.force_login(User.objects.create_user("visitor", password="pw"))

    response = client.get(URL)

    assert response.status_code == 302
    assert "/login/" in response.url


def test_staff_without_permission_to_add_offerings_and_prices_are_refused(client, db):
    viewer = User.objects.create_user("viewer", password="pw", is_staff=True)
    viewer.user_permissions.set(Permission.objects.filter(codename="view_offering"))
    client.force_login(viewer)

    assert client.get(URL).status_code == 403
    assert client.get(reverse("admin:platforms_offering_import_job", args=[1])).status_code == 403
