"""The offering explorer's filter form: what a visitor may ask of the catalogue, read from the URL.

Every field is optional and comes from a GET query string, so a filtered and sorted view is a link
that can be shared. Bad values never reach the database: they come back as field messages.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

from django import forms
from django.utils.translation import gettext_lazy as _

from .models import BillingUnit, Currency, DeliveryForm, Interconnect, PriceTier, SharingMode

SORT_CHOICES = [
    ("gpu_hour", _("price per GPU-hour (lowest first)")),
    ("price", _("price (lowest first)")),
    ("gib", _("price per GiB of VRAM (lowest first)")),
    ("tflops", _("BF16 TFLOPS per currency unit (highest first)")),
]
INTERRUPTIBLE_CHOICES = [
    ("", _("any")),
    ("no", _("on-demand only")),
    ("yes", _("interruptible (spot) only")),
]


def _blank(label: object) -> list[tuple[str, object]]:
    return [("", label)]


class ExplorerForm(forms.Form):
    """Filters and sort order of /offerings/. VRAM in GiB, prices in the display currency."""

    vram_min = forms.DecimalField(
        label=_("VRAM per GPU from (GiB)"), required=False, min_value=0, max_digits=8
    )
    vram_max = forms.DecimalField(
        label=_("VRAM per GPU to (GiB)"), required=False, min_value=0, max_digits=8
    )
    total_vram_min = forms.DecimalField(
        label=_("Total VRAM from (GiB)"), required=False, min_value=0, max_digits=9
    )
    total_vram_max = forms.DecimalField(
        label=_("Total VRAM to (GiB)"), required=False, min_value=0, max_digits=9
    )
    price_min = forms.DecimalField(
        label=_("Price from"), required=False, min_value=0, max_digits=14, decimal_places=4
    )
    price_max = forms.DecimalField(
        label=_("Price to"), required=False, min_value=0, max_digits=14, decimal_places=4
    )
    accelerator = forms.ChoiceField(label=_("GPU"), required=False)
    platform = forms.ChoiceField(label=_("Platform"), required=False)
    unit = forms.ChoiceField(
        label=_("Billing unit"),
        required=False,
        choices=_blank(_("any (cheapest per hour)")) + list(BillingUnit.choices),
        help_text=_("The price range applies to the price in this unit."),
    )
    interconnect = forms.ChoiceField(
        label=_("Interconnect"),
        required=False,
        choices=_blank(_("any")) + list(Interconnect.choices),
    )
    sharing = forms.ChoiceField(
        label=_("Sharing mode"),
        required=False,
        choices=_blank(_("any")) + list(SharingMode.choices),
    )
    interruptible = forms.ChoiceField(
        label=_("Interruptible"), required=False, choices=INTERRUPTIBLE_CHOICES
    )
    # ---- renters' filters (platforms.renting): an offering that does not state what one reads
    # is not listed.
    country = forms.RegexField(
        label=_("Country"),
        required=False,
        regex=r"^[A-Za-z]{2}$",
        max_length=2,
        help_text=_("A two-letter code, such as CN or US."),
        error_messages={"invalid": _("A two-letter country code, such as CN or US.")},
    )
    region = forms.CharField(
        label=_("Region"),
        required=False,
        max_length=64,
        help_text=_("As the platform names it, such as us-east-1."),
    )
    delivery_form = forms.ChoiceField(
        label=_("Delivery form"),
        required=False,
        choices=_blank(_("any")) + list(DeliveryForm.choices),
    )
    min_vcpus_per_gpu = forms.DecimalField(
        label=_("Least vCPUs per GPU"), required=False, min_value=0, max_digits=8
    )
    min_ram_gib_per_gpu = forms.DecimalField(
        label=_("Least RAM per GPU (GiB)"), required=False, min_value=0, max_digits=8
    )
    min_disk_gb_per_gpu = forms.DecimalField(
        label=_("Least disk per GPU (GB)"), required=False, min_value=0, max_digits=9
    )
    foreign_renter = forms.BooleanField(
        label=_("I rent from abroad (no mainland Chinese ID or phone, a card issued abroad)"),
        required=False,
    )
    currency = forms.ChoiceField(
        label=_("Show prices in"), required=False, choices=Currency.choices
    )
    tier = forms.ChoiceField(
        label=_("Your price tier"),
        required=False,
        choices=PriceTier.choices,
        help_text=_(
            "Member, student or enterprise prices where a platform states them; list prices "
            "elsewhere."
        ),
    )
    # Radio buttons: a closed select shows only as much of its choice as its box holds, and the
    # filters' column cut "price per GPU-hour (lowest first)" short.
    sort = forms.ChoiceField(
        label=_("Sort by"), required=False, choices=SORT_CHOICES, widget=forms.RadioSelect
    )

    def __init__(
        self,
        data: Mapping[str, Any] | None = None,
        *,
        platforms: Iterable[tuple[str, object]] = (),
        accelerators: Iterable[tuple[str, object]] = (),
        **kwargs: Any,
    ) -> None:
        """`platforms` and `accelerators` are (slug, label) pairs, read once by the view."""
        super().__init__(data, **kwargs)
        cast(forms.ChoiceField, self.fields["platform"]).choices = _blank(_("any")) + list(
            platforms
        )
        cast(forms.ChoiceField, self.fields["accelerator"]).choices = _blank(_("any")) + list(
            accelerators
        )

    def clean_currency(self) -> str:
        return cast(str, self.cleaned_data.get("currency") or Currency.CNY)

    def clean_tier(self) -> str:
        return cast(str, self.cleaned_data.get("tier") or PriceTier.LIST)

    def clean_sort(self) -> str:
        return cast(str, self.cleaned_data.get("sort") or SORT_CHOICES[0][0])

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        assert cleaned is not None  # Form.clean() returns cleaned_data
        for low, high in (
            ("vram_min", "vram_max"),
            ("total_vram_min", "total_vram_max"),
            ("price_min", "price_max"),
        ):
            if (
                cleaned.get(low) is not None
                and cleaned.get(high) is not None
                and cleaned[high] < cleaned[low]
            ):
                self.add_error(high, _("The upper bound is below the lower bound."))
        priced = cleaned.get("price_min") is not None or cleaned.get("price_max") is not None
        if priced and not cleaned.get("unit") and "unit" not in self.errors:
            # Prices in different units cannot share one range: 1.88 an hour is not 1,052 a month.
            self.add_error("unit", _("Choose a billing unit to filter by price."))
        return cleaned
