"""Staff keep the catalogue current here. A price typed on an offering becomes a new observation;
past observations are shown read-only and only superusers may correct or delete them.

Catalog files are imported from the Offering list ("Import offers"): upload (the file is kept
server-side), a background job checks it and previews what would change (nothing is written),
then confirm to apply the same file, through the same service as `manage.py import_offers`; the
job's page (feeds.jobs) shows each step's progress.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Model, URLField
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from feeds import jobs as import_jobs
from feeds.models import ImportJob, JobStatus
from feeds.uploads import FileRefused
from wording.messages import listed_price, rate_number

from . import services
from .desk import PriceDeskUrls
from .importers import FORMAT_LABELS, observed_at_value
from .importers.registry import PLATFORM_PER_ROW
from .models import (
    Accelerator,
    AcceleratorAlias,
    BillingRules,
    BillingUnit,
    CreditRate,
    Currency,
    ExchangeRate,
    HostSize,
    IdleModePrice,
    MigProfile,
    Offering,
    Platform,
    PlatformFact,
    PriceBasis,
    PriceObservation,
    PriceTier,
    Source,
    StoragePrice,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def staff_user(request: HttpRequest) -> User:
    """The user of an admin request: the admin site lets only logged-in staff in."""
    return cast("User", request.user)


class CatalogueAdminMixin:
    """Every admin write of catalogue data gives the catalogue a new version first, in the
    admin's transaction (services.catalogue_changed): the advisor's kept inputs are rebuilt."""

    def formfield_for_dbfield(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        # A URL typed without its scheme is https (Django 6's default, chosen now: the form of a
        # model with a URL field, a platform's or a source's, warns otherwise).
        if isinstance(db_field, URLField):
            kwargs.setdefault("assume_scheme", "https")
        return super().formfield_for_dbfield(db_field, request, **kwargs)  # type: ignore[misc]

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        services.catalogue_changed()
        super().save_model(request, obj, form, change)  # type: ignore[misc]

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        services.catalogue_changed()
        super().save_related(request, form, formsets, change)  # type: ignore[misc]

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        services.catalogue_changed()
        super().delete_model(request, obj)  # type: ignore[misc]

    def delete_queryset(self, request: HttpRequest, queryset: Any) -> None:
        services.catalogue_changed()
        super().delete_queryset(request, queryset)  # type: ignore[misc]


class SuperuserEditsHistoryMixin:
    """Observations are history: staff add new ones; only superusers may change or delete."""

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return request.user.is_superuser

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return request.user.is_superuser


@admin.display(description=_("amount"), ordering="amount")
def listed_amount(obj: PriceObservation | StoragePrice) -> str:
    """The amount as every page writes a listed price (wording.messages): 1.66, not 1.660000."""
    return listed_price(obj.amount)


@admin.display(description=_("rate"), ordering="rate")
def exchange_rate(obj: ExchangeRate) -> str:
    return rate_number(obj.rate)


# Shown, all read-only, on the offering.
HISTORY_FIELDS: Any = (
    "unit",
    listed_amount,
    "currency",
    "tier",
    "basis",
    "observed_at",
    "last_seen_at",
    "source",
    "created_by",
)


class PriceHistoryInline(admin.TabularInline[PriceObservation, Offering]):
    model = PriceObservation
    extra = 0
    can_delete = False
    ordering = ["-observed_at"]
    fields = HISTORY_FIELDS
    readonly_fields = HISTORY_FIELDS
    verbose_name_plural = _("price history (read-only; add a price above)")

    def has_add_permission(self, request: HttpRequest, obj: Offering | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Offering | None = None) -> bool:
        return False


class OfferingAdminForm(forms.ModelForm[Offering]):
    # The digits the model stores (six places: a per-second $0.000164 is entered as listed).
    new_price_amount = forms.DecimalField(
        label=_("new price"),
        required=False,
        min_value=0,
        max_digits=PriceObservation._meta.get_field("amount").max_digits,
        decimal_places=PriceObservation._meta.get_field("amount").decimal_places,
    )
    new_price_unit = forms.ChoiceField(
        label=_("billing unit"), choices=BillingUnit.choices, initial=BillingUnit.HOUR
    )
    new_price_currency = forms.ChoiceField(
        label=_("currency"), choices=Currency.choices, initial=Currency.CNY
    )
    new_price_tier = forms.ChoiceField(
        label=_("price tier"), choices=PriceTier.choices, initial=PriceTier.LIST, required=False
    )
    new_price_basis = forms.ChoiceField(
        label=_("what the price is"),
        choices=PriceBasis.choices,
        initial=PriceBasis.OFFER,
        required=False,
    )
    new_price_observed_at = forms.DateTimeField(
        label=_("observed at"), required=False, help_text=_("Empty = now.")
    )
    new_price_source = forms.ModelChoiceField(
        label=_("source"),
        queryset=Source.objects.all(),
        required=False,
        help_text=_("Empty = 'Entered in the admin'."),
    )

    class Meta:
        model = Offering
        fields = [
            "platform",
            "accelerator",
            "name",
            "name_zh",
            "external_id",
            "source",
            "gpu_count",
            "pooled_vram_gib",
            "mig_profile",
            "vcpus",
            "ram_gib",
            "disk_gb",
            "delivery_form",
            "sharing_mode",
            "interconnect",
            "network",
            "network_gbps",
            "region",
            "interruptible",
            "is_active",
            "notes",
        ]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        assert cleaned is not None  # ModelForm.clean() returns cleaned_data
        if cleaned.get("new_price_amount") is not None and self.instance.pk:
            observed_at = cleaned.get("new_price_observed_at") or timezone.now()
            try:
                # The service's rule (not in the future, not before 2010), checked here so that
                # it is a message beside the field rather than an error when the price is saved.
                services.price_date_check(moment=observed_at)
            except ValidationError as exc:
                raise ValidationError({"new_price_observed_at": exc.messages}) from None
            clash = PriceObservation.objects.filter(
                offering=self.instance,
                unit=cleaned.get("new_price_unit"),
                tier=cleaned.get("new_price_tier") or PriceTier.LIST,
                observed_at=observed_at,
            ).exists()
            if clash:
                raise ValidationError(
                    {"new_price_observed_at": _("A price for this unit at this time exists.")}
                )
        return cleaned


# The largest file the page takes; staff with larger catalogs use manage.py import_offers.
IMPORT_MAX_MB = 20
IMPORT_MAX_BYTES = IMPORT_MAX_MB * 1024 * 1024
# Bytes read from the upload at a time (from its temporary file, or memory below 2.5 MB).
UPLOAD_PIECE_BYTES = 256 * 1024
TOO_LARGE = _("The file is larger than 20 MB; use manage.py import_offers.")
NOT_UTF8 = _("The file is not UTF-8 text.")


class OfferImportForm(forms.Form):
    file = forms.FileField(label=_("catalog file (CSV or JSON)"))
    format = forms.ChoiceField(label=_("format"), choices=sorted(FORMAT_LABELS.items()))
    platform = forms.ModelChoiceField(
        label=_("platform"),
        queryset=Platform.objects.order_by("slug"),
        required=False,
        help_text=_(
            "Required except for the native CSV and JSON feed formats, whose rows may name the "
            "platform."
        ),
    )
    observed_on = forms.DateField(
        label=_("observed on"),
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        help_text=_("The date the catalog's prices were current."),
    )
    source_url = forms.URLField(
        label=_("source URL"),
        assume_scheme="https",
        required=False,
        max_length=500,
        help_text=_("Where the file came from; empty = a source named after the file."),
    )
    strict = forms.BooleanField(
        label=_("unknown accelerators are errors"),
        required=False,
        help_text=_("Unticked, rows with an unknown accelerator are skipped and listed."),
    )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        assert cleaned is not None  # Form.clean() returns cleaned_data
        if cleaned.get("format") not in {None, *PLATFORM_PER_ROW} and not cleaned.get("platform"):
            self.add_error("platform", _("Choose the platform this catalog lists."))
        upload = cleaned.get("file")
        if upload is not None and upload.size > IMPORT_MAX_BYTES:
            self.add_error("file", TOO_LARGE)
        return cleaned

    def job(self, request: HttpRequest) -> ImportJob | None:
        """The upload as an import job (its file streamed into the database, a check queued), or
        None with the reason on the file field."""
        data = self.cleaned_data
        upload = data["file"]
        try:
            return import_jobs.job_create(
                pieces=upload.chunks(UPLOAD_PIECE_BYTES),
                max_bytes=IMPORT_MAX_BYTES,
                fmt=data["format"],
                filename=upload.name or "upload",
                platform=data.get("platform"),
                observed_at=observed_at_value(data["observed_on"]),
                source_url=data["source_url"],
                strict=data["strict"],
                created_by=staff_user(request),
            )
        except FileRefused as refused:
            self.add_error("file", TOO_LARGE if refused.code == "too_large" else NOT_UTF8)
            return None


@admin.register(Offering)
class OfferingAdmin(CatalogueAdminMixin, admin.ModelAdmin[Offering]):
    form = OfferingAdminForm
    list_display = [
        "name",
        "platform",
        "accelerator",
        "gpu_count",
        "sharing_mode",
        "interconnect",
        "delivery_form",
        "region",
        "interruptible",
        "is_active",
    ]
    list_filter = [
        "platform",
        "accelerator",
        "sharing_mode",
        "interconnect",
        "delivery_form",
        "interruptible",
        "is_active",
    ]
    search_fields = [
        "name",
        "name_zh",
        "external_id",
        "region",
        "platform__name",
        "accelerator__name",
    ]
    list_select_related = ["platform", "accelerator"]
    autocomplete_fields = ["platform", "accelerator", "source"]
    inlines = [PriceHistoryInline]
    fieldsets = [
        (
            None,
            {"fields": ["platform", "accelerator", "name", "name_zh", "external_id", "source"]},
        ),
        (
            _("Hardware"),
            {
                "fields": [
                    "gpu_count",
                    "pooled_vram_gib",
                    "mig_profile",
                    "vcpus",
                    "ram_gib",
                    "disk_gb",
                ]
            },
        ),
        (
            _("Delivery"),
            {
                "fields": [
                    "delivery_form",
                    "sharing_mode",
                    "interconnect",
                    "network",
                    "network_gbps",
                    "region",
                    "interruptible",
                    "is_active",
                    "notes",
                ]
            },
        ),
        (
            _("Add a price (kept as a new observation)"),
            {
                "fields": [
                    "new_price_amount",
                    "new_price_unit",
                    "new_price_currency",
                    "new_price_tier",
                    "new_price_basis",
                    "new_price_observed_at",
                    "new_price_source",
                ]
            },
        ),
    ]

    def get_urls(self) -> list[URLPattern]:
        urls = [
            path(
                "import/",
                self.admin_site.admin_view(self.import_view),
                name="platforms_offering_import",
            ),
            path(
                "import/<int:job_id>/",
                self.admin_site.admin_view(self.import_job_view),
                name="platforms_offering_import_job",
            ),
        ]
        return urls + super().get_urls()

    def _check_import_permission(self, request: HttpRequest) -> None:
        if not (
            self.has_add_permission(request)
            and request.user.has_perm("platforms.add_priceobservation")
        ):
            raise PermissionDenied

    def import_view(self, request: HttpRequest) -> HttpResponse:
        """Upload: the file is kept server-side as an import job, which a worker checks (the
        preview) and, once confirmed on the job's page, writes (feeds.jobs)."""
        self._check_import_permission(request)
        if request.method == "POST":
            form = OfferImportForm(request.POST, request.FILES)
            if form.is_valid():
                job = form.job(request)
                if job is not None:
                    return redirect("admin:platforms_offering_import_job", job.pk)
        else:
            form = OfferImportForm(initial={"observed_on": timezone.localdate()})
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": _("Import offers"),
            "form": form,
        }
        return TemplateResponse(request, "admin/platforms/offering/import.html", context)

    def import_job_view(self, request: HttpRequest, job_id: int) -> HttpResponse:
        """An import's status and progress, its preview once checked and the button that confirms
        it (POST `apply`, for whoever uploaded it); `?format=json` for the page's poller. Without
        JavaScript the page has a refresh link while a worker is busy with the job."""
        self._check_import_permission(request)
        job = get_object_or_404(ImportJob.objects.select_related("platform"), pk=job_id)
        if request.method == "POST" and "apply" in request.POST:
            if job.created_by_id != request.user.pk:
                raise PermissionDenied
            import_jobs.job_confirm(job, by=staff_user(request))
            return redirect("admin:platforms_offering_import_job", job.pk)
        progress = import_jobs.job_progress(job)
        if request.GET.get("format") == "json":
            return JsonResponse(
                {
                    "status": job.status,
                    "status_label": job.get_status_display(),
                    "finished": not job.under_way,
                    "phase": progress.phase,
                    "done": progress.done,
                    "total": progress.total,
                    "percent": progress.percent,
                    "progress_text": progress.text,
                }
            )
        preview = job.preview or {}
        shown = len(preview.get("changes", []))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": _("Import offers"),
            "job": job,
            "progress": progress,
            "preview": preview,
            "more_offerings": max(0, preview.get("offerings", 0) - shown),
            "can_confirm": job.status == JobStatus.CHECKED and job.created_by_id == request.user.pk,
            "confirm_by": import_jobs.confirm_deadline(job),
        }
        return TemplateResponse(request, "admin/platforms/offering/import_job.html", context)

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        if change and "gpu_count" in form.changed_data:
            # The stored price per GPU-hour of its current prices divides by the GPU count.
            services.current_price_keys_refresh(offering_ids=[obj.pk])

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        data = form.cleaned_data
        if data.get("new_price_amount") is None:
            return
        services.price_observation_create(
            offering=form.instance,
            unit=data["new_price_unit"],
            amount=data["new_price_amount"],
            currency=data["new_price_currency"],
            tier=data.get("new_price_tier") or PriceTier.LIST,
            basis=data.get("new_price_basis") or PriceBasis.OFFER,
            observed_at=data.get("new_price_observed_at") or timezone.now(),
            source=data.get("new_price_source") or services.manual_source(),
            created_by=staff_user(request),
        )


