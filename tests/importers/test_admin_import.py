"""The admin's "Import offers": upload (the file kept server-side as a job), a background check that
previews what would change (nothing written), confirm on the job's page (written by a background
job whose page shows its progress); staff only, and only the uploader confirms."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission, User
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from feeds.models import ImportJob, ImportJobChunk
from platforms.models import Offering, PriceObservation

from .conftest import sample

URL = reverse("admin:platforms_offering_import")
LAMBDA = "skypilot-v8-lambda-vms.csv"
IMPORT_PERMISSIONS = ["view_offering", "add_offering", "add_priceobservation"]


def staff_with_import_permission(name: str) -> User:
    user = User.objects.create_user(name, password="pw", is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(
            content_type__app_label="platforms", codename__in=IMPORT_PERMISSIONS
        )
    )
    return user


@pytest.fixture
def importer(db) -> User:
    return staff_with_import_permission("importer")


def job_url(job: ImportJob) -> str:
    return reverse("admin:platforms_offering_import_job", args=[job.pk])


def upload(client, target, data: bytes | str, *, run=None, **extra):
    """Post the upload form; with `run` (django_capture_on_commit_callbacks), the check queued
    on commit runs (eagerly, as without a broker) before the response is read."""
    content = data.encode() if isinstance(data, str) else data
    form = {
        "file": SimpleUploadedFile("vms.csv", content, content_type="text/csv"),
        "format": "skypilot",
        "platform": target.pk,
        "observed_on": "2026-11-01",
        "source_url": "",
        "preview": "Preview",
        **extra,
    }
    if run is None:
        return client.post(URL, form)
    with run(execute=True):
        return client.post(URL, form)


def test_the_offering_list_links_to_the_import_page(client, importer):
    client.force_login(importer)

    response = client.get(reverse("admin:platforms_offering_changelist"))

    assert response.status_code == 200
    assert URL in response.content.decode()
    page = client.get(URL)
    assert page.status_code == 200
    assert {"file", "format", "platform", "observed_on", "source_url", "strict"} == set(
        page.context["form"].fields
    )
    assert 'enctype="multipart/form-data"' in page.content.decode()


def test_an_upload_is_kept_server_side_and_checked_in_the_background(
    client, importer, lambda_cloud, django_capture_on_commit_callbacks
):
    client.force_login(importer)

    response = upload(client, lambda_cloud, sample(LAMBDA), run=django_capture_on_commit_callbacks)

    job = ImportJob.objects.get()
    assert response.status_code == 302 and response.url == job_url(job)
    assert (job.status, job.created_by, job.size) == ("checked", importer, len(sample(LAMBDA)))
    assert ImportJobChunk.objects.filter(job=job).exists()
    page = client.get(response.url).content.decode()
    assert "Preview: nothing has been written" in page
    assert "offerings would be created 374, updated 0, unchanged 0" in page
    assert "gpu_1x_a100@us-east-1" in page
    assert "CPU-only instance (no GPU)" in page and "2-35" in page
    assert 'name="apply"' in page
    assert "payload" not in page  # the confirmation carries no copy of the file
    assert (Offering.objects.count(), PriceObservation.objects.count()) == (0, 0)


def test_confirming_the_preview_imports_the_kept_file_in_a_background_job(
    client, importer, lambda_cloud, django_capture_on_commit_callbacks
):
    client.force_login(importer)
    response = upload(client, lambda_cloud, sample(LAMBDA), run=django_capture_on_commit_callbacks)
    job = ImportJob.objects.get()

    # The write goes to the worker once the confirmation is committed (here: eagerly).
    with django_capture_on_commit_callbacks(execute=True) as started:
        confirmed = client.post(response.url, {"apply": "Confirm and import"})

    job.refresh_from_db()
    # The import's task, and the watches' check that every catalogue write queues (watches/).
    assert [c.__qualname__ for c in started].count("job_confirm.<locals>.<lambda>") == 1
    assert confirmed.status_code == 302 and confirmed.url == job_url(job)
    assert (job.status, job.created_by, job.created, job.rows) == ("succeeded", importer, 374, 408)
    assert not ImportJobChunk.objects.exists()  # the file is not kept once applied
    assert Offering.objects.filter(platform=lambda_cloud).count() == 374
    observation = PriceObservation.objects.get(offering__external_id="gpu_1x_a100@us-east-1")
    assert observation.created_by == importer
    assert timezone.localtime(observation.observed_at).date().isoformat() == "2026-11-01"
    page = client.get(confirmed.url).content.decode()
    assert "The file was imported." in page
    assert (
        "SkyPilot catalog (vms.csv) vms.csv: 408 rows</li><li>offerings created 374, updated 0, "
        "unchanged 0</li><li>prices added 374, re-seen 0"
    ) in page
    assert 'id="job-refresh"' not in page and 'name="apply"' not in page


def test_a_queued_check_shows_its_progress_with_a_refresh_link_and_as_json(
    client, importer, lambda_cloud
):
    client.force_login(importer)
    # Not committed, so no worker has it yet.
    response = upload(client, lambda_cloud, sample(LAMBDA))
    job = ImportJob.objects.get()

    page = client.get(response.url).content.decode()
    status = client.get(response.url, {"format": "json"}).json()

    assert job.status == "check_queued" and Offering.objects.count() == 0
    assert "waits for a worker to check it" in page
    assert f'href="{response.url}" id="job-refresh"' in page
    assert '<progress id="job-progress" max="100" value="0">' in page
    assert 'name="apply"' not in page
    assert status == {
        "status": "check_queued",
        "status_label": "waiting for a worker to check the file",
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
        confirmed_at=timezone.now(),
    )
    cache.set(f"feeds:import-job:{job.pk}:progress", {"phase": "writing", "done": 50, "total": 200})

    status = client.get(job_url(job), {"format": "json"}).json()
    page = client.get(job_url(job)).content.decode()

    assert (status["percent"], status["progress_text"]) == (25, "writing rows: 50 of 200")
    assert "writing rows: 50 of 200" in page and "The import is running." in page


def test_a_bad_file_shows_its_errors_with_lines_and_offers_no_confirm(
    client, importer, lambda_cloud, django_capture_on_commit_callbacks
):
    client.force_login(importer)
    text = (
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo\n"
        "gpu_1x_a10,A10,1,30,200,1.29,us-east-1,\n"
        "gpu_1x_a10,A10,1,30,200,n/a,us-west-1,\n"
    )

    response = upload(client, lambda_cloud, text, run=django_capture_on_commit_callbacks)

    page = client.get(response.url).content.decode()
    assert "1 bad row: fix the file and upload it again" in page
    assert "<li>line 3: Price is not a number: &#x27;n/a&#x27;</li>" in page
    assert 'name="apply"' not in page
    assert ImportJob.objects.get().status == "refused"
    assert not ImportJobChunk.objects.exists() and Offering.objects.count() == 0


def test_only_the_uploader_may_confirm(
    client, importer, lambda_cloud, django_capture_on_commit_callbacks
):
    client.force_login(importer)
    response = upload(client, lambda_cloud, sample(LAMBDA), run=django_capture_on_commit_callbacks)
    colleague = staff_with_import_permission("colleague")
    client.force_login(colleague)

    page = client.get(response.url).content.decode()
    refused = client.post(response.url, {"apply": "Confirm and import"})

    assert "Preview: nothing has been written" in page and 'name="apply"' not in page
    assert refused.status_code == 403
    assert ImportJob.objects.get().status == "checked" and Offering.objects.count() == 0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"InstanceType\n\xff\xfe\n", "The file is not UTF-8 text."),
        (b"x" * (20 * 1024 * 1024 + 1), "The file is larger than 20 MB"),
    ],
)
def test_a_file_that_is_not_utf8_or_over_20_mb_is_refused_with_a_message(
    client, importer, lambda_cloud, content, message
):
    client.force_login(importer)

    response = upload(client, lambda_cloud, content)

    assert response.status_code == 200
    assert message in response.content.decode()
    assert not ImportJob.objects.exists() and not ImportJobChunk.objects.exists()


def test_a_catalog_format_needs_a_platform(client, importer, lambda_cloud):
    client.force_login(importer)

    response = upload(client, lambda_cloud, sample(LAMBDA), platform="")

    assert response.context["form"].errors == {
        "platform": ["Choose the platform this catalog lists."]
    }
    assert not ImportJob.objects.exists()


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
