"""Every layer derives its closed sets from advisor/engine/vocab.py, and every member is labelled.

Adding a billing unit or a task kind is: the member in vocab.py, its label in wording/choices.py
(a migration where a model field lists it) and its translation in locale/. These tests fail when
one of those is missing, or when a layer keeps a copy of a set that no longer matches vocab.
"""

from __future__ import annotations

import re
from enum import StrEnum
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.urls import reverse
from django.utils import translation

from advisor import charts as advisor_charts
from advisor import forms as advisor_forms
from advisor.engine import billing, types, vocab
from api import filters as api_filters
from api import serializers as api_serializers
from platforms import selectors
from platforms.models import (
    ExchangeRate,
    Offering,
    Platform,
    PriceObservation,
    StoragePrice,
)
from wording import choices

PO_FILE = Path(settings.BASE_DIR) / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"
VOCAB_ENUMS = [
    value
    for value in vars(vocab).values()
    if isinstance(value, type) and issubclass(value, StrEnum) and value is not StrEnum
]


def values(enum) -> list[str]:
    return [member.value for member in enum]


# --------------------------------------------------------------------------------------- labels


def test_every_vocab_enum_has_default_labels():
    assert VOCAB_ENUMS, "vocab.py defines its sets as StrEnums"
    assert [e.__name__ for e in VOCAB_ENUMS if e not in choices.LABELS] == []
    for enum, labels in choices.LABELS.items():
        assert any(labels is mapping for e, mapping in choices.ALL_LABELS.values() if e is enum)


@pytest.mark.parametrize("name", sorted(choices.ALL_LABELS))
def test_every_member_has_an_english_label(name):
    enum, labels = choices.ALL_LABELS[name]
    assert [m.value for m in enum if m not in labels] == [], f"{name} misses a label"
    assert all(isinstance(key, enum) for key in labels), f"{name} labels a non-member"
    english = [str(labels[m]) for m in enum]
    assert all(text.strip() for text in english)
    assert len(set(english)) == len(english), f"{name} gives two members the same label"


def test_a_member_without_a_label_is_refused_at_import():
    extended = StrEnum(
        "BillingUnit", [(m.name, m.value) for m in vocab.BillingUnit] + [("FORTNIGHT", "fortnight")]
    )
    with pytest.raises(ImproperlyConfigured, match="no label for fortnight"):
        choices.text_choices(extended, choices.BILLING_UNIT_LABELS)
    fewer = StrEnum("Currency", [("CNY", "CNY")])
    with pytest.raises(ImproperlyConfigured, match="labels for no member"):
        choices.check_labels(fewer, {**choices.CURRENCY_LABELS, "EUR": "EUR"}, "CURRENCY_LABELS")


def test_label_renders_any_vocab_member_in_the_active_language():
    assert choices.label(vocab.BillingUnit.HOUR) == "per hour"
    assert choices.label(vocab.PlacementMode.WHOLE) == "exclusive GPU"
    assert choices.label(vocab.Objective.COST) == "Lowest cost"
    assert choices.label(choices.BillingUnit.DAY) == "per day"
    with translation.override("zh-hans"):
        assert choices.label(vocab.TaskKind.LORA) == "LoRA 微调"
    with pytest.raises(TypeError):
        choices.label("hour")  # type: ignore[arg-type]


def _untranslated(labels) -> list[str]:
    with PO_FILE.open("rb") as po:
        catalog = read_po(po, locale="zh_Hans")
    missing = []
    for text in labels.values():
        with translation.override("en"):
            english = str(text)
        with translation.override("zh-hans"):
            chinese = str(text)
        entry = catalog.get(english)
        if entry is None or not entry.string:
            missing.append(f"{english!r}: not in {PO_FILE.name}")
        elif chinese != entry.string:
            missing.append(f"{english!r}: not compiled (manage.py compile_translations)")
        elif chinese == english and entry.string != entry.id:
            missing.append(f"{english!r}: shown untranslated")
    return missing


@pytest.mark.parametrize("name", sorted(choices.ALL_LABELS))
def test_every_label_is_translated_into_chinese(name):
    _enum, labels = choices.ALL_LABELS[name]
    assert _untranslated(labels) == []


# ------------------------------------------------------------------------------ Django models


@pytest.mark.parametrize(
    ("model", "field", "enum"),
    [
        (PriceObservation, "unit", vocab.BillingUnit),
        (PriceObservation, "currency", vocab.Currency),
        (StoragePrice, "unit", vocab.StorageUnit),
        (StoragePrice, "currency", vocab.Currency),
        (ExchangeRate, "base", vocab.Currency),
        (ExchangeRate, "quote", vocab.Currency),
        (Offering, "sharing_mode", vocab.SharingMode),
        (Offering, "interconnect", vocab.Interconnect),
        (Platform, "multi_task", vocab.MultiTask),
    ],
)
def test_model_choices_are_the_vocab_values_with_their_labels(model, field, enum):
    choices_ = model._meta.get_field(field).choices
    assert [value for value, _label in choices_] == values(enum)
    assert [str(label) for _value, label in choices_] == [
        str(choices.LABELS[enum][m]) for m in enum
    ]


def test_the_models_and_their_migrations_agree(db):
    # A member added to vocab without a migration for the fields that list it fails here.
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


# ---------------------------------------------------------------------------- the advisor form