@admin.register(PriceObservation)
class PriceObservationAdmin(
    CatalogueAdminMixin, SuperuserEditsHistoryMixin, admin.ModelAdmin[PriceObservation]
):
    list_display = ["offering", *HISTORY_FIELDS]
    list_filter = ["unit", "tier", "basis", "currency", "offering__platform", "source__kind"]
    search_fields = ["offering__name", "offering__platform__name", "source__title"]
    list_select_related = ["offering__platform", "source", "created_by"]
    date_hierarchy = "observed_at"
    autocomplete_fields = ["offering", "source"]
    readonly_fields = ["created_by", "created_at"]

    def save_model(
        self, request: HttpRequest, obj: PriceObservation, form: Any, change: bool
    ) -> None:
        if not change:
            obj.created_by = staff_user(request)
            obj.last_seen_at = obj.last_seen_at or obj.observed_at
        # Through the service, which re-points the current prices of its key before and after.
        was = (
            PriceObservation.objects.filter(pk=obj.pk).values_list("offering_id", "unit", "tier")
        ).first()
        services.price_observation_update(observation=obj, was=was)

    def delete_model(self, request: HttpRequest, obj: PriceObservation) -> None:
        services.price_observations_delete(observations=PriceObservation.objects.filter(pk=obj.pk))

    def delete_queryset(self, request: HttpRequest, queryset: Any) -> None:
        services.price_observations_delete(observations=queryset)

    def get_exclude(self, request: HttpRequest, obj: PriceObservation | None = None) -> list[str]:
        return ["last_seen_at"] if obj is None else []


