"""The catalogue: platforms, accelerators, offerings, price history, and where each fact came from.

Prices are append-only observations: the current price of an offering for a billing unit is its
latest observation. Invariants live in the database as named constraints with messages.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, OuterRef, Q, Subquery
from django.urls import reverse
from django.utils import timezone
from django.utils.encoding import force_str
from django.utils.hashable import make_hashable
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from advisor.engine import vocab
from advisor.engine.hardware import STACK_NAMES, normalise_name

# The closed sets shared with the engine: derived from advisor/engine/vocab.py with their labels
# in wording/choices.py, and importable from here as before.
from wording.choices import BillingUnit as BillingUnit
from wording.choices import Currency as Currency
from wording.choices import DeliveryForm as DeliveryForm
from wording.choices import Interconnect as Interconnect
from wording.choices import MultiTask as MultiTask
from wording.choices import Network as Network
from wording.choices import PriceBasis as PriceBasis
from wording.choices import PriceTier as PriceTier
from wording.choices import SharingMode as SharingMode
from wording.choices import StorageUnit as StorageUnit
from wording.messages import listed_price, rate_number


class Confidence(models.TextChoices):
    VERIFIED = "verified", _("verified")
    SECONDARY = "secondary", _("secondary")
    UNVERIFIED = "unverified", _("unverified")


class SourceKind(models.TextChoices):
    """Whose statement a fact is, and about whom (README, "Who says what about whom")."""

    VENDOR_CLAIM = "vendor_claim", _("vendor claim")  # a platform about itself
    COMPETITOR_CLAIM = "competitor_claim", _("competitor claim")  # a platform about another
    DOCUMENTATION = "documentation", _("platform documentation")  # its own docs or price page
    THIRD_PARTY = "third_party", _("third party")
    MEASURED = "measured", _("measured")
    IMPORT = "import", _("import")
    MANUAL = "manual", _("manual")


# The kinds that are a platform's own statement: they name the platform that made it (`speaker`).
SPOKEN_BY_A_PLATFORM = (
    SourceKind.VENDOR_CLAIM,
    SourceKind.COMPETITOR_CLAIM,
    SourceKind.DOCUMENTATION,
)


class StorageKind(models.TextChoices):
    SYSTEM_DISK = "system_disk", _("system disk")
    DATA_DISK = "data_disk", _("data disk")
    SHARED = "shared", _("shared / cluster storage")


def _choices_check(field: str, choices: type[models.TextChoices]) -> Q:
    return Q(**{f"{field}__in": choices.values})


# No price in this catalogue can be older: no GPU was rented from a cloud before Amazon EC2's
# Cluster GPU instances, announced on 15 November 2010
# (https://aws.amazon.com/about-aws/whats-new/2010/11/15/announcing-cluster-gpu-instances-for-amazon-ec2/).
# An earlier date is a typing mistake (0001-01-01, 0206 for 2026) that every write path
# (platforms.services.price_date_check) and the database refuse.
EARLIEST_PRICE_AT = dt.datetime(2010, 1, 1, tzinfo=dt.UTC)
EARLIEST_PRICE_MESSAGE = _(
    "A price cannot be observed before 2010: no cloud rented GPUs before then."
)


def _observed_since_earliest(prefix: str) -> models.CheckConstraint:
    return models.CheckConstraint(
        condition=Q(observed_at__gte=EARLIEST_PRICE_AT),
        name=f"{prefix}_observed_since_2010",
        violation_error_message=EARLIEST_PRICE_MESSAGE,
    )


def in_page_language(english: str, chinese: str) -> str:
    """Catalogue text kept in both languages: the Chinese one on a Chinese page, where there is
    one, else the English one."""
    if chinese and (get_language() or "").startswith("zh"):
        return chinese
    return english


def platform_names(name: str, name_en: str) -> tuple[str, str]:
    """A platform's names as pages show them, each once: (name, the English name beside it or
    ""); an English name that holds the other stands alone ("OpenBayes (HyperAI)", "")."""
    english = name_en.strip()
    if not english or english == name:
        return name, ""
    if name.casefold() in english.casefold():
        return english, ""
    return name, english


class CatalogueModel(models.Model):
    """The catalogue's models: `get_FOO_display` reads a field's choice labels once per field and
    language. Django's builds a dict of every choice on each call, translating each lazy label
    again (15 to 26 us a call; a platform page asked some 470 times); this is the same answer
    (tests/platforms/test_choice_labels.py compares them)."""

    class Meta:
        abstract = True

    def _get_FIELD_display(self, field: models.Field[Any, Any]) -> Any:
        value = getattr(self, field.attname)
        key = (id(field), get_language())
        labels = _CHOICE_LABELS.get(key)
        if labels is None:
            labels = _CHOICE_LABELS[key] = {
                make_hashable(choice): str(label) for choice, label in field.flatchoices
            }
        try:
            found = labels.get(make_hashable(value), value)
        except TypeError:  # a value that cannot be hashed is no choice
            found = value
        return force_str(found, strings_only=True)


# By (field, language): each choice's label (CatalogueModel); fields live as long as the process.
_CHOICE_LABELS: dict[tuple[int, str | None], dict[Any, str]] = {}


class Source(CatalogueModel):
    """Provenance of a fact or price: a page, article, file or person."""

    title = models.CharField(_("title"), max_length=300)
    title_zh = models.CharField(
        _("title (Chinese)"),
        max_length=300,
        blank=True,
        help_text=_("Shown on Chinese pages where the title is a description, not a quotation."),
    )
    url = models.URLField(_("URL"), max_length=500, blank=True)
    publisher = models.CharField(_("publisher"), max_length=200, blank=True)
    published_on = models.DateField(_("published on"), null=True, blank=True)
    retrieved_on = models.DateField(_("retrieved on"), null=True, blank=True)
    kind = models.CharField(_("kind"), max_length=20, choices=SourceKind.choices)
    speaker = models.ForeignKey(
        "Platform",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="statements",
        verbose_name=_("whose statement"),
        help_text=_(
            "The platform that made the statement: for a vendor claim the platform it is about, "
            "for a competitor claim another one, for documentation the platform's own."
        ),
    )
    confidence = models.CharField(
        _("confidence"), max_length=12, choices=Confidence.choices, default=Confidence.SECONDARY
    )
    notes = models.TextField(_("notes"), blank=True)

    class Meta:
        ordering = ["-published_on", "title"]
        verbose_name = _("source")
        constraints = [
            models.CheckConstraint(
                condition=_choices_check("kind", SourceKind),
                name="source_kind_known",
                violation_error_message=_("Unknown source kind."),
            ),
            models.CheckConstraint(
                condition=Q(kind__in=[k.value for k in SPOKEN_BY_A_PLATFORM])
                | Q(speaker__isnull=True),
                name="source_speaker_only_for_platform_statements",
                violation_error_message=_(
                    "Only a platform's own statements (vendor claims, competitor claims, "
                    "documentation) name the platform that made them."
                ),
            ),
            models.CheckConstraint(
                condition=_choices_check("confidence", Confidence),
                name="source_confidence_known",
                violation_error_message=_("Unknown confidence grade."),
            ),
            models.UniqueConstraint(
                fields=["title", "url"],
                name="source_title_url_unique",
                violation_error_message=_("This source is already recorded."),
            ),
        ]

    def __str__(self) -> str:
        """The title in the page's language, with the source's date."""
        date = self.published_on or self.retrieved_on
        return f"{self.title_text} ({date})" if date else self.title_text

    @property
    def title_text(self) -> str:
        return in_page_language(self.title, self.title_zh)

    @property
    def date(self) -> dt.date | None:
        return self.published_on or self.retrieved_on

    @property
    def is_vendor_claim(self) -> bool:
        return self.kind == SourceKind.VENDOR_CLAIM

    @property
    def is_competitor_claim(self) -> bool:
        return self.kind == SourceKind.COMPETITOR_CLAIM

    def who_about_whom(self, subject: Platform | None = None) -> str:
        """Whose statement this is about `subject`, in words: "智星云 about itself (vendor
        claim)", "智星云 about a competitor (competitor claim)", "third party"."""
        label = str(self.get_kind_display())
        # Only a speaker read with the source (select_related): a badge never costs a query.
        cached = type(self).speaker.is_cached(self)
        speaker = self.speaker if self.speaker_id and cached else None
        if speaker is None:
            return label
        if subject is not None and speaker.pk == subject.pk:
            about = _("%(speaker)s about itself") % {"speaker": speaker.name}
        elif subject is not None:
            about = _("%(speaker)s about a competitor") % {"speaker": speaker.name}
        else:
            about = speaker.name
        return _("%(about)s (%(kind)s)") % {"about": about, "kind": label}


