"""The watches' pages: make one (from a saved scenario's page or an offering's row), the list of
one's watches (a signed-in user's, or an email address's by the signed link in its emails) and
their removal, the confirmation of an email address, and the unsubscribe link.

Posts carry Django's CSRF token, but the unsubscribe link's POST: a mail client's one-click
unsubscribe (RFC 8058) has none, and the signed token is what allows it. POST /watches/new/ is
counted per client by api/fairuse.py (WATCH_CREATE_RATE), as saving a scenario is; an email
address gets at most WATCH_CONFIRMATIONS_PER_DAY confirmation messages a day and an owner at most
WATCH_MAX_PER_OWNER watches.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib import messages as flash
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from advisor.models import SavedScenario
from platforms.models import Offering

from . import checks, notify, tokens
from .forms import WatchForm
from .models import Watch, WatchKind


def _subject(params: Any) -> tuple[str, SavedScenario | None, Offering | None]:
    key, offering_id = params.get("scenario", ""), params.get("offering", "")
    if key:
        return WatchKind.SCENARIO, get_object_or_404(SavedScenario, key=key), None
    if offering_id.isdigit():
        offering = get_object_or_404(
            Offering.objects.select_related("platform"), pk=int(offering_id)
        )
        return WatchKind.OFFERING, None, offering
    raise Http404


def _owned(request: HttpRequest, email: str = "") -> QuerySet[Watch]:
    found = Watch.objects.select_related("scenario", "offering__platform").order_by("-created_at")
    if email:
        return found.filter(user__isnull=True, email__iexact=email)
    if request.user.is_authenticated:
        return found.filter(user=request.user)
    return found.none()


def _refusal(request: HttpRequest, form: WatchForm) -> str:
    """Why a valid form still cannot make a watch (too many), or ""."""
    day_ago = timezone.now() - timedelta(days=1)
    if request.user.is_authenticated:
        owned = Watch.objects.filter(user=request.user)
    else:
        email = form.cleaned_data["email"]
        owned = Watch.objects.filter(user__isnull=True, email__iexact=email)
        waiting = owned.filter(confirmed_at__isnull=True, created_at__gte=day_ago)
        if waiting.count() >= settings.WATCH_CONFIRMATIONS_PER_DAY:
            return _(
                "This address has been sent %(n)s confirmation links today: confirm one of "
                "them, or try again tomorrow."
            ) % {"n": settings.WATCH_CONFIRMATIONS_PER_DAY}
    if owned.count() >= settings.WATCH_MAX_PER_OWNER:
        return _("You have %(n)s watches, the most one may keep: remove one first.") % {
            "n": settings.WATCH_MAX_PER_OWNER
        }
    return ""


@require_http_methods(["GET", "POST"])
def new(request: HttpRequest) -> HttpResponse:
    params = request.POST if request.method == "POST" else request.GET
    kind, scenario, offering = _subject(params)
    form = WatchForm(
        request.POST if request.method == "POST" else None, kind=kind, user=request.user
    )
    refusal = ""
    if request.method == "POST" and form.is_valid():
        refusal = _refusal(request, form)
        if not refusal:
            return _create(request, form, kind, scenario, offering)
    context = {
        "form": form,
        "kind": kind,
        "scenario": scenario,
        "offering": offering,
        "refusal": refusal,
    }
    return render(request, "watches/new.html", context, status=400 if refusal else 200)


def _create(
    request: HttpRequest,
    form: WatchForm,
    kind: str,
    scenario: SavedScenario | None,
    offering: Offering | None,
) -> HttpResponse:
    data = form.cleaned_data
    user = request.user if request.user.is_authenticated else None
    watch = Watch(
        kind=kind,
        scenario=scenario,
        offering=offering,
        user=user,
        email=data.get("email", ""),
        send_email=data["send_email"],
        webhook_url=data.get("webhook_url", ""),
        threshold_pct=data.get("threshold_pct"),
        language=translation.get_language() or settings.LANGUAGE_CODE,
        confirmed_at=timezone.now() if user is not None else None,
    )
    # What the watcher sees now is what a change is measured from.
    watch.baseline = checks.state_of(watch) or {}
    watch.save()
    if user is not None:
        flash.success(request, _("You are watching it now."))
        return redirect("watches:index")
    link = reverse("watches:confirm", args=[tokens.confirm_token(watch.pk)])
    notify.send_confirmation(watch, request.build_absolute_uri(link))
    return render(request, "watches/sent.html", {"watch": watch})


def index(request: HttpRequest) -> HttpResponse:
    """A signed-in user's watches; a visitor is told where the link to theirs is."""
    return render(
        request,
        "watches/list.html",
        {"watches": _owned(request), "token": "", "signed_in": request.user.is_authenticated},
    )


def by_email(request: HttpRequest, token: str) -> HttpResponse:
    email = tokens.list_email(token)
    if email is None:
        raise Http404
    return render(
        request,
        "watches/list.html",
        {"watches": _owned(request, email), "token": token, "email": email, "signed_in": True},
    )


@require_POST
def remove(request: HttpRequest, pk: int) -> HttpResponse:
    token = request.POST.get("token", "")
    email = tokens.list_email(token) if token else None
    if token and email is None:
        return HttpResponseBadRequest()
    watch = get_object_or_404(_owned(request, email or ""), pk=pk)
    watch.delete()
    flash.success(request, _("The watch is removed."))
    if email:
        return redirect("watches:by_email", token=token)
    return redirect("watches:index")


@require_http_methods(["GET", "POST"])
def confirm(request: HttpRequest, token: str) -> HttpResponse:
    """GET asks (a mail scanner that opens links confirms nothing); POST confirms."""
    pk = tokens.confirm_id(token)
    watch = Watch.objects.filter(pk=pk).first() if pk is not None else None
    if watch is None:
        return render(request, "watches/gone.html", {"confirming": True}, status=404)
    if request.method == "POST":
        if watch.confirmed_at is None:
            Watch.objects.filter(pk=watch.pk).update(confirmed_at=timezone.now())
        flash.success(request, _("Your watch is confirmed."))
        return redirect("watches:by_email", token=tokens.list_token(watch.email))
    return render(request, "watches/confirm.html", {"watch": watch})


@csrf_exempt
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """GET asks; POST (the page's button, or a mail client's one-click) removes the watch."""
    pk = tokens.unsubscribe_id(token)
    watch = Watch.objects.filter(pk=pk).first() if pk is not None else None
    if watch is None:
        return render(request, "watches/gone.html", {}, status=404 if pk is None else 200)
    if request.method == "POST":
        watch.delete()
        return render(request, "watches/gone.html", {"unsubscribed": True})
    return render(request, "watches/unsubscribe.html", {"watch": watch})
