"""The admin import takes the files it invites (up to 20 MB): an 11 MB, 100,000-row catalog is
uploaded, checked and applied by background jobs, its confirmation a two-field form, and the file
is read from the server as it is parsed, never whole in memory, in two passes, so that what is
held follows the file's offerings, not its rows.

Before, the file travelled in the confirm form as a signed payload: an 11 MB file previewed, then
the confirmation was refused by Django's form-data limit (DATA_UPLOAD_MAX_MEMORY_SIZE, 2.5 MB) with
a bare 400; a 100,000-row file was written inside the request until the worker timed out; and the
preview's peak memory was 27-50x the file's size.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable

import pytest
from django.conf import settings
from django.contrib.auth.models import Permission, User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from feeds import jobs, uploads
from feeds.models import ImportJob, ImportJobChunk
from platforms.models import Offering, PriceObservation

URL = reverse("admin:platforms_offering_import")
HEADER = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,"
    "AvailabilityZone\n"
)
GPU_INFO = "\"{'Gpus': [{'Name': 'A10', 'MemoryInfo': {'SizeInMiB': 24576}}]}\""
ZONES = "abcdefghij"
ROWS = 100_000
# Peak memory of the check and of the apply of the 100,000-row catalog, as a multiple of its size.
# Measured 0.6x each (12.4 MB file, 10,000 offerings); before the file was read in two passes,
# 9.4x and 9.5x: every row's parsed offer was held until the rows of each offering were merged.
# 2x leaves room for allocator differences between Python builds, not for the rows to come back.
PEAK_PER_BYTE = 2


def catalog(path, rows: int) -> int:
    """A SkyPilot AWS-style catalog: one row per availability zone, ten zones per instance type
    and region (so 100,000 rows are 10,000 offerings, the lowest zone price kept); its size."""
    with path.open("w", encoding="utf-8", newline="") as file:
        file.write(HEADER)
        for i in range(rows):
            n, zone = divmod(i, len(ZONES))
            price = 1 + (n % 300) / 100 + zone / 1000
            region = f"us-east-{n % 9}"
            file.write(
                f"gpu_1x_a10_{n:06d},A10,1,30,200,{price:.3f},{region},{GPU_INFO},"
                f"{region}{ZONES[zone]}\n"
            )
    return path.stat().st_size


@pytest.fixture
def importer(db) -> User:
    user = User.objects.create_user("importer", password="pw", is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(
            codename__in=["view_offering", "add_offering", "add_priceobservation"]
        )
    )
    return user


def _peak(step: Callable[[], object]) -> int:
    """The peak memory (tracemalloc) `step()` allocates above what was held before it."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        step()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def test_an_11_mb_100000_row_file_is_checked_and_applied_in_the_background(
    client, importer, lambda_cloud, tmp_path, django_capture_on_commit_callbacks
):
    """Uploaded, checked, confirmed and applied, the check and the apply each peaking under
    PEAK_PER_BYTE times the file's size."""
    path = tmp_path / "vms.csv"
    size = catalog(path, ROWS)
    assert 11 * 1000 * 1000 < size < 20 * 1024 * 1024
    client.force_login(importer)

    # The upload: kept server-side; the check is handed to a worker on commit (run here).
    with django_capture_on_commit_callbacks(execute=False) as checks, path.open("rb") as file:
        uploaded = client.post(
            URL,
            {"file": file, "format": "skypilot", "platform": lambda_cloud.pk,
             "observed_on": "2026-11-01", "preview": "Preview"},
        )  # fmt: skip
    assert len(checks) == 1
    checking = _peak(checks[0])
    job = ImportJob.objects.get()
    preview = client.get(uploaded.url).content.decode()

    assert (job.status, job.size, job.rows, job.created) == ("checked", size, ROWS, 10_000)
    assert "offerings would be created 10000, updated 0, unchanged 0" in preview
    assert "merged 90000 rows" in preview
    assert "Showing 1000 of 10000 offerings" in preview
    assert Offering.objects.count() == 0

    # The confirmation: two fields, far below the form-data limit, and the request does not write.
    confirm = {"apply": "Confirm and import"}
    with django_capture_on_commit_callbacks(execute=False) as handed_over:
        confirmed = client.post(uploaded.url, confirm)
    job.refresh_from_db()
    assert confirmed.status_code == 302 and job.status == "queued"
    assert sum(len(k) + len(v) for k, v in confirm.items()) < settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    assert Offering.objects.count() == 0 and len(handed_over) == 1

    applying = _peak(handed_over[0])  # the worker
    job.refresh_from_db()
    status = client.get(uploaded.url, {"format": "json"}).json()

    assert (job.status, job.created, job.rows) == ("succeeded", 10_000, ROWS)
    assert (status["finished"], status["percent"]) == (True, 100)
    assert Offering.objects.filter(platform=lambda_cloud).count() == 10_000
    # The lowest zone's price of each offering.
    first = PriceObservation.objects.get(offering__external_id="gpu_1x_a10_000000@us-east-0")
    assert str(first.amount) == "1.000000"
    assert not ImportJobChunk.objects.exists()
    assert checking < PEAK_PER_BYTE * size, f"checking: {checking / size:.1f}x the file"
    assert applying < PEAK_PER_BYTE * size, f"applying: {applying / size:.1f}x the file"


