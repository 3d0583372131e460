"""The admin's background import job: its file kept server-side in chunks and read back as it is
parsed; checked (the preview) then, once confirmed by whoever uploaded it, applied whole or not at
all; its outcome saved with what it wrote; its file dropped once done; a step is taken once."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from feeds import jobs, services, uploads
from feeds.models import ImportJob, ImportJobChunk
from feeds.tasks import apply_import_job, check_import_job
from platforms.models import Offering

from .conftest import LAMBDA, LAMBDA_ROWS, make_platform, sample

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "feeds-example.json"


@pytest.fixture
def uploader(db) -> User:
    return User.objects.create_user("importer", password="pw", is_staff=True)


def pieces(text: str, size: int = 1000):
    data = text.encode()
    return (data[start : start + size] for start in range(0, len(data), size))


def upload(platform, text: str, uploader, **extra) -> ImportJob:
    """A job as the admin's upload makes it (its check queued on commit: not run here)."""
    return jobs.job_create(
        pieces=pieces(text),
        max_bytes=extra.pop("max_bytes", 20 * 1024 * 1024),
        fmt=extra.pop("fmt", "skypilot"),
        filename="vms.csv",
        platform=platform,
        observed_at=timezone.now(),
        source_url="",
        strict=False,
        created_by=uploader,
    )


def checked(platform, text: str, uploader) -> ImportJob:
    job = upload(platform, text, uploader)
    assert check_import_job.delay(job_id=job.pk).get() in ("checked", "refused")
    job.refresh_from_db()
    return job