class PlatformFactInline(admin.TabularInline[PlatformFact, Platform]):
    model = PlatformFact
    extra = 0
    autocomplete_fields = ["source"]


class StoragePriceInline(admin.TabularInline[StoragePrice, Platform]):
    model = StoragePrice
    extra = 0
    autocomplete_fields = ["source"]


class BillingRulesInline(admin.StackedInline[BillingRules, Platform]):
    model = BillingRules
    extra = 0
    autocomplete_fields = ["source"]


class HostSizeInline(admin.TabularInline[HostSize, Platform]):
    model = HostSize
    extra = 0
    autocomplete_fields = ["source", "accelerator"]


class IdleModePriceInline(admin.TabularInline[IdleModePrice, Platform]):
    model = IdleModePrice
    extra = 0
    autocomplete_fields = ["source"]


class CreditRateInline(admin.TabularInline[CreditRate, Platform]):
    model = CreditRate
    extra = 0
    autocomplete_fields = ["source"]


@admin.register(Platform)
class PlatformAdmin(PriceDeskUrls, CatalogueAdminMixin, admin.ModelAdmin[Platform]):
    list_display = [
        "name",
        "name_en",
        "slug",
        "multi_task",
        "physically_exclusive",
        "retention_after_expiry",
        "cn_identity_required",
        "foreign_cards",
        "source",
    ]
    list_filter = ["multi_task", "physically_exclusive", "region", "cn_identity_required"]
    search_fields = ["name", "name_en", "slug"]
    prepopulated_fields = {"slug": ["name_en"]}
    autocomplete_fields = ["source", "spot_interruptions_source", "renting_source"]
    inlines = [
        BillingRulesInline,
        PlatformFactInline,
        StoragePriceInline,
        HostSizeInline,
        IdleModePriceInline,
        CreditRateInline,
    ]