@pytest.mark.parametrize(
    ("form_choices", "enum"),
    [
        (advisor_forms.KIND_CHOICES, vocab.TaskKind),
        (advisor_forms.WHEN_CHOICES, vocab.When),
        (advisor_forms.ISOLATION_CHOICES, vocab.Isolation),
        (advisor_forms.CURRENCY_CHOICES, vocab.Currency),
        (advisor_forms.OBJECTIVE_CHOICES, vocab.Objective),
    ],
)
def test_the_forms_choices_are_the_vocab_members(form_choices, enum):
    assert [value for value, _label in form_choices] == values(enum)


def test_the_task_form_offers_every_kind():
    field = advisor_forms.TaskForm().fields["kind"]
    assert [value for value, _label in field.choices] == values(vocab.TaskKind)
    assert set(advisor_forms.TRAINING_KINDS) == vocab.TRAINING_KINDS


# Form fields of the scenario fields they fill (the form asks for billions).
FORM_FIELD = {"params": "params_b", "tokens": "tokens_b"}
COMMON = {"kind", "name", "gpus", "when", "hours_per_month", "isolation", "on"}


@pytest.mark.parametrize("kind", list(vocab.TaskKind))
def test_a_task_row_sends_only_the_fields_of_its_kinds_groups(kind):
    data = advisor_forms._task_defaults("t0")
    data |= {"t0-kind": kind.value, "t0-tokens_b": "1", "t0-vram_gib": "8"}
    form = advisor_forms.TaskForm(data, prefix="t0")
    assert form.is_valid(), form.errors
    sent = set(form.to_task()) - COMMON
    allowed = {f for group in kind.field_groups for f in vocab.FIELD_GROUPS[group]}
    assert sent <= allowed
    assert sent, f"{kind} sends none of its fields"


def test_the_task_rows_field_groups_are_vocabs(client, db):
    html = client.get(reverse("advisor:index")).content.decode()
    groups = re.findall(
        r'<fieldset class="group" data-kinds="([^"]*)">(.*?)</fieldset>', html, re.DOTALL
    )
    assert groups
    rendered: dict[str, set[str]] = {}
    for kinds, body in groups:
        for name in re.findall(r'name="t0-([a-z_]+)"', body):
            rendered[name] = set(kinds.split(" "))
    for group, fields in vocab.FIELD_GROUPS.items():
        expected = {k.value for k in vocab.kinds_of_group(group)}
        shown = [FORM_FIELD.get(f, f) for f in fields if FORM_FIELD.get(f, f) in rendered]
        assert shown, f"no field of the {group!r} group is in the task row"
        for name in shown:
            assert rendered[name] == expected, f"{name} is shown for {rendered[name]}"
    # Every data-kinds list names vocab kinds only, in declaration order.
    order = values(vocab.TaskKind)
    for kinds, _body in groups:
        names = kinds.split(" ")
        assert names == sorted(names, key=order.index)


# ----------------------------------------------------------------------------- the API and SQL


def test_the_sql_unit_tables_are_vocabs():
    assert list(api_filters.HOURS_PER_UNIT) == values(vocab.BillingUnit)
    assert list(api_filters.HOURS_PER_UNIT.values()) == [float(u.hours) for u in vocab.BillingUnit]
    assert list(selectors.HOURS_PER_UNIT) == values(vocab.BillingUnit)
    assert list(selectors.HOURS_PER_UNIT.values()) == [u.hours for u in vocab.BillingUnit]
    assert list(selectors.UNIT_ORDER) == values(vocab.BillingUnit)


@pytest.mark.parametrize(
    ("serializer", "field", "enum"),
    [
        (api_filters.OfferingQuerySerializer, "unit", vocab.BillingUnit),
        (api_filters.OfferingQuerySerializer, "currency", vocab.Currency),
        (api_filters.OfferingQuerySerializer, "interconnect", vocab.Interconnect),
        (api_filters.OfferingQuerySerializer, "sharing_mode", vocab.SharingMode),
        (api_filters.PriceHistoryQuerySerializer, "unit", vocab.BillingUnit),
        (api_serializers.TaskSerializer, "kind", vocab.TaskKind),
        (api_serializers.TaskSerializer, "when", vocab.When),
        (api_serializers.TaskSerializer, "isolation", vocab.Isolation),
        (api_serializers.ConstraintsSerializer, "currency", vocab.Currency),
        (api_serializers.ScenarioSerializer, "objective", vocab.Objective),
        (api_serializers.PriceObservationCreateSerializer, "unit", vocab.BillingUnit),
    ],
)
def test_the_api_choices_are_vocabs(serializer, field, enum):
    assert list(serializer().fields[field].choices) == values(enum)


# ------------------------------------------------------------------------------------ the engine


def test_the_engine_types_and_billing_tables_are_vocabs():
    assert types.TaskKind is vocab.TaskKind and types.BillingUnit is vocab.BillingUnit
    assert {u.value: u.seconds for u in vocab.BillingUnit} == types.BILLING_UNIT_SECONDS
    assert list(billing.DEFAULT_GRANULARITY_SECONDS) == values(vocab.BillingUnit)
    assert set(vocab.BillingUnit) == billing.METERED_UNITS | billing.PREPAID_UNITS
    assert set(billing._STORAGE_UNIT_HOURS) == set(values(vocab.StorageUnit))


def test_the_charts_label_every_billing_unit():
    assert list(advisor_charts._unit_labels()) == values(vocab.BillingUnit)
