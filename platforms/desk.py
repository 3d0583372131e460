"""The staff's price desk, in the admin: what needs re-checking, and a quick way to re-check it.

- **The desk** (`desk_view`, /admin/platforms/platform/desk/): every current price (all
  platforms', or one's), the one seen longest ago first, so the stale ones (last seen more than
  PRICE_STALE_AFTER_DAYS days ago: advisor.engine.vocab.is_stale) lead; each with the page to
  check (its source's URL, opened in a new tab), its age, and who or what last confirmed it (a
  feed, a staff user, an import: feeds.selectors.price_confirmations). "Still this price", on one
  row or on the ticked ones, records a new observation dated now from the same source, by the
  staff user who confirmed it (platforms.services.prices_still_current): the old one stays in the
  history.
- **A pasted price list** (`paste_view`, /admin/platforms/platform/desk/paste/): a platform's
  prices as a table in the native CSV columns (docs/native-csv.md; tab-separated, as a
  spreadsheet copies cells, is read too), checked by the import machinery
  (platforms.importers.offers_import, as a dry run: what would change, every bad row with its line
  and reason), then applied as one import, all or nothing.

Both are for staff who may add prices (`platforms.add_priceobservation`, as the offering's "Add a
price" and api/permissions.py ask). PlatformAdmin serves their URLs (`PriceDeskUrls`).
"""

from __future__ import annotations

import csv
import hashlib
import io
from typing import TYPE_CHECKING, Any, cast

from django import forms
from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from feeds.selectors import price_confirmations

from . import selectors, services
from .importers import ImportReport, observed_at_value, offers_import
from .importers.registry import parser_for
from .importers.rows import RowProblem
from .models import Platform, PriceObservation

if TYPE_CHECKING:
    from django.contrib.admin import AdminSite
    from django.contrib.auth.models import User

# The desk lists this many prices a page (the seed has some 170 current prices).
PER_PAGE = 100
# The largest table the paste form takes (some 2,000 rows): a whole catalog is an import file.
PASTE_MAX_CHARS = 200_000
PERMISSION = "platforms.add_priceobservation"
# The import's format: the native CSV (docs/native-csv.md).
FORMAT = "native"


def may_use_desk(request: HttpRequest) -> bool:
    user = request.user
    return bool(user.is_active and user.is_staff and user.has_perm(PERMISSION))


def _check_permission(request: HttpRequest) -> None:
    if not may_use_desk(request):
        raise PermissionDenied


class DeskFilterForm(forms.Form):
    platform = forms.ModelChoiceField(
        label=_("platform"),
        queryset=Platform.objects.order_by("name_en", "name"),
        required=False,
        empty_label=_("all platforms"),
    )


def desk_view(site: AdminSite, request: HttpRequest) -> HttpResponse:
    """GET: the prices, stale first, `?platform=<pk>` for one platform's. POST `still=<current
    price pk>` (one row's button) or `still_ticked` with `ids` (the ticked rows): "still this
    price", then back to the same list."""
    _check_permission(request)
    if request.method == "POST":
        return _confirm(request)
    chosen = DeskFilterForm(request.GET or None)
    platform = chosen.cleaned_data["platform"] if chosen.is_valid() else None
    page = Paginator(selectors.desk_prices(platform), PER_PAGE).get_page(request.GET.get("page"))
    rows = list(page.object_list)
    observations = [row.observation for row in rows]
    confirmations = price_confirmations(observations)
    now = timezone.now()
    context = {
        **site.each_context(request),
        "opts": Platform._meta,
        "title": _("Price desk"),
        "filter": chosen,
        "platform": platform,
        "page": page,
        "rows": [
            {
                "current": row,
                "price": row.observation,
                "age": row.observation.age_days(now),
                "stale": row.observation.is_stale(now),
                "confirmation": confirmations[row.observation.pk],
            }
            for row in rows
        ],
        "stale_after": settings.PRICE_STALE_AFTER_DAYS,
        "query": request.GET.urlencode(),
    }
    return TemplateResponse(request, "admin/platforms/desk.html", context)


def _confirm(request: HttpRequest) -> HttpResponse:
    wanted = [request.POST["still"]] if "still" in request.POST else request.POST.getlist("ids")
    ids = [int(value) for value in wanted if value.isdigit()]
    back = reverse("admin:platforms_price_desk")
    query = request.POST.get("query", "")
    if query:
        back = f"{back}?{query}"
    if not ids:
        messages.warning(request, _("Tick the prices that still hold, then confirm them."))
        return redirect(back)
    observations = list(
        PriceObservation.objects.filter(current_row__in=ids).select_related("offering", "source")
    )
    user = cast("User", request.user)
    services.prices_still_current(observations=observations, by=user)
    messages.success(
        request,
        ngettext(
            "%(n)s price confirmed: a new observation dated now, by you.",
            "%(n)s prices confirmed: new observations dated now, by you.",
            len(observations),
        )
        % {"n": len(observations)},
    )
    return redirect(back)