def test_the_file_is_read_from_the_database_a_chunk_at_a_time(
    lambda_cloud, importer, tmp_path, monkeypatch
):
    monkeypatch.setattr(uploads, "CHUNK_BYTES", 64 * 1024)
    path = tmp_path / "vms.csv"
    size = catalog(path, 5_000)
    with path.open("rb") as file:
        job = jobs.job_create(
            pieces=iter(lambda: file.read(10_000), b""),
            max_bytes=size,
            fmt="skypilot",
            filename="vms.csv",
            platform=lambda_cloud,
            observed_at=timezone.now(),
            source_url="",
            strict=False,
            created_by=importer,
        )
    chunks = ImportJobChunk.objects.filter(job=job).count()

    with uploads.job_file_open(job) as stream, CaptureQueriesContext(connection) as queries:
        first_line = stream.readline()
        after_first_line = len(queries)
        rest = stream.read()
        after_the_file = len(queries)
        # The importer reads the file twice: back to the start, from the first chunk again.
        stream.seek(0)
        again = stream.readline()

    assert chunks == -(-size // (64 * 1024)) > 1
    assert first_line == HEADER and len(first_line) + len(rest.encode()) == size
    # One chunk read for the first line; each of the others once, as the reader reaches it.
    assert after_first_line == 1
    assert after_the_file == chunks + 1  # and one that finds no chunk after the last
    assert again == HEADER and len(queries) == after_the_file + 1


def test_checking_a_file_holds_its_offerings_not_its_rows(lambda_cloud, importer):
    """Peak memory (tracemalloc) of the check of a 10,000-row native CSV (548 KB), uploaded in
    pieces, each row its own offering: the file's smallest rows, so the most offerings per byte.

    Before: 61.5 MB for such a file of 20,000 rows (1.2 MB), 50x its size: the text, its signed
    and compressed payload, and every planned model object at once. Then, each batch of 500 rows
    planned and dropped and the file streamed in from its chunks: 24x at 10,000 rows, the parsed
    rows (about 1 KB each) held so that an offering's rows anywhere in the file fold together.
    Now the file is read twice, the first pass keeping two ints per offering (its key's hash,
    its last line), the second holding an offering only from its first row to its last: measured
    10.7x at 10,000 rows, where the fixed costs (a batch of planned offerings) weigh most, and
    3.1x at 100,000 (5.7 MB; the apply too), too slow to check here. 15x leaves room for
    allocator differences between Python builds, not for the parsed rows to come back.
    """
    header = "offering_key,name,accelerator,gpu_count,billing_unit,amount,currency,vcpus,ram_gib\n"
    text = header + "".join(
        f"k{i},RTX 4090 box {i},RTX 4090,1,hour,{1 + i % 500 / 100:.2f},CNY,16,64\n"
        for i in range(10_000)
    )
    data = text.encode()
    job = jobs.job_create(
        pieces=(data[start : start + 65536] for start in range(0, len(data), 65536)),
        max_bytes=len(data),
        fmt="native",
        filename="native.csv",
        platform=lambda_cloud,
        observed_at=timezone.now(),
        source_url="",
        strict=False,
        created_by=importer,
    )
    size = len(data)
    del data, text

    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        jobs.job_check(job.pk)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()

    job.refresh_from_db()
    assert (job.status, job.created) == ("checked", 10_000)
    assert peak < 15 * size, f"{peak / size:.1f}x the file"
