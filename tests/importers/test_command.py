"""`manage.py import_offers`: exit status, summary on stdout, errors and progress on stderr."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from platforms.models import Offering, PriceObservation, Source

from .conftest import DATA

LAMBDA = str(DATA / "skypilot-v8-lambda-vms.csv")


def import_offers(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("import_offers", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_the_command_imports_and_prints_a_summary(lambda_cloud):
    out, err = import_offers(
        LAMBDA,
        "--format=skypilot",
        "--platform=lambda",
        "--observed-at=2026-11-01",
        "--source=https://example.com/vms.csv",
    )

    assert out.splitlines() == [
        "SkyPilot catalog (vms.csv) skypilot-v8-lambda-vms.csv: 408 rows",
        "offerings created 374, updated 0, unchanged 0",
        "prices added 374, re-seen 0",
        "skipped 34 rows",
        "  CPU-only instance (no GPU): 34 (lines 2-35)",
        "errors 0",
        "source: Import of skypilot-v8-lambda-vms.csv (SkyPilot catalog (vms.csv)), "
        "2026-11-01 <https://example.com/vms.csv>",
    ]
    assert Offering.objects.count() == 374
    assert Source.objects.get(kind="import").url == "https://example.com/vms.csv"
    # Progress: each batch written as it is checked, ending at the total, with a rate.
    assert "writing: 408/408 rows (" in err
    assert "checking:" not in err
    assert "rows/s)" in err


def test_a_dry_run_prints_what_would_change_and_writes_nothing(lambda_cloud):
    out, _ = import_offers(LAMBDA, "--format=skypilot", "--platform=lambda", "--dry-run")

    assert "(dry run: nothing written)" in out.splitlines()[0]
    assert "offerings would be created 374, updated 0, unchanged 0" in out
    assert (Offering.objects.count(), PriceObservation.objects.count()) == (0, 0)


def test_a_file_with_bad_rows_exits_1_lists_every_bad_row_and_writes_nothing(
    lambda_cloud, tmp_path
):
    bad = tmp_path / "bad.csv"
    bad.write_text(
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo\n"
        "gpu_1x_a10,A10,1,30,200,1.29,us-east-1,\n"
        "gpu_1x_a10,A10,1,30,200,free,us-west-1,\n"
        "gpu_2x_a10,A10,x,30,200,2.58,us-east-1,\n"
    )
    out, err = StringIO(), StringIO()

    with pytest.raises(CommandError) as excinfo:
        call_command(
            "import_offers",
            str(bad),
            "--format=skypilot",
            "--platform=lambda",
            stdout=out,
            stderr=err,
        )

    assert excinfo.value.returncode == 1
    assert str(excinfo.value) == "2 bad row(s) in bad.csv; nothing was written."
    assert "error: line 3: Price is not a number: 'free'" in err.getvalue()
    assert "error: line 4: AcceleratorCount is not a number: 'x'" in err.getvalue()
    assert out.getvalue().splitlines()[-1] == "errors 2; nothing was written"
    assert Offering.objects.count() == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.csv", "--format=skypilot", "--platform=lambda"], "No such file: missing.csv"),
        (
            [LAMBDA, "--format=skypilot", "--platform=nowhere"],
            "No platform with slug 'nowhere'; create it in the admin first.",
        ),
        ([LAMBDA, "--format=skypilot"], "--platform is required for --format skypilot"),
        (
            [LAMBDA, "--format=skypilot", "--platform=lambda", "--observed-at=yesterday"],
            "--observed-at: not a date (YYYY-MM-DD) or a date and time (ISO 8601): 'yesterday'",
        ),
    ],
)
def test_usage_mistakes_exit_2_with_a_message(lambda_cloud, args, message):
    with pytest.raises(CommandError) as excinfo:
        import_offers(*args)

    assert (excinfo.value.returncode, str(excinfo.value)) == (2, message)


def test_a_file_that_is_not_utf8_exits_2_with_a_message_and_writes_nothing(lambda_cloud, tmp_path):
    """The file is read as it is parsed, so its bad byte is met then, before anything is written."""
    path = tmp_path / "vms.csv"
    path.write_bytes(Path(LAMBDA).read_bytes() + b"gpu_1x_a10,A10,1,30,200,1.29,r\xff,,\n")

    with pytest.raises(CommandError) as excinfo:
        import_offers(str(path), "--format=skypilot", "--platform=lambda")

    assert excinfo.value.returncode == 2
    assert str(excinfo.value).startswith(f"Cannot read {path}: 'utf-8' codec can't decode")
    assert Offering.objects.count() == 0


def test_a_bad_source_url_is_refused_before_anything_is_read(lambda_cloud):
    with pytest.raises(CommandError) as excinfo:
        import_offers(LAMBDA, "--format=skypilot", "--platform=lambda", "--source=not a url")

    assert excinfo.value.returncode == 1
    assert Offering.objects.count() == 0


def test_a_date_in_the_future_exits_1_and_writes_nothing(lambda_cloud):
    tomorrow = timezone.localdate() + timedelta(days=2)
    out, err = StringIO(), StringIO()

    with pytest.raises(CommandError) as excinfo:
        call_command(
            "import_offers",
            LAMBDA,
            "--format=skypilot",
            "--platform=lambda",
            f"--observed-at={tomorrow}",
            stdout=out,
            stderr=err,
        )

    assert excinfo.value.returncode == 1
    assert "error: A price cannot be observed in the future." in err.getvalue()
    assert Offering.objects.count() == 0


def test_run_as_a_program_a_bad_file_exits_1_with_no_traceback(tmp_path):
    """The real process, on its own SQLite file: exit status and stderr as a script sees them."""
    bad = tmp_path / "bad.csv"
    bad.write_text("offering_key,name\nk,n\n")
    manage = str(Path(__file__).resolve().parents[2] / "manage.py")
    env = {
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "PATH": "/usr/bin:/bin",
    }

    def manage_py(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, manage, *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )

    assert manage_py("migrate", "-v0").returncode == 0
    result = manage_py("import_offers", str(bad), "--format=native")

    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert "error: line 1: missing column(s): accelerator, amount" in result.stderr