class PastedPricesForm(forms.Form):
    platform = forms.ModelChoiceField(
        label=_("platform"), queryset=Platform.objects.order_by("name_en", "name")
    )
    table = forms.CharField(
        label=_("price list"),
        max_length=PASTE_MAX_CHARS,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 14, "cols": 120, "spellcheck": "false"}),
        help_text=_(
            "A header row, then one row per offering, billing unit and price tier, in the native "
            "CSV columns (offering_key, name, accelerator, gpu_count, billing_unit, amount, "
            "currency, ...), comma- or tab-separated. Rows for the chosen platform only."
        ),
    )
    observed_on = forms.DateField(
        label=_("observed on"),
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        help_text=_("The date the prices were read; today means now. A row may give its own."),
    )
    source_url = forms.URLField(
        label=_("page the prices were read from"),
        assume_scheme="https",
        max_length=500,
        widget=forms.URLInput(attrs={"size": 80}),
        help_text=_("The platform's price page: the desk links to it. A row may give its own."),
    )
    # The digest of what was checked: "apply" writes only a table that was checked unchanged.
    checked = forms.CharField(widget=forms.HiddenInput, required=False)

    def digest(self) -> str:
        data = self.cleaned_data
        parts = [str(data["platform"].pk), data["table"], str(data["observed_on"])]
        parts.append(data["source_url"])
        return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


def csv_text(table: str) -> str:
    """The pasted table as CSV text: a table whose header has tabs and no commas was copied from a
    spreadsheet and is rewritten with commas (its lines keep their numbers); the text ends its
    last line."""
    lines = table.strip("\r\n").splitlines()
    header = lines[0] if lines else ""
    if "\t" in header and "," not in header:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        for line in lines:
            writer.writerow(cell.strip() for cell in line.split("\t"))
        return out.getvalue()
    return "\n".join(lines) + "\n"


def other_platforms(text: str, platform: Platform) -> list[RowProblem]:
    """Rows of the table that name another platform than the form's: refused with their lines."""
    parsed = parser_for(FORMAT)(text)
    found = [(line, row.platform_slug) for row in parsed.rows for line in row.lines]
    found += [(row.line, row.platform_slug) for row in parsed.storage]
    found += [(row.line, row.platform_slug) for row in parsed.idle_modes]
    return [
        RowProblem(
            line,
            "other platform",
            f"the row is for platform {slug!r}; this table is for {platform.slug!r}",
        )
        for line, slug in sorted(found)
        if slug and slug != platform.slug
    ]


def paste_import(form: PastedPricesForm, *, user: User, apply: bool) -> ImportReport:
    """Check (apply=False: nothing written) or apply the form's table as one native-CSV import of
    its platform; a row naming another platform is an error, and nothing is written then."""
    data = form.cleaned_data
    platform: Platform = data["platform"]
    text = csv_text(data["table"])
    observed_at = (
        timezone.now()
        if data["observed_on"] == timezone.localdate()
        else observed_at_value(data["observed_on"])
    )
    stray = other_platforms(text, platform)
    report = offers_import(
        text=text,
        fmt=FORMAT,
        filename=f"price desk, {platform.name_en or platform.name}",
        observed_at=observed_at,
        platform=platform,
        source_url=data["source_url"],
        dry_run=bool(stray) or not apply,
        strict=True,
        created_by=user,
    )
    if stray:
        # One reason per line: the platform the row names, not what the import found there.
        lines = {problem.line for problem in stray}
        kept = [problem for problem in report.errors if problem.line not in lines]
        report.errors = sorted([*kept, *stray], key=lambda problem: problem.line)
    return report


def paste_view(site: AdminSite, request: HttpRequest) -> HttpResponse:
    """GET: the form (`?platform=<pk>` chooses the platform). POST `check`: a dry run, its preview
    or its bad rows; POST `apply`: the checked table imported, then back to the desk."""
    _check_permission(request)
    report: ImportReport | None = None
    can_apply = False
    if request.method == "POST":
        form = PastedPricesForm(request.POST)
        if form.is_valid():
            user = cast("User", request.user)
            digest = form.digest()
            apply = "apply" in request.POST and form.cleaned_data["checked"] == digest
            if "apply" in request.POST and not apply:
                messages.warning(request, _("The table changed since it was checked: check it."))
            report = paste_import(form, user=user, apply=apply)
            if report.applied:
                platform = form.cleaned_data["platform"]
                messages.success(
                    request,
                    _(
                        "%(platform)s's price list was applied: %(added)s prices added, "
                        "%(seen)s seen again."
                    )
                    % {
                        "platform": platform,
                        "added": report.prices_added,
                        "seen": report.prices_seen,
                    },
                )
                return redirect(f"{reverse('admin:platforms_price_desk')}?platform={platform.pk}")
            can_apply = report.ok
            form = PastedPricesForm({**request.POST.dict(), "checked": digest if can_apply else ""})
            form.is_valid()
    else:
        form = PastedPricesForm(
            initial={
                "observed_on": timezone.localdate(),
                "platform": request.GET.get("platform"),
            }
        )
    context: dict[str, Any] = {
        **site.each_context(request),
        "opts": Platform._meta,
        "title": _("Paste a price list"),
        "form": form,
        "report": report,
        "can_apply": can_apply,
        "changes": [] if report is None else report.changes,
    }
    return TemplateResponse(request, "admin/platforms/paste.html", context)


class PriceDeskUrls:
    """PlatformAdmin's URLs for the desk and the paste form, before its own (whose
    "<object_id>/" would take "desk/")."""

    admin_site: AdminSite

    def get_urls(self) -> list[URLPattern]:
        site = self.admin_site
        urls = [
            path(
                "desk/",
                site.admin_view(lambda request: desk_view(site, request)),
                name="platforms_price_desk",
            ),
            path(
                "desk/paste/",
                site.admin_view(lambda request: paste_view(site, request)),
                name="platforms_price_paste",
            ),
        ]
        own: list[URLPattern] = super().get_urls()  # type: ignore[misc]
        return urls + own
