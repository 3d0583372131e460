"""The admin's background import job: applied whole or not at all, its outcome saved with what it
wrote, its file not kept; a job is taken once."""

from __future__ import annotations

from django.utils import timezone

from feeds import jobs, services
from feeds.models import ImportJob
from feeds.tasks import apply_import_job
from platforms.models import Offering

from .conftest import LAMBDA, LAMBDA_ROWS, sample


def job(platform, text: str, **extra) -> ImportJob:
    return ImportJob.objects.create(
        format="skypilot",
        filename="vms.csv",
        platform=platform,
        observed_at=timezone.now(),
        text=text,
        **extra,
    )


def test_a_job_is_applied_and_its_file_dropped(lambda_cloud, lambda_sample):
    queued = job(lambda_cloud, sample(LAMBDA))

    assert apply_import_job.delay(job_id=queued.pk).get() == "succeeded"

    queued.refresh_from_db()
    assert (queued.status, queued.created, queued.skipped, queued.errors) == (
        "succeeded",
        lambda_sample.offerings,
        lambda_sample.skipped,
        0,
    )
    assert queued.text == "" and queued.finished_at is not None
    assert jobs.job_progress(queued).percent == 100


def test_a_job_whose_file_went_bad_writes_nothing(lambda_cloud):
    """Previewed, then the platform's accelerators changed: the worker finds bad rows."""
    bad = sample(LAMBDA) + "gpu_1x_a10,A10,1,30,200,n/a,us-west-9,,\n"
    queued = job(lambda_cloud, bad)

    jobs.job_run(queued.pk)

    queued.refresh_from_db()
    assert (queued.status, queued.error_code, queued.errors) == ("failed", "rows", 1)
    assert queued.error_text.startswith("1 bad row(s), nothing was written; the first: line 410")
    assert Offering.objects.count() == 0 and queued.text == ""


def test_a_job_is_taken_once(lambda_cloud):
    queued = job(lambda_cloud, sample(LAMBDA))
    jobs.job_run(queued.pk)

    assert jobs.job_run(queued.pk) is None


def test_a_job_whose_worker_stopped_is_marked_failed(lambda_cloud, settings):
    long_ago = timezone.now() - timezone.timedelta(seconds=settings.FEED_RUN_STALE_S + 1)
    stuck = job(lambda_cloud, "x", status="running", started_at=long_ago)

    assert services.abandon_stale() == 1

    stuck.refresh_from_db()
    assert (stuck.status, stuck.error_code, stuck.text) == ("failed", "abandoned", "")


def test_progress_is_written_as_the_rows_go(lambda_cloud, monkeypatch):
    seen = []
    real_set = jobs.cache.set
    monkeypatch.setattr(
        jobs.cache, "set", lambda key, value, ttl: (seen.append(value), real_set(key, value, ttl))
    )
    queued = job(lambda_cloud, sample(LAMBDA))

    jobs.job_run(queued.pk)

    phases = [(v["phase"], v["done"], v["total"]) for v in seen]
    assert phases[0] == ("checking", 0, LAMBDA_ROWS)
    assert ("checking", LAMBDA_ROWS, LAMBDA_ROWS) in phases
    # Writing counts the lines that make offerings, up to all of them.
    phase, done, total = phases[-1]
    assert phase == "writing" and done == total > 0