class Platform(CatalogueModel):
    """A GPU rental platform and the facts the advisor needs about it."""

    slug = models.SlugField(_("slug"), max_length=50, unique=True)
    name = models.CharField(_("name (Chinese or original)"), max_length=100)
    name_en = models.CharField(_("English name"), max_length=100, blank=True)
    website = models.URLField(_("website"), blank=True)
    region = models.CharField(_("market"), max_length=20, default="cn")
    delivery_forms = models.JSONField(_("delivery forms"), default=list, blank=True)
    scheduling = models.CharField(_("scheduling technology"), max_length=200, blank=True)
    multi_task = models.CharField(
        _("multi-task granularity"),
        max_length=10,
        choices=MultiTask.choices,
        default=MultiTask.INSTANCE,
    )
    interconnects = models.JSONField(_("interconnects offered"), default=list, blank=True)
    stability_claim = models.CharField(_("stability claim"), max_length=200, blank=True)
    domestic_accelerators = models.CharField(_("domestic accelerators"), max_length=200, blank=True)
    physically_exclusive = models.BooleanField(
        _("physically exclusive GPUs"), null=True, blank=True
    )
    retention_after_expiry = models.BooleanField(
        _("keeps data after expiry"), null=True, blank=True
    )
    # Who may rent (the advisor's `foreign_renter`, the list's `foreign_renter`): null where no
    # source says; `renting_source` says who does.
    cn_identity_required = models.BooleanField(
        _("requires mainland Chinese identity"),
        null=True,
        blank=True,
        help_text=_(
            "Signing up or renting needs a mainland Chinese ID card or phone number; empty: no "
            "source says."
        ),
    )
    foreign_cards = models.BooleanField(
        _("accepts cards issued abroad"),
        null=True,
        blank=True,
        help_text=_("A card issued outside mainland China can pay; empty: no source says."),
    )
    renting_source = models.ForeignKey(
        Source,
        on_delete=models.PROTECT,
        related_name="renting_platforms",
        verbose_name=_("source on who may rent"),
        null=True,
        blank=True,
    )
    data_retention = models.TextField(_("data-retention policy"), blank=True)
    data_retention_zh = models.TextField(_("data-retention policy (Chinese)"), blank=True)
    idle_policy = models.TextField(_("idle / shutdown policy"), blank=True)
    idle_policy_zh = models.TextField(_("idle / shutdown policy (Chinese)"), blank=True)
    notes = models.TextField(_("notes"), blank=True)
    notes_zh = models.TextField(_("notes (Chinese)"), blank=True)
    source = models.ForeignKey(
        Source, on_delete=models.PROTECT, related_name="platforms", verbose_name=_("source")
    )
    # Spot capacity (advisor/engine/restarts.py): interruptions per day of running, as a source
    # states; empty: not stated (the advisor assumes its default and says so).
    spot_interruptions_per_day = models.FloatField(
        _("spot interruptions per day"),
        null=True,
        blank=True,
        help_text=_("Per day of running on its spot capacity; empty: not stated."),
    )
    spot_interruptions_source = models.ForeignKey(
        Source,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("source of the spot interruption rate"),
    )

    class Meta:
        ordering = ["name_en", "name"]
        verbose_name = _("platform")
        constraints = [
            models.CheckConstraint(
                condition=_choices_check("multi_task", MultiTask),
                name="platform_multi_task_known",
                violation_error_message=_("Unknown multi-task granularity."),
            ),
            models.CheckConstraint(
                condition=Q(spot_interruptions_per_day__isnull=True)
                | Q(spot_interruptions_per_day__gte=0, spot_interruptions_per_day__lte=24),
                name="platform_spot_interruptions_in_range",
                violation_error_message=_("Spot interruptions per day: 0 to 24."),
            ),
            models.CheckConstraint(
                condition=Q(spot_interruptions_per_day__isnull=True)
                | Q(spot_interruptions_source__isnull=False),
                name="platform_spot_interruptions_sourced",
                violation_error_message=_("A spot interruption rate needs its source."),
            ),
        ]

    def __str__(self) -> str:
        """Both names, each once: 矩池云 (Matpool); an English name that holds the other is
        enough (OpenBayes (HyperAI)); no brackets in brackets: 智星云 (Zhixingyun, AI Galaxy)."""
        primary, secondary = platform_names(self.name, self.name_en)
        if not secondary:
            return primary
        if secondary.endswith(")") and " (" in secondary:
            head, _, tail = secondary[:-1].partition(" (")
            secondary = f"{head}, {tail}"
        return f"{primary} ({secondary})"

    def get_absolute_url(self) -> str:
        return reverse("platforms:detail", args=[self.slug])

    # The policies in the page's language (the Chinese text where there is one).
    @property
    def data_retention_text(self) -> str:
        return in_page_language(self.data_retention, self.data_retention_zh)

    @property
    def idle_policy_text(self) -> str:
        return in_page_language(self.idle_policy, self.idle_policy_zh)

    @property
    def notes_text(self) -> str:
        return in_page_language(self.notes, self.notes_zh)

    def clean(self) -> None:
        errors = {}
        bad_forms = set(self.delivery_forms or []) - set(DeliveryForm.values)
        if bad_forms:
            errors["delivery_forms"] = _("Unknown delivery form(s): %(forms)s") % {
                "forms": ", ".join(sorted(bad_forms))
            }
        bad_links = set(self.interconnects or []) - set(Interconnect.values)
        if bad_links:
            errors["interconnects"] = _("Unknown interconnect(s): %(links)s") % {
                "links": ", ".join(sorted(bad_links))
            }
        if errors:
            raise ValidationError(errors)