class AliasInline(admin.TabularInline[AcceleratorAlias, Accelerator]):
    model = AcceleratorAlias
    extra = 1
    fields = ["alias"]


class MigProfileInline(admin.TabularInline[MigProfile, Accelerator]):
    model = MigProfile
    extra = 0


@admin.register(Accelerator)
class AcceleratorAdmin(CatalogueAdminMixin, admin.ModelAdmin[Accelerator]):
    list_display = [
        "name",
        "slug",
        "vendor",
        "vram_gib",
        "memory_bandwidth_gbps",
        "bf16_tflops",
        "fp16_tflops",
        "stack",
        "compute_capability",
        "nvlink",
        "domestic",
        "confidence",
    ]
    list_filter = ["vendor", "stack", "nvlink", "domestic", "confidence"]
    search_fields = ["name", "slug", "aliases__alias"]
    autocomplete_fields = ["source"]
    inlines = [AliasInline, MigProfileInline]


@admin.register(Source)
class SourceAdmin(CatalogueAdminMixin, admin.ModelAdmin[Source]):
    list_display = ["title", "publisher", "kind", "confidence", "published_on", "retrieved_on"]
    list_filter = ["kind", "confidence"]
    search_fields = ["title", "title_zh", "url", "publisher"]


@admin.register(StoragePrice)
class StoragePriceAdmin(CatalogueAdminMixin, admin.ModelAdmin[StoragePrice]):
    list_display = [
        "platform",
        "kind",
        listed_amount,
        "currency",
        "unit",
        "free_gb",
        "billed_when_stopped",
        "observed_at",
    ]
    list_filter = ["kind", "unit", "currency", "platform"]
    search_fields = ["platform__name", "notes"]
    autocomplete_fields = ["platform", "source"]


@admin.register(ExchangeRate)
class ExchangeRateAdmin(CatalogueAdminMixin, admin.ModelAdmin[ExchangeRate]):
    list_display = ["base", "quote", exchange_rate, "as_of", "source"]
    list_filter = ["base", "quote"]
    search_fields = ["source__title"]
    date_hierarchy = "as_of"
    autocomplete_fields = ["source"]

    # The explorer's stored sort keys convert at the latest rates: set again after each write.
    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        services.explorer_keys_refresh()

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        super().delete_model(request, obj)
        services.explorer_keys_refresh()

    def delete_queryset(self, request: HttpRequest, queryset: Any) -> None:
        super().delete_queryset(request, queryset)
        services.explorer_keys_refresh()


@admin.register(PlatformFact)
class PlatformFactAdmin(CatalogueAdminMixin, admin.ModelAdmin[PlatformFact]):
    list_display = ["platform", "attribute", "value", "value_zh", "source"]
    list_filter = ["attribute", "platform"]
    search_fields = ["value", "value_zh", "platform__name"]
    autocomplete_fields = ["platform", "source"]
