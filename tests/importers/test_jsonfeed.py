"""Our JSON feed format (docs/feeds.md) parses into the same rows as the CSV formats; its example
imports; bad documents and offers are errors that name the field."""

from __future__ import annotations

import io
import json
from decimal import Decimal
from pathlib import Path

import pytest

from platforms.importers import jsonfeed
from platforms.importers.rows import Parsed, observed_at_value
from platforms.models import Offering, PriceObservation

from .conftest import DAY_2, make_platform, run

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "feeds-example.json"


def document(*offers: dict, **top) -> str:
    return json.dumps({"version": 1, "platform": "autodl", "offers": list(offers), **top})


def offer(**fields) -> dict:
    return {
        "key": "rtx4090-1x",
        "name": "RTX 4090 x1",
        "accelerator": "RTX 4090",
        "gpu_count": 1,
        "prices": [{"unit": "hour", "amount": "1.88", "currency": "CNY"}],
        **fields,
    }


def test_the_example_parses_into_offer_rows():
    parsed = jsonfeed.parse(EXAMPLE.read_text(encoding="utf-8"))

    assert (parsed.total, parsed.errors, parsed.skipped) == (3, [], [])
    first = parsed.rows[0]
    assert (first.platform_slug, first.external_id, first.accelerator_name, first.gpu_count) == (
        "autodl",
        "rtx4090-24g",
        "RTX 4090",
        1,
    )
    assert (first.vcpus, first.ram_gib, first.disk_gb, first.interconnect) == (
        16,
        Decimal("120.0"),
        50,
        "pcie",
    )
    assert [(p.unit, p.amount, p.currency) for p in first.prices] == [
        ("hour", Decimal("1.8800"), "CNY"),
        ("month", Decimal("1052.0000"), "CNY"),
    ]
    assert first.prices[0].source_url == "https://www.autodl.com/home"
    assert parsed.rows[1].interruptible is True
    assert parsed.rows[2].prices[0].observed_at == observed_at_value("2026-11-01")


def test_the_example_imports(accelerators):
    autodl = make_platform("autodl", "AutoDL", ["cloud_container"])

    report = run(EXAMPLE.read_text(encoding="utf-8"), "json", None, DAY_2)

    assert report.ok and report.applied and report.created == 3
    assert Offering.objects.filter(platform=autodl).count() == 3
    a800 = PriceObservation.objects.get(offering__external_id="a800-80g")
    assert a800.offering.accelerator.slug == "a800-80gb"
    assert a800.observed_at == observed_at_value("2026-11-01")
    assert a800.source.url == "https://www.autodl.com/home"


def test_an_offer_may_name_its_own_platform(accelerators):
    make_platform("autodl", "AutoDL", ["cloud_container"])
    matpool = make_platform("matpool", "Matpool", ["cloud_container"])

    report = run(document(offer(platform="matpool")), "json", None)

    assert report.applied and Offering.objects.get().platform == matpool


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not a JSON document"),
        ("[]", "must be a JSON object"),
        (json.dumps({"version": 2, "offers": []}), "version must be 1, not 2"),
        (json.dumps({"version": 1, "offers": [], "extra": 1}), "unknown key(s): extra"),
        (json.dumps({"version": 1, "offers": {}}), "offers must be a list"),
        (
            json.dumps({"version": 1, "offers": [], "observed_at": "soon"}),
            "observed_at: not a date",
        ),
    ],
)
def test_a_bad_document_is_one_error_for_the_whole_file(text, message):
    parsed = jsonfeed.parse(text)

    assert parsed.rows == [] and len(parsed.errors) == 1
    assert parsed.errors[0].line == 0 and message in parsed.errors[0].message


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"gpu_count": 0}, "offers[0]: gpu_count must be 1 or more"),
        ({"gpu_count": 1.5}, "offers[0]: gpu_count is not a whole number: 1.5"),
        ({"gpu_count": "8"}, None),
        ({"name": ""}, "offers[0]: name is required"),
        ({"colour": "red"}, "offers[0]: unknown key(s): colour"),
        ({"interruptible": "yes"}, 'offers[0]: interruptible must be true or false, not "yes"'),
        ({"sharing_mode": "shared"}, "offers[0]: sharing_mode must be one of"),
        ({"vcpus": True}, "offers[0]: vcpus must be a number, not true"),
        ({"prices": []}, "offers[0]: prices must be a list of at least one price"),
        (
            {"prices": [{"unit": "hour", "amount": "n/a", "currency": "CNY"}]},
            "offers[0]: prices[0].amount is not a number: 'n/a'",
        ),
        (
            {"prices": [{"unit": "hour", "amount": -1, "currency": "CNY"}]},
            "offers[0]: prices[0].amount is negative: -1",
        ),
        (
            {"prices": [{"unit": "fortnight", "amount": 1, "currency": "CNY"}]},
            "offers[0]: prices[0].unit must be one of",
        ),
        (
            {"prices": [{"unit": "hour", "amount": 1, "currency": "CNY", "tax": 0}]},
            "offers[0]: prices[0]: unknown key(s): tax",
        ),
        (
            {"prices": [{"unit": "hour", "amount": 1}]},
            "offers[0]: prices[0].currency is required",
        ),
    ],
)
def test_a_bad_offer_names_its_field(fields, message):
    parsed = jsonfeed.parse(document(offer(**fields)))

    if message is None:
        assert parsed.errors == [] and parsed.rows[0].gpu_count == 8
        return
    assert [(e.line, e.reason) for e in parsed.errors] == [(1, "bad value")]
    assert parsed.errors[0].message.startswith(message)