class FactAttribute(models.TextChoices):
    DELIVERY = "delivery", _("Delivery form")
    SCHEDULING = "scheduling", _("Scheduling technology")
    INTERCONNECT = "interconnect", _("Multi-GPU interconnect")
    STABILITY = "stability", _("Compute stability")
    DOMESTIC = "domestic", _("Domestic accelerators")
    STORAGE = "storage", _("Storage billing")
    MULTI_TASK = "multi_task", _("Multi-task granularity")
    BILLING = "billing", _("Billing")
    RETENTION = "retention", _("Data retention")


class PlatformFact(CatalogueModel):
    """One cell of the comparison table: what is claimed about a platform, and by whom."""

    Attribute = FactAttribute

    platform = models.ForeignKey(
        Platform, on_delete=models.CASCADE, related_name="facts", verbose_name=_("platform")
    )
    attribute = models.CharField(_("attribute"), max_length=20, choices=FactAttribute.choices)
    value = models.CharField(_("value (English)"), max_length=300)
    value_zh = models.CharField(_("value (Chinese)"), max_length=300, blank=True)
    source = models.ForeignKey(
        Source, on_delete=models.PROTECT, related_name="facts", verbose_name=_("source")
    )

    class Meta:
        ordering = ["platform", "attribute"]
        verbose_name = _("platform fact")
        constraints = [
            models.UniqueConstraint(
                fields=["platform", "attribute"],
                name="platformfact_one_per_attribute",
                violation_error_message=_("This platform already has a value for this attribute."),
            ),
            models.CheckConstraint(
                condition=_choices_check("attribute", FactAttribute),
                name="platformfact_attribute_known",
                violation_error_message=_("Unknown comparison attribute."),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.platform}: {self.get_attribute_display()} = {self.value}"

    @property
    def text(self) -> str:
        """The value in the page's language (the Chinese value where there is one)."""
        return in_page_language(self.value, self.value_zh)


class Accelerator(CatalogueModel):
    """A GPU or accelerator model with the figures the engine uses, each graded for confidence."""

    slug = models.SlugField(_("slug"), max_length=50, unique=True)
    name = models.CharField(_("name"), max_length=100)
    vendor = models.CharField(_("vendor"), max_length=50)
    architecture = models.CharField(_("architecture"), max_length=50, blank=True)
    vram_gib = models.DecimalField(_("VRAM (GiB)"), max_digits=7, decimal_places=2)
    memory_bandwidth_gbps = models.FloatField(_("memory bandwidth (GB/s)"), null=True, blank=True)
    bf16_tflops = models.FloatField(_("dense BF16 tensor TFLOPS"), null=True, blank=True)
    # The FP16 tensor rate: the BF16 rate where both exist; V100 and Turing have FP16 only.
    fp16_tflops = models.FloatField(_("dense FP16 tensor TFLOPS"), null=True, blank=True)
    fp32_tflops = models.FloatField(_("FP32 TFLOPS"), null=True, blank=True)
    # What fixed tasks (rendering, simulation, video) may need (docs/accelerators.md): dense
    # vector FP64, RT cores and NVENC video-encoder engines; 0 where the card has none, blank
    # where not stated.
    fp64_tflops = models.FloatField(_("FP64 TFLOPS"), null=True, blank=True)
    rt_cores = models.PositiveSmallIntegerField(_("RT cores"), null=True, blank=True)
    nvenc = models.PositiveSmallIntegerField(_("NVENC video encoders"), null=True, blank=True)
    nvlink = models.BooleanField(_("NVLink"), default=False)
    nvlink_bandwidth_gbps = models.FloatField(
        _("NVLink bandwidth (GB/s, bidirectional)"), null=True, blank=True
    )
    pcie_gen = models.PositiveSmallIntegerField(_("PCIe generation"), null=True, blank=True)
    tdp_w = models.PositiveIntegerField(_("TDP (W)"), null=True, blank=True)
    domestic = models.BooleanField(_("domestic (Chinese) accelerator"), default=False)
    confidence = models.CharField(
        _("confidence"), max_length=12, choices=Confidence.choices, default=Confidence.SECONDARY
    )
    figure_confidence = models.JSONField(_("confidence per figure"), default=dict, blank=True)
    # The software it runs (docs/accelerators.md, "Compute stacks and precisions"): compute
    # stack, NVIDIA's compute capability ("8.9"), each precision's support, their sources.
    stack = models.CharField(
        _("compute stack"),
        max_length=12,
        choices=[(k, v) for k, v in STACK_NAMES.items()],
        default="cuda",
    )
    compute_capability = models.CharField(_("compute capability"), max_length=8, blank=True)
    precisions = models.JSONField(_("native precisions"), default=dict, blank=True)
    stack_source = models.TextField(_("sources of the stack and precisions"), blank=True)
    stack_confidence = models.CharField(
        _("confidence of the stack and precisions"),
        max_length=12,
        choices=Confidence.choices,
        default=Confidence.UNVERIFIED,
    )
    mig_slots = models.PositiveSmallIntegerField(_("MIG memory slots"), default=0)
    mig_max_compute = models.PositiveSmallIntegerField(_("MIG compute slices"), default=0)
    source_note = models.TextField(_("sources of the figures"), blank=True)
    source = models.ForeignKey(
        Source, on_delete=models.PROTECT, related_name="accelerators", verbose_name=_("source")
    )

    class Meta:
        ordering = ["vendor", "name"]
        verbose_name = _("accelerator")
        constraints = [
            models.CheckConstraint(
                condition=Q(vram_gib__gt=0),
                name="accelerator_vram_positive",
                violation_error_message=_("VRAM must be more than zero."),
            ),
            models.CheckConstraint(
                condition=Q(memory_bandwidth_gbps__isnull=True) | Q(memory_bandwidth_gbps__gt=0),
                name="accelerator_bandwidth_positive",
                violation_error_message=_("Memory bandwidth must be more than zero."),
            ),
            models.CheckConstraint(
                condition=Q(bf16_tflops__isnull=True) | Q(bf16_tflops__gt=0),
                name="accelerator_tflops_positive",
                violation_error_message=_("TFLOPS must be more than zero."),
            ),
            models.CheckConstraint(
                condition=_choices_check("confidence", Confidence),
                name="accelerator_confidence_known",
                violation_error_message=_("Unknown confidence grade."),
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def figure_grade(self, figure: str) -> str:
        if figure == "fp16_tflops" and figure not in self.figure_confidence:
            figure = "bf16_tflops"  # the same rate where the row gives no FP16 figure of its own
        return str(self.figure_confidence.get(figure, self.confidence))


def normalise_alias(name: str) -> str:
    """The engine's matching form of a name (case, separators and vendor prefix ignored)."""
    return normalise_name(name)


class AcceleratorAlias(CatalogueModel):
    """A name a catalog uses for an accelerator ("A100-80GB", "NVIDIA A100-SXM4-80GB")."""

    accelerator = models.ForeignKey(
        Accelerator, on_delete=models.CASCADE, related_name="aliases", verbose_name=_("accelerator")
    )
    alias = models.CharField(_("alias"), max_length=100)
    normalised = models.CharField(_("normalised alias"), max_length=100, editable=False)

    class Meta:
        ordering = ["alias"]
        verbose_name = _("accelerator alias")
        verbose_name_plural = _("accelerator aliases")
        constraints = [
            models.UniqueConstraint(
                fields=["normalised"],
                name="acceleratoralias_normalised_unique",
                violation_error_message=_("This alias already names an accelerator."),
            ),
        ]

    def __str__(self) -> str:
        return self.alias

    def clean(self) -> None:
        self.normalised = normalise_alias(self.alias)
        if not self.normalised:
            raise ValidationError({"alias": _("An alias needs at least one letter or digit.")})
        clash = AcceleratorAlias.objects.filter(normalised=self.normalised).exclude(pk=self.pk)
        if clash.exists():
            raise ValidationError(
                {"alias": _("This alias already names %(acc)s.") % {"acc": clash[0].accelerator}}
            )


class MigProfile(CatalogueModel):
    """A MIG GPU-instance profile of an accelerator and where it may start (MIG User Guide)."""

    accelerator = models.ForeignKey(
        Accelerator,
        on_delete=models.CASCADE,
        related_name="mig_profiles",
        verbose_name=_("accelerator"),
    )
    name = models.CharField(_("profile"), max_length=30)
    memory_gib = models.DecimalField(_("memory (GiB)"), max_digits=6, decimal_places=2)
    memory_slices = models.PositiveSmallIntegerField(_("memory slots"))
    compute_slices = models.PositiveSmallIntegerField(_("compute slices"))
    max_count = models.PositiveSmallIntegerField(_("max instances"))
    starts = models.JSONField(_("allowed start slots"), default=list)
    media_extensions = models.BooleanField(_("media extensions (+me)"), default=False)

    class Meta:
        ordering = ["accelerator", "memory_slices", "compute_slices", "name"]
        verbose_name = _("MIG profile")
        constraints = [
            models.UniqueConstraint(
                fields=["accelerator", "name"],
                name="migprofile_unique_per_accelerator",
                violation_error_message=_("This accelerator already has this MIG profile."),
            ),
            models.CheckConstraint(
                condition=Q(memory_slices__gte=1) & Q(compute_slices__gte=1) & Q(max_count__gte=1),
                name="migprofile_counts_positive",
                violation_error_message=_("Slots, slices and counts must be at least 1."),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.accelerator.slug} {self.name}"


class OfferingQuerySet(models.QuerySet["Offering"]):
    def for_catalog(self) -> OfferingQuerySet:
        """Offerings with platform, accelerator and current prices: three queries in all.

        The current prices come from the stored pointers (CurrentPrice), with their observations
        and sources, as `current_price_list`; `platforms.selectors.current_prices_by_unit` reads
        them.
        """
        return (
            self.filter(is_active=True)
            .select_related("platform", "accelerator", "source")
            .prefetch_related(
                models.Prefetch(
                    "current_price_rows",
                    queryset=CurrentPrice.objects.select_related(
                        "observation", "observation__source"
                    ),
                    to_attr="current_price_list",
                )
            )
        )


class Offering(CatalogueModel):
    """An instance type a platform rents."""

    platform = models.ForeignKey(
        Platform, on_delete=models.CASCADE, related_name="offerings", verbose_name=_("platform")
    )
    accelerator = models.ForeignKey(
        Accelerator,
        on_delete=models.PROTECT,
        related_name="offerings",
        verbose_name=_("accelerator"),
    )
    name = models.CharField(_("name"), max_length=200)
    name_zh = models.CharField(_("name (Chinese)"), max_length=200, blank=True)
    external_id = models.CharField(
        _("catalog key"),
        max_length=200,
        blank=True,
        help_text=_("Key of this offering in an imported catalog (instance type and region)."),
    )
    gpu_count = models.PositiveSmallIntegerField(_("GPUs"), default=1)
    pooled_vram_gib = models.DecimalField(
        _("pooled slice memory (GiB)"),
        max_digits=7,
        decimal_places=2,
        null=True,
        blank=True,
        help_text=_("For a pooled slice sold by memory: the slice's memory."),
    )
    mig_profile = models.CharField(
        _("MIG profile"),
        max_length=30,
        blank=True,
        help_text=_("For an offering that is one MIG slice: its profile."),
    )
    vcpus = models.PositiveSmallIntegerField(_("vCPUs"), null=True, blank=True)
    ram_gib = models.DecimalField(
        _("RAM (GiB)"), max_digits=8, decimal_places=1, null=True, blank=True
    )
    disk_gb = models.PositiveIntegerField(_("disk (GB)"), null=True, blank=True)
    # Blank: not stated (the platform's only delivery form is then the offering's; ranking's
    # renting filters and the list's `delivery_form` read it so).
    delivery_form = models.CharField(
        _("delivery form"), max_length=20, choices=DeliveryForm.choices, blank=True
    )
    sharing_mode = models.CharField(
        _("sharing mode"), max_length=12, choices=SharingMode.choices, default=SharingMode.EXCLUSIVE
    )
    interconnect = models.CharField(
        _("interconnect"), max_length=10, choices=Interconnect.choices, default=Interconnect.PCIE
    )
    network = models.CharField(
        _("network between instances"),
        max_length=12,
        choices=Network.choices,
        blank=True,
        help_text=_("How a task spanning several instances talks between them; blank: not stated."),
    )
    network_gbps = models.PositiveIntegerField(
        _("network bandwidth (Gb/s per instance)"),
        null=True,
        blank=True,
        help_text=_("As the platform states it, e.g. AWS p4d 400, p5 3200 (EFA)."),
    )
    region = models.CharField(_("region"), max_length=100, blank=True)
    interruptible = models.BooleanField(_("interruptible (spot)"), default=False)
    is_active = models.BooleanField(_("listed"), default=True)
    notes = models.TextField(_("notes"), blank=True)
    source = models.ForeignKey(
        Source, on_delete=models.PROTECT, related_name="offerings", verbose_name=_("source")
    )
    # The explorer's default sort keys, stored so that an index serves them: of the offering's
    # current list prices, the cheapest hourly equivalent (a month is 720 h) in CNY at the latest
    # exchange rate, and that over the GPU count; null without a price that converts. Kept by every
    # write of current prices, GPU counts and exchange rates
    # (platforms.services.current_price_keys_refresh, explorer_keys_refresh).
    list_hourly_cny = models.FloatField(
        _("cheapest hourly list price (CNY)"), null=True, editable=False
    )
    list_gpu_hour_cny = models.FloatField(
        _("cheapest list price per GPU-hour (CNY)"), null=True, editable=False
    )

    objects = OfferingQuerySet.as_manager()

    class Meta:
        ordering = ["platform", "accelerator", "gpu_count", "name"]
        verbose_name = _("offering")
        indexes = [
            # The list API's default order and its keyset pages (api/pagination.py), listed
            # offerings only.
            models.Index(
                fields=["platform", "accelerator", "gpu_count", "name", "id"],
                condition=Q(is_active=True),
                name="offering_listed_order",
            ),
            models.Index(
                fields=["gpu_count", "id"], condition=Q(is_active=True), name="offering_by_gpus"
            ),
            # The explorer's sorts by price per GPU-hour and by price (platforms.selectors).
            models.Index(
                fields=["list_gpu_hour_cny"],
                condition=Q(is_active=True),
                name="offering_by_gpu_hour_cny",
            ),
            models.Index(
                fields=["list_hourly_cny"],
                condition=Q(is_active=True),
                name="offering_by_hourly_cny",
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(gpu_count__gte=1),
                name="offering_gpu_count_positive",
                violation_error_message=_("An offering has at least one GPU."),
            ),
            models.CheckConstraint(
                condition=Q(pooled_vram_gib__isnull=True) | Q(pooled_vram_gib__gt=0),
                name="offering_pooled_vram_positive",
                violation_error_message=_("A pooled slice has more than zero memory."),
            ),
            models.CheckConstraint(
                condition=Q(delivery_form="") | _choices_check("delivery_form", DeliveryForm),
                name="offering_delivery_form_known",
                violation_error_message=_("Unknown delivery form."),
            ),
            models.CheckConstraint(
                condition=_choices_check("sharing_mode", SharingMode),
                name="offering_sharing_mode_known",
                violation_error_message=_("Unknown sharing mode."),
            ),
            models.CheckConstraint(
                condition=_choices_check("interconnect", Interconnect),
                name="offering_interconnect_known",
                violation_error_message=_("Unknown interconnect."),
            ),
            models.CheckConstraint(
                condition=Q(network="") | _choices_check("network", Network),
                name="offering_network_known",
                violation_error_message=_("Unknown network."),
            ),
            models.CheckConstraint(
                condition=Q(network_gbps__isnull=True) | Q(network_gbps__gt=0),
                name="offering_network_gbps_positive",
                violation_error_message=_("A network has more than zero bandwidth."),
            ),
            models.UniqueConstraint(
                fields=["platform", "external_id"],
                condition=~Q(external_id=""),
                name="offering_external_id_unique_per_platform",
                violation_error_message=_("This platform already has an offering with this key."),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.platform.name} · {self.name}"

    @property
    def name_text(self) -> str:
        """The name in the page's language (the Chinese name where there is one)."""
        return in_page_language(self.name, self.name_zh)

    @property
    def vram_per_gpu_gib(self) -> Decimal:
        return self.pooled_vram_gib or self.accelerator.vram_gib

    @property
    def total_vram_gib(self) -> Decimal:
        return self.vram_per_gpu_gib * self.gpu_count

    @property
    def current_prices(self) -> list[PriceObservation]:
        """The current observation per billing unit and tier: from for_catalog()'s prefetch
        (`current_price_list`) where the offering came from it, else one query."""
        rows: list[CurrentPrice] | None = getattr(self, "current_price_list", None)
        if rows is None:
            rows = list(self.current_price_rows.select_related("observation__source"))
        return [row.observation for row in rows]


class PriceObservationQuerySet(models.QuerySet["PriceObservation"]):
    def current(self) -> PriceObservationQuerySet:
        """The latest observation per (offering, billing unit, price tier): a member price does not
        replace the list price, each tier has its own history.

        Read from the stored pointers (CurrentPrice, kept by the write services), so the cost
        follows the size of the catalogue, never the length of the price history.
        """
        return self.filter(current_row__isnull=False)

    def current_by_offering(
        self,
        offerings: models.QuerySet[Offering] | None = None,
        tiers: Iterable[str] | None = None,
    ) -> PriceObservationQuerySet:
        """current() of `offerings` (default: all) in `tiers` (default: all), driven from the
        stored pointers of those offerings: one index range per offering."""
        rows = CurrentPrice.objects.all()
        if offerings is not None:
            rows = rows.filter(offering__in=offerings.order_by().values("pk"))
        if tiers is not None:
            rows = rows.filter(tier__in=list(dict.fromkeys(tiers)))
        return self.filter(pk__in=rows.values("observation_id"))

    def stale(self, days: int | None = None) -> PriceObservationQuerySet:
        """Prices last seen more than `days` (default PRICE_STALE_AFTER_DAYS) days ago."""
        days = settings.PRICE_STALE_AFTER_DAYS if days is None else days
        return self.filter(last_seen_at__lt=vocab.stale_before(timezone.now(), days))


class PriceObservation(CatalogueModel):
    """One observed price of an offering for a billing unit. Append-only: history is not rewritten.

    `last_seen_at` moves forward when a later import sees the same price again, so staleness is
    right without a new row per sighting.
    """

    offering = models.ForeignKey(
        Offering, on_delete=models.CASCADE, related_name="prices", verbose_name=_("offering")
    )
    unit = models.CharField(_("billing unit"), max_length=10, choices=BillingUnit.choices)
    # Six decimal places: per-second prices ($0.000164/s, Modal's T4) are stored as listed.
    amount = models.DecimalField(_("amount"), max_digits=14, decimal_places=6)
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices)
    tier = models.CharField(
        _("price tier"),
        max_length=12,
        choices=PriceTier.choices,
        default=PriceTier.LIST,
        help_text=_(
            "Who the price is for: the list price, or a member, student or enterprise price."
        ),
    )
    # What the price is (vocab.PriceBasis): a bookable offer, a market floor ("from", the lowest
    # listed offer), a market statistic (a median) or a competitor's claim, as its source states.
    basis = models.CharField(
        _("what the price is"),
        max_length=10,
        choices=PriceBasis.choices,
        default=PriceBasis.OFFER,
        help_text=_(
            'A bookable price, a market floor (a "from" price, the lowest listed offer), a '
            "market statistic (a median) or a competitor's claim: floors and statistics are "
            "shown but not ranked as offers."
        ),
    )
    observed_at = models.DateTimeField(_("observed at"), default=timezone.now)
    last_seen_at = models.DateTimeField(_("last seen at"))
    source = models.ForeignKey(
        Source, on_delete=models.PROTECT, related_name="prices", verbose_name=_("source")
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("entered by"),
    )
    created_at = models.DateTimeField(_("recorded at"), auto_now_add=True)

    objects = PriceObservationQuerySet.as_manager()

    class Meta:
        verbose_name = _("price observation")
        get_latest_by = "observed_at"
        indexes = [
            # "Latest price per (offering, unit, tier)": the services re-pointing CurrentPrice.
            models.Index(
                F("offering"),
                F("unit"),
                F("tier"),
                F("observed_at").desc(),
                name="price_offer_unit_tier_latest",
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(amount__gte=0),
                name="price_amount_not_negative",
                violation_error_message=_("A price cannot be negative."),
            ),
            _observed_since_earliest("price"),
            models.CheckConstraint(
                condition=_choices_check("currency", Currency),
                name="price_currency_known",
                violation_error_message=_("Unknown currency."),
            ),
            models.CheckConstraint(
                condition=_choices_check("unit", BillingUnit),
                name="price_unit_known",
                violation_error_message=_("Unknown billing unit."),
            ),
            models.CheckConstraint(
                condition=_choices_check("tier", PriceTier),
                name="price_tier_known",
                violation_error_message=_("Unknown price tier."),
            ),
            models.CheckConstraint(
                condition=_choices_check("basis", PriceBasis),
                name="price_basis_known",
                violation_error_message=_("Unknown price basis."),
            ),
            models.CheckConstraint(
                condition=Q(last_seen_at__gte=F("observed_at")),
                name="price_seen_after_observed",
                violation_error_message=_("A price cannot be last seen before it was observed."),
            ),
            models.UniqueConstraint(
                fields=["offering", "unit", "tier", "observed_at"],
                name="price_one_per_offering_unit_time",
                violation_error_message=_(
                    "This offering already has a price for this billing unit and tier at this time."
                ),
            ),
        ]

    def __str__(self) -> str:
        price = listed_price(self.amount)
        text = f"{self.offering}: {price} {self.currency} {self.get_unit_display()}"
        return text if self.tier == PriceTier.LIST else f"{text} ({self.get_tier_display()})"

    def age_days(self, now: dt.datetime | None = None) -> int:
        return price_age_days(self.last_seen_at, now or timezone.now())

    def is_stale(self, now: dt.datetime | None = None) -> bool:
        """Last seen more than PRICE_STALE_AFTER_DAYS days ago (the engine's rule too)."""
        return price_is_stale(self.last_seen_at, now or timezone.now())


# A price's age and staleness from when it was last seen, for an observation and for a price read
# as values (the offering list API's api.filters.ListedPrice).
def price_age_days(last_seen_at: dt.datetime, now: dt.datetime) -> int:
    """Whole days since the price was last seen (0 for a sighting after `now`)."""
    return max(0, (now - last_seen_at).days)


def price_is_stale(last_seen_at: dt.datetime, now: dt.datetime) -> bool:
    return vocab.is_stale(last_seen_at, now, settings.PRICE_STALE_AFTER_DAYS)


class CurrentPrice(CatalogueModel):
    """The current price of an offering per billing unit and price tier, stored: a pointer to its
    latest observation, kept by every write of prices (platforms.services), so that pages and lists
    read current prices with an index lookup whatever the price history holds.

    `amount`, `currency` and `observed_at` repeat the observation's (which never change once
    written; a superuser's correction goes through `price_observation_update`, which re-points):
    the explorer and the list API filter and order on them without a join.
    """

    offering = models.ForeignKey(
        Offering,
        on_delete=models.CASCADE,
        related_name="current_price_rows",
        verbose_name=_("offering"),
    )
    unit = models.CharField(_("billing unit"), max_length=10, choices=BillingUnit.choices)
    tier = models.CharField(_("price tier"), max_length=12, choices=PriceTier.choices)
    observation = models.OneToOneField(
        PriceObservation,
        on_delete=models.CASCADE,
        related_name="current_row",
        verbose_name=_("observation"),
    )
    amount = models.DecimalField(_("amount"), max_digits=14, decimal_places=6)
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices)
    # The observation's basis, repeated like its amount: lists and the advisor read it unjoined.
    basis = models.CharField(
        _("what the price is"),
        max_length=10,
        choices=PriceBasis.choices,
        default=PriceBasis.OFFER,
    )
    observed_at = models.DateTimeField(_("observed at"))
    # `amount` over the unit's hours and the offering's GPUs (advisor.engine.vocab.BillingUnit:
    # a month is 720 h), in the price's own currency: the sort key of the list API's price orders,
    # kept by the same writes as the row (platforms.services.current_price_keys_refresh), so that
    # an index serves "the cheapest per GPU-hour first" whatever the catalogue's size.
    per_gpu_hour = models.FloatField(_("price per GPU-hour"), null=True, editable=False)

    class Meta:
        verbose_name = _("current price")
        indexes = [
            # The list API's keyset pages by price and by price per GPU-hour (api/pagination.py).
            models.Index(
                fields=["unit", "tier", "amount", "offering"], name="currentprice_by_amount"
            ),
            models.Index(
                fields=["unit", "tier", "per_gpu_hour", "offering"],
                name="currentprice_by_gpu_hour",
            ),
            # Descending keys, ties still by ascending id.
            models.Index(
                fields=["unit", "tier", "-amount", "offering"], name="currentprice_by_amount_desc"
            ),
            models.Index(
                fields=["unit", "tier", "-per_gpu_hour", "offering"],
                name="currentprice_by_gpu_hour_desc",
            ),
        ]
        constraints = [
            # Also the index of "the current price of these offerings in this unit and tier": the
            # explorer, the list API and the advisor's catalogue.
            models.UniqueConstraint(
                fields=["offering", "unit", "tier"],
                name="currentprice_one_per_offering_unit_tier",
                violation_error_message=_(
                    "This offering already has a current price for this unit and tier."
                ),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.offering_id} {self.unit} {self.tier}: {self.observation_id}"


class CatalogueVersion(CatalogueModel):
    """One row naming the catalogue's state: every write of catalogue data (prices, offerings,
    platforms, accelerators, rates, storage, sources) changes `token` in its own transaction
    (`platforms.services.catalogue_changed`), so a process that keeps engine inputs built from the
    catalogue (advisor.services) knows, with one cheap query, whether they are still the
    database's. In the database, so every gunicorn worker sees the same version.

    `token` is random rather than a counter: a rolled-back write must never leave a number that a
    later, different write would reuse. `number` counts the changes, for people.
    """

    number = models.BigIntegerField(_("changes"), default=0)
    token = models.CharField(_("token"), max_length=32)
    changed_at = models.DateTimeField(_("changed at"), default=timezone.now)

    class Meta:
        verbose_name = _("catalogue version")

    def __str__(self) -> str:
        return f"catalogue version {self.number} ({self.token})"


class StoragePriceQuerySet(models.QuerySet["StoragePrice"]):
    def latest_per_kind(self) -> StoragePriceQuerySet:
        """The latest price of each (platform, kind) of storage: the one rule every reader uses
        (the advisor's engine inputs, the platform page, the API)."""
        latest = (
            StoragePrice.objects.filter(platform=OuterRef("platform"), kind=OuterRef("kind"))
            .order_by("-observed_at")
            .values("observed_at")[:1]
        )
        return self.filter(observed_at=Subquery(latest))


class StoragePrice(CatalogueModel):
    """A platform's price for a kind of storage, with its unit and free quota."""

    platform = models.ForeignKey(
        Platform,
        on_delete=models.CASCADE,
        related_name="storage_prices",
        verbose_name=_("platform"),
    )
    kind = models.CharField(_("kind"), max_length=20, choices=StorageKind.choices)
    unit = models.CharField(_("unit"), max_length=10, choices=StorageUnit.choices)
    amount = models.DecimalField(_("amount"), max_digits=12, decimal_places=6)
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices)
    free_gb = models.PositiveIntegerField(_("free quota (GB)"), default=0)
    billed_when_stopped = models.BooleanField(
        _("billed while the instance is stopped"), null=True, blank=True
    )
    observed_at = models.DateTimeField(_("observed at"), default=timezone.now)
    notes = models.CharField(_("notes"), max_length=300, blank=True)
    notes_zh = models.CharField(_("notes (Chinese)"), max_length=300, blank=True)
    source = models.ForeignKey(
        Source, on_delete=models.PROTECT, related_name="storage_prices", verbose_name=_("source")
    )

    objects = StoragePriceQuerySet.as_manager()

    class Meta:
        verbose_name = _("storage price")
        get_latest_by = "observed_at"
        indexes = [
            # Latest storage price per (platform, kind): the platform page.
            models.Index(
                F("platform"), F("kind"), F("observed_at").desc(), name="storage_platform_latest"
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(amount__gte=0),
                name="storage_amount_not_negative",
                violation_error_message=_("A price cannot be negative."),
            ),
            _observed_since_earliest("storage"),
            models.CheckConstraint(
                condition=_choices_check("currency", Currency),
                name="storage_currency_known",
                violation_error_message=_("Unknown currency."),
            ),
            models.CheckConstraint(
                condition=_choices_check("unit", StorageUnit),
                name="storage_unit_known",
                violation_error_message=_("Unknown storage unit."),
            ),
            models.CheckConstraint(
                condition=_choices_check("kind", StorageKind),
                name="storage_kind_known",
                violation_error_message=_("Unknown storage kind."),
            ),
            models.UniqueConstraint(
                fields=["platform", "kind", "observed_at"],
                name="storage_one_per_platform_kind_time",
                violation_error_message=_(
                    "This platform already has a price for this storage at this time."
                ),
            ),
        ]

    def __str__(self) -> str:
        kind, unit = self.get_kind_display(), self.get_unit_display()
        return f"{self.platform.name}: {kind} {listed_price(self.amount)} {self.currency} {unit}"

    @property
    def notes_text(self) -> str:
        return in_page_language(self.notes, self.notes_zh)


class BillingRules(CatalogueModel):
    """How a platform meters and bills, as its documents state it. Every rule may be unknown
    (null or blank): the page says "not stated" rather than guessing.

    The advisor reads the metering step and minimum charge into each pay-as-you-go price
    (PriceSpec.granularity_seconds, min_charge); the other rules reach the engine on
    OfferingSpec.billing_rules for the advice that uses them (idle time between runs).
    """

    platform = models.OneToOneField(
        Platform,
        on_delete=models.CASCADE,
        related_name="billing_rules",
        verbose_name=_("platform"),
    )
    metering_seconds = models.PositiveIntegerField(
        _("metering step (seconds)"),
        null=True,
        blank=True,
        help_text=_(
            "How pay-as-you-go time is counted: 1 per second, 60 per minute, 3600 per started hour."
        ),
    )
    min_charge = models.DecimalField(
        _("minimum charge"), max_digits=12, decimal_places=6, null=True, blank=True
    )
    min_charge_currency = models.CharField(
        _("minimum charge currency"), max_length=3, choices=Currency.choices, blank=True
    )
    startup_billed = models.BooleanField(_("start-up time billed"), null=True, blank=True)
    idle_mode = models.BooleanField(
        _("no-GPU (idle) mode offered"),
        null=True,
        blank=True,
        help_text=_(
            "An instance can run without its GPU at a low price (its price history below)."
        ),
    )
    storage_billed_while_stopped = models.BooleanField(
        _("storage billed while stopped"), null=True, blank=True
    )
    release_after_stopped_days = models.PositiveSmallIntegerField(
        _("released after days stopped"), null=True, blank=True
    )
    release_after_expiry_days = models.PositiveSmallIntegerField(
        _("released after days past expiry"), null=True, blank=True
    )
    system_disk_kept_on_delete = models.BooleanField(
        _("system disk kept when the instance is deleted"), null=True, blank=True
    )
    idle_shutdown_seconds = models.PositiveIntegerField(
        _("stopped after idle (seconds)"),
        null=True,
        blank=True,
        help_text=_("The platform stops idle sessions after this long (趋动云: 3600 s observed)."),
    )
    credit_name = models.CharField(
        _("credit unit"),
        max_length=50,
        blank=True,
        help_text=_("Where prices are in platform credits rather than money (趋动云: 算力点)."),
    )
    credit_name_en = models.CharField(_("credit unit (English)"), max_length=50, blank=True)
    notes = models.TextField(_("notes"), blank=True)
    notes_zh = models.TextField(_("notes (Chinese)"), blank=True)
    source = models.ForeignKey(
        Source, on_delete=models.PROTECT, related_name="billing_rules", verbose_name=_("source")
    )

    class Meta:
        ordering = ["platform"]
        verbose_name = _("billing rules")
        verbose_name_plural = _("billing rules")
        constraints = [
            models.CheckConstraint(
                condition=Q(metering_seconds__isnull=True) | Q(metering_seconds__gte=1),
                name="billingrules_metering_positive",
                violation_error_message=_("The metering step is at least one second."),
            ),
            models.CheckConstraint(
                condition=(Q(min_charge__isnull=True) & Q(min_charge_currency=""))
                | (Q(min_charge__gte=0) & _choices_check("min_charge_currency", Currency)),
                name="billingrules_min_charge_with_currency",
                violation_error_message=_(
                    "A minimum charge is not negative and names its currency."
                ),
            ),
        ]

    def __str__(self) -> str:
        return str(_("Billing rules of %(platform)s") % {"platform": self.platform})

    @property
    def notes_text(self) -> str:
        return in_page_language(self.notes, self.notes_zh)

    @property
    def credit_text(self) -> str:
        return in_page_language(self.credit_name_en, self.credit_name) or self.credit_name


class HostSize(CatalogueModel):
    """How many cards of one kind a per-card marketplace rents together on one host, as a source
    states it (AutoDL: "选择物理主机,然后在该物理主机上创建有N块GPU卡的实例"). The advisor then
    offers a task that spans several GPUs N cards of the platform's one-card offerings on one
    host, billed N times the card's price, connected as `interconnect` says; without a row the
    platform is taken to rent one card per instance, and the answer says so.

    `accelerator` blank: every card of the platform."""

    platform = models.ForeignKey(
        Platform, on_delete=models.CASCADE, related_name="host_sizes", verbose_name=_("platform")
    )
    accelerator = models.ForeignKey(
        "Accelerator",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="host_sizes",
        verbose_name=_("accelerator"),
        help_text=_("Blank: every card of the platform."),
    )
    max_cards = models.PositiveSmallIntegerField(
        _("most cards on one host"),
        help_text=_("The most cards of this kind one instance can rent on one host."),
    )
    interconnect = models.CharField(
        _("interconnect between the cards"),
        max_length=10,
        choices=Interconnect.choices,
        default=Interconnect.PCIE,
    )
    notes = models.TextField(_("notes"), blank=True)
    notes_zh = models.TextField(_("notes (Chinese)"), blank=True)
    source = models.ForeignKey(
        Source, on_delete=models.PROTECT, related_name="host_sizes", verbose_name=_("source")
    )

    class Meta:
        ordering = ["platform", "accelerator"]
        verbose_name = _("host size")
        verbose_name_plural = _("host sizes")
        constraints = [
            models.UniqueConstraint(
                fields=["platform", "accelerator"],
                name="hostsize_platform_accelerator_unique",
                nulls_distinct=False,
            ),
            models.CheckConstraint(
                condition=Q(max_cards__gte=1),
                name="hostsize_max_cards_positive",
                violation_error_message=_("A host rents at least one card."),
            ),
            models.CheckConstraint(
                condition=_choices_check("interconnect", Interconnect),
                name="hostsize_interconnect_known",
                violation_error_message=_("Unknown interconnect."),
            ),
        ]

    def __str__(self) -> str:
        card = self.accelerator.name if self.accelerator else _("any card")
        return f"{self.platform} · {card} · ≤ {self.max_cards}"


class IdleModePriceQuerySet(models.QuerySet["IdleModePrice"]):
    def latest_per_platform(self) -> IdleModePriceQuerySet:
        """The latest no-GPU-mode price of each platform."""
        latest = (
            IdleModePrice.objects.filter(platform=OuterRef("platform"))
            .order_by("-observed_at")
            .values("observed_at")[:1]
        )
        return self.filter(observed_at=Subquery(latest))


class IdleModePrice(CatalogueModel):
    """A platform's price for an instance in no-GPU (idle) mode: append-only, like prices."""

    platform = models.ForeignKey(
        Platform,
        on_delete=models.CASCADE,
        related_name="idle_mode_prices",
        verbose_name=_("platform"),
    )
    unit = models.CharField(_("billing unit"), max_length=10, choices=BillingUnit.choices)
    amount = models.DecimalField(_("amount"), max_digits=14, decimal_places=6)
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices)
    observed_at = models.DateTimeField(_("observed at"), default=timezone.now)
    description = models.CharField(_("what it includes"), max_length=200, blank=True)
    description_zh = models.CharField(_("what it includes (Chinese)"), max_length=200, blank=True)
    source = models.ForeignKey(
        Source, on_delete=models.PROTECT, related_name="idle_mode_prices", verbose_name=_("source")
    )

    objects = IdleModePriceQuerySet.as_manager()

    class Meta:
        verbose_name = _("no-GPU mode price")
        get_latest_by = "observed_at"
        indexes = [
            # Latest no-GPU-mode price per platform: the platform page and the advisor.
            models.Index(F("platform"), F("observed_at").desc(), name="idlemode_platform_latest"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(amount__gte=0),
                name="idlemode_amount_not_negative",
                violation_error_message=_("A price cannot be negative."),
            ),
            _observed_since_earliest("idlemode"),
            models.CheckConstraint(
                condition=_choices_check("currency", Currency),
                name="idlemode_currency_known",
                violation_error_message=_("Unknown currency."),
            ),
            models.CheckConstraint(
                condition=_choices_check("unit", BillingUnit),
                name="idlemode_unit_known",
                violation_error_message=_("Unknown billing unit."),
            ),
            models.UniqueConstraint(
                fields=["platform", "observed_at"],
                name="idlemode_one_per_platform_time",
                violation_error_message=_(
                    "This platform already has a no-GPU-mode price at this time."
                ),
            ),
        ]

    def __str__(self) -> str:
        unit = self.get_unit_display()
        return f"{self.platform.name}: {listed_price(self.amount)} {self.currency} {unit}"

    @property
    def description_text(self) -> str:
        return in_page_language(self.description, self.description_zh)


class CreditRate(CatalogueModel):
    """What one platform credit (趋动云's 算力点) is worth in CNY on a date, as a source states."""

    platform = models.ForeignKey(
        Platform, on_delete=models.CASCADE, related_name="credit_rates", verbose_name=_("platform")
    )
    credit_name = models.CharField(_("credit unit"), max_length=50)
    cny_per_credit = models.DecimalField(_("CNY per credit"), max_digits=14, decimal_places=6)
    as_of = models.DateField(_("as of"))
    source = models.ForeignKey(
        Source, on_delete=models.PROTECT, related_name="credit_rates", verbose_name=_("source")
    )

    class Meta:
        verbose_name = _("credit rate")
        get_latest_by = "as_of"
        constraints = [
            models.CheckConstraint(
                condition=Q(cny_per_credit__gt=0),
                name="creditrate_positive",
                violation_error_message=_("A credit rate must be more than zero."),
            ),
            models.UniqueConstraint(
                fields=["platform", "credit_name", "as_of"],
                name="creditrate_one_per_platform_credit_date",
                violation_error_message=_(
                    "This platform already has a rate for this credit on this date."
                ),
            ),
        ]

    def __str__(self) -> str:
        return f"1 {self.credit_name} = {rate_number(self.cny_per_credit)} CNY ({self.as_of})"


class ExchangeRate(CatalogueModel):
    """Units of `quote` per one unit of `base` on a date (e.g. 1 USD = 6.7351 CNY)."""

    base = models.CharField(_("base currency"), max_length=3, choices=Currency.choices)
    quote = models.CharField(_("quote currency"), max_length=3, choices=Currency.choices)
    rate = models.DecimalField(_("rate"), max_digits=14, decimal_places=6)
    as_of = models.DateField(_("as of"))
    source = models.ForeignKey(
        Source, on_delete=models.PROTECT, related_name="exchange_rates", verbose_name=_("source")
    )

    class Meta:
        verbose_name = _("exchange rate")
        get_latest_by = "as_of"
        constraints = [
            models.CheckConstraint(
                condition=Q(rate__gt=0),
                name="exchangerate_rate_positive",
                violation_error_message=_("An exchange rate must be more than zero."),
            ),
            models.CheckConstraint(
                condition=~Q(base=F("quote")),
                name="exchangerate_distinct_currencies",
                violation_error_message=_("An exchange rate converts between two currencies."),
            ),
            models.UniqueConstraint(
                fields=["base", "quote", "as_of"],
                name="exchangerate_one_per_pair_and_date",
                violation_error_message=_("There is already a rate for this pair on this date."),
            ),
        ]

    def __str__(self) -> str:
        return f"1 {self.base} = {rate_number(self.rate)} {self.quote} ({self.as_of})"