def test_the_file_is_kept_in_chunks_and_read_back_as_it_was(lambda_cloud, uploader, monkeypatch):
    monkeypatch.setattr(uploads, "CHUNK_BYTES", 4096)
    text = "\ufeff" + sample(LAMBDA) + "é中\n"
    job = upload(lambda_cloud, text, uploader)

    chunks = ImportJobChunk.objects.filter(job=job).order_by("index")
    assert job.size == len(text.encode())
    assert [c.index for c in chunks] == list(range(-(-job.size // 4096)))
    assert max(len(bytes(c.data)) for c in chunks) == 4096
    with uploads.job_file_open(job) as stream:
        assert stream.read() == text[1:]  # the byte-order mark dropped


def test_a_json_document_in_chunks_is_checked_and_applied(accelerators, uploader, monkeypatch):
    """The feed example, its offers spread over chunks of 100 bytes (and read 64 characters at a
    time), before its defaults: read an offer at a time, twice per pass, from the chunks."""
    monkeypatch.setattr(uploads, "CHUNK_BYTES", 100)
    monkeypatch.setattr("platforms.importers.jsonfeed.WINDOW", 64)
    autodl = make_platform("autodl", "AutoDL", ["cloud_container"])
    example = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    offers_first = {"offers": example.pop("offers"), **example}
    job = upload(None, json.dumps(offers_first, indent=1), uploader, fmt="json")
    assert ImportJobChunk.objects.filter(job=job).count() > 10

    assert check_import_job.delay(job_id=job.pk).get() == "checked"
    jobs.job_confirm(job, by=uploader)
    jobs.job_run(job.pk)

    job.refresh_from_db()
    assert (job.status, job.rows, job.created) == ("succeeded", 3, 3)
    assert Offering.objects.filter(platform=autodl).count() == 3


@pytest.mark.parametrize(
    ("data", "limit", "code"),
    [
        (b"a,b\n\xff\xfe\n", 1000, "not_utf8"),
        ("a,b\n1,é".encode()[:-1], 1000, "not_utf8"),  # cut inside a character
        (b"x" * 2001, 2000, "too_large"),
    ],
)
def test_a_file_that_is_not_utf8_or_too_large_is_refused_before_anything_is_kept(
    lambda_cloud, uploader, data, limit, code
):
    with pytest.raises(uploads.FileRefused) as refused:
        jobs.job_create(
            pieces=iter([data[:3], data[3:]]),
            max_bytes=limit,
            fmt="skypilot",
            filename="vms.csv",
            platform=lambda_cloud,
            observed_at=timezone.now(),
            source_url="",
            strict=False,
            created_by=uploader,
        )

    assert refused.value.code == code
    assert not ImportJob.objects.exists() and not ImportJobChunk.objects.exists()


def test_a_check_previews_the_file_and_writes_nothing(lambda_cloud, uploader, lambda_sample):
    job = checked(lambda_cloud, sample(LAMBDA), uploader)

    assert (job.status, job.rows, job.created, job.skipped) == (
        "checked",
        LAMBDA_ROWS,
        lambda_sample.offerings,
        lambda_sample.skipped,
    )
    assert job.preview["offerings"] == lambda_sample.offerings
    assert len(job.preview["changes"]) == lambda_sample.offerings
    assert job.preview["changes"][0]["action"] == "created"
    assert job.preview["skipped"] == [["CPU-only instance (no GPU)", 34, "2-35"]]
    assert job.summary[1].startswith("offerings would be created")
    assert Offering.objects.count() == 0
    assert ImportJobChunk.objects.filter(job=job).exists()  # kept for the confirmation


def test_a_confirmed_job_is_applied_and_its_file_dropped(lambda_cloud, uploader, lambda_sample):
    job = checked(lambda_cloud, sample(LAMBDA), uploader)

    assert jobs.job_confirm(job, by=uploader)
    assert job.status == "queued" and job.confirmed
    assert apply_import_job.delay(job_id=job.pk).get() == "succeeded"

    job.refresh_from_db()
    assert (job.status, job.created, job.skipped, job.errors) == (
        "succeeded",
        lambda_sample.offerings,
        lambda_sample.skipped,
        0,
    )
    assert Offering.objects.count() == lambda_sample.offerings
    assert not ImportJobChunk.objects.filter(job=job).exists()
    assert job.finished_at is not None and jobs.job_progress(job).percent == 100


def test_a_file_with_a_bad_row_is_refused_at_the_check_and_dropped(lambda_cloud, uploader):
    bad = sample(LAMBDA) + "gpu_1x_a10,A10,1,30,200,n/a,us-west-9,,\n"

    job = checked(lambda_cloud, bad, uploader)

    assert (job.status, job.error_code, job.errors) == ("refused", "rows", 1)
    assert job.problems == ["line 410: Price is not a number: 'n/a'"]
    assert not jobs.job_confirm(job, by=uploader)
    assert not ImportJobChunk.objects.filter(job=job).exists()


def test_only_the_uploader_confirms_a_checked_job_once(lambda_cloud, uploader):
    job = checked(lambda_cloud, sample(LAMBDA), uploader)
    other = User.objects.create_user("other", password="pw", is_staff=True)

    assert not jobs.job_confirm(job, by=other)
    assert jobs.job_confirm(job, by=uploader)
    assert not jobs.job_confirm(job, by=uploader)


def test_a_preview_not_confirmed_in_time_expires_and_its_file_is_dropped(lambda_cloud, uploader):
    job = checked(lambda_cloud, sample(LAMBDA), uploader)
    ImportJob.objects.filter(pk=job.pk).update(
        checked_at=timezone.now() - jobs.CONFIRM_WITHIN - timedelta(seconds=1)
    )
    job.refresh_from_db()

    assert not jobs.job_confirm(job, by=uploader)

    job.refresh_from_db()
    assert (job.status, job.error_code) == ("expired", "expired")
    assert job.error_text.startswith("The preview was not confirmed within an hour")
    assert not ImportJobChunk.objects.filter(job=job).exists()


def test_tidying_marks_stuck_steps_and_old_previews(lambda_cloud, uploader, settings):
    long_ago = timezone.now() - timedelta(seconds=settings.FEED_RUN_STALE_S + 1)
    stuck = upload(lambda_cloud, "x", uploader)
    ImportJob.objects.filter(pk=stuck.pk).update(status="running", started_at=long_ago)
    old = checked(lambda_cloud, sample(LAMBDA), uploader)
    ImportJob.objects.filter(pk=old.pk).update(checked_at=long_ago - jobs.CONFIRM_WITHIN)
    fresh = checked(lambda_cloud, sample(LAMBDA), uploader)

    assert services.abandon_stale() == 2

    stuck.refresh_from_db()
    old.refresh_from_db()
    fresh.refresh_from_db()
    assert (stuck.status, stuck.error_code) == ("failed", "abandoned")
    assert old.status == "expired" and fresh.status == "checked"
    # The stuck job keeps its file, to be retried (tests/feeds/test_recovery.py).
    kept = set(ImportJobChunk.objects.values_list("job", flat=True).distinct())
    assert kept == {stuck.pk, fresh.pk}


def test_a_job_whose_file_went_bad_writes_nothing(lambda_cloud, uploader, monkeypatch):
    """Checked, then the catalogue changed: the worker finds bad rows and writes nothing."""
    job = checked(lambda_cloud, sample(LAMBDA), uploader)
    jobs.job_confirm(job, by=uploader)
    monkeypatch.setattr("platforms.importers.service.rows_for", _bad_rows)

    jobs.job_run(job.pk)

    job.refresh_from_db()
    assert (job.status, job.error_code, job.errors) == ("failed", "rows", 1)
    assert job.error_text.startswith("1 bad row(s), nothing was written; the first: line 9")
    assert Offering.objects.count() == 0 and not ImportJobChunk.objects.exists()


def _bad_rows(fmt, text, platform=""):
    from platforms.importers.rows import MergedRows, RowProblem

    def read(text, parsed):
        parsed.total = 1
        parsed.errors.append(RowProblem(9, "bad value", "changed"))
        return iter(())

    return MergedRows(text, read, same_unit="error")


def test_each_step_is_taken_once(lambda_cloud, uploader):
    job = checked(lambda_cloud, sample(LAMBDA), uploader)
    assert jobs.job_check(job.pk) is None
    jobs.job_confirm(job, by=uploader)
    jobs.job_run(job.pk)

    assert jobs.job_run(job.pk) is None


def test_progress_is_written_as_the_rows_go(lambda_cloud, uploader, monkeypatch):
    seen = []
    real_set = jobs.cache.set
    monkeypatch.setattr(
        jobs.cache,
        "set",
        # Progress only, not the worker's heartbeat (feeds.liveness).
        lambda key, value, ttl: (
            key.endswith(":progress") and seen.append(value),
            real_set(key, value, ttl),
        ),
    )
    job = checked(lambda_cloud, sample(LAMBDA), uploader)
    checking, seen[:] = list(seen), []
    jobs.job_confirm(job, by=uploader)

    jobs.job_run(job.pk)

    for phase, values in (("checking", checking), ("writing", seen)):
        steps = [(v["phase"], v["done"], v["total"]) for v in values]
        assert steps[0] == (phase, 0, LAMBDA_ROWS)
        assert steps[-1] == (phase, LAMBDA_ROWS, LAMBDA_ROWS)
        assert [done for _, done, _ in steps] == sorted(done for _, done, _ in steps)
