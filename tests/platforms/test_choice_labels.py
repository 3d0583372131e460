"""CatalogueModel.get_FOO_display gives what Django's own gives (django.db.models.Model.
_get_FIELD_display) for every choice field of every catalogue model, each choice and a value that
is none of them, in every language the site speaks, whichever language asked first."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.conf import settings
from django.db import models
from django.utils import translation

from platforms import models as catalogue

LANGUAGES = [code for code, _name in settings.LANGUAGES]
CHOICE_FIELDS = [
    (model, field)
    for model in apps.get_app_config("platforms").get_models()
    if issubclass(model, catalogue.CatalogueModel)
    for field in model._meta.concrete_fields
    if field.choices
]


def test_there_are_choice_fields_to_compare() -> None:
    names = {f"{m.__name__}.{f.name}" for m, f in CHOICE_FIELDS}
    assert {"Offering.sharing_mode", "PriceObservation.unit", "StoragePrice.kind"} <= names


@pytest.mark.parametrize("first", LANGUAGES)
def test_every_choice_reads_as_djangos_label(first: str) -> None:
    catalogue._CHOICE_LABELS.clear()
    for language in [first, *(code for code in LANGUAGES if code != first)]:
        with translation.override(language):
            for model, field in CHOICE_FIELDS:
                values = [choice for choice, _label in field.flatchoices]
                for value in [*values, "none of them", None]:
                    instance = model(**{field.attname: value})
                    ours = getattr(instance, f"get_{field.name}_display")()
                    django = models.Model._get_FIELD_display(instance, field)
                    assert ours == django, (model.__name__, field.name, value, language)
                    assert type(ours) is type(django)


def test_the_labels_follow_the_language() -> None:
    observation = catalogue.PriceObservation(unit="hour")
    with translation.override("en"):
        english = observation.get_unit_display()
    with translation.override("zh-hans"):
        chinese = observation.get_unit_display()
    assert english != chinese and english == str(catalogue.BillingUnit.HOUR.label)