def test_a_price_given_twice_for_one_offer_is_an_error():
    twice = offer(prices=[{"unit": "hour", "amount": "1", "currency": "CNY"}])
    parsed = jsonfeed.parse(document(twice, twice))

    assert [(e.line, e.reason) for e in parsed.errors] == [(2, "duplicate price")]


def test_money_is_read_exactly_and_rounded_to_four_places():
    parsed = jsonfeed.parse(
        document(offer(prices=[{"unit": "hour", "amount": 0.1, "currency": "usd"}]))
    )
    price = parsed.rows[0].prices[0]

    assert (price.amount, price.currency) == (Decimal("0.1000"), "USD")


def test_a_document_with_a_bad_offer_writes_nothing(accelerators):
    make_platform("autodl", "AutoDL", ["cloud_container"])

    report = run(document(offer(), offer(key="other", gpu_count=0)), "json", None)

    assert not report.applied and len(report.errors) == 1
    assert Offering.objects.count() == 0


EXAMPLE_TEXT = EXAMPLE.read_text(encoding="utf-8")
GOOD = document(
    offer(), offer(key="b", prices=[{"unit": "hour", "amount": 2.5, "currency": "CNY"}])
)
# Defaults after the offers, repeated keys (the last one counts, as json.load keeps it), numbers
# and literals that a window can cut, and documents json.load refuses at various places.
DOCUMENTS = [
    EXAMPLE_TEXT,
    GOOD,
    '{"offers": [' + json.dumps(offer()) + '], "version": 1, "platform": "autodl"}',
    '{"version": 1, "offers": [1], "platform": "autodl", "offers": [' + json.dumps(offer()) + "]}",
    '{"version": 1, "offers": [' + json.dumps(offer()) + '], "offers": {}}',
    '  \n {"version": 1,\n "offers": [ ], "platform": "x"}  \n',
    '{"version": 1, "offers": [{"gpu_count": -Infinity, "vcpus": 123456789012, "key": null}]}',
    "",
    "{",
    "[]",
    "\ufeff" + GOOD,
    GOOD + " x",
    GOOD[:-40],
    GOOD.replace(",", "", 3),
    GOOD.replace('"name"', "name"),
    GOOD.replace(":", "", 5),
    '{"version": 1, "offers": [1,]}',
    '{"version": 1, "offers": [1], }',
    '{"version": 1, "offers": ["unterminated]}',
    '{"version": 1,\n "offers": [tru]}',
    '{"version": 1, "offers": [' + "[" * 100_000 + "]" * 100_000 + "]}",
]


@pytest.mark.parametrize("window", [None, 5, 64 * 1024])
@pytest.mark.parametrize("text", DOCUMENTS, ids=[f"document {i}" for i in range(len(DOCUMENTS))])
def test_a_document_read_a_window_at_a_time_reads_as_it_does_whole(text, window, monkeypatch):
    """The offers, errors (with their positions) and count are json.load's, however the windows
    cut the document (None: the document given as a string)."""
    whole = Parsed(rows=[], total=0)
    whole.rows = list(jsonfeed._read_whole(text, whole))
    if window is not None:
        monkeypatch.setattr(jsonfeed, "WINDOW", window)
    streamed = Parsed(rows=[], total=0)
    given = text if window is None else io.StringIO(text, newline="")
    streamed.rows = list(jsonfeed.read(given, streamed))

    assert streamed == whole
