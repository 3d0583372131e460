"""Scenarios people keep and share: short links (/s/<key>/), the API request behind a result, and
its JSON download.

`saved_scenario_get(*, scenario, preset, user)` stores a scenario once per content hash (the
SHA-256 of its canonical JSON): the same scenario always gets the same short link. What is
stored is the scenario as the advisor form produces it from the submitted one, so the page at
/s/<key>/ is the page that was shared, and two spellings of one scenario share a link.

Views: POST /s/ saves (the form's fields, or `scenario` as JSON) and answers 303 to the short
link; GET /s/<key>/ shows the advisor page for it, to anyone (advisor/saved_page.py); GET /s/
lists a logged-in user's saved scenarios. A 100-task scenario's query string is about 11 KB,
past what a production server accepts in a request line: its short link is a few dozen bytes.
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import TYPE_CHECKING, Any, cast

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.middleware.csrf import CsrfViewMiddleware
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from advisor import forms, presets
from advisor.engine.errors import AdvisorError
from advisor.engine.scenario import parse_scenario
from advisor.models import KEY_LENGTH, SavedScenario, ScenarioBookmark
from api.advice import advice_report_json
from wording import messages

if TYPE_CHECKING:
    from advisor.services import AdviceReport

# A 100-task scenario is about 40 KB of JSON; past this a body is refused, not stored.
MAX_SCENARIO_BYTES = 256 * 1024


def canonical_json(scenario: dict[str, Any], preset: str = "") -> str:
    """The text the content hash is taken of: keys sorted, no spaces, UTF-8 as is."""
    return json.dumps(
        {"preset": preset, "scenario": scenario},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )


def content_hash(scenario: dict[str, Any], preset: str = "") -> str:
    return hashlib.sha256(canonical_json(scenario, preset).encode()).hexdigest()


def short_key(digest: str, length: int = KEY_LENGTH) -> str:
    """The first `length` characters of the hash in lower-case base 32."""
    return base64.b32encode(bytes.fromhex(digest)).decode().rstrip("=").lower()[:length]


class ScenarioRefused(ValueError):
    """A scenario that cannot be saved, with a message for the person who sent it."""


def form_scenario(query: QueryDict) -> tuple[dict[str, Any], str]:
    """The scenario and preset the advisor form makes of `query`, or ScenarioRefused."""
    form = forms.ScenarioForm(query, platforms=forms.platform_choices())
    if not form.is_valid():
        errors = [str(e) for e in form.non_field_errors]
        for sub in (*form.tasks, form.constraints):
            for name, field_errors in sub.errors.items():
                label = sub.fields[name].label if name in sub.fields else name
                errors.extend(f"{label}: {e}" for e in field_errors)
        raise ScenarioRefused("; ".join(errors) or _("The scenario is not valid."))
    scenario = form.scenario()
    try:
        parse_scenario(scenario)
    except AdvisorError as error:
        raise ScenarioRefused(messages.render(error.detail)) from None
    return scenario, form.preset


def saved_scenario_get(
    *, scenario: dict[str, Any], preset: str = "", user: Any = None
) -> SavedScenario:
    """The saved scenario of this content, stored if new; in `user`'s list when one is given."""
    digest = content_hash(scenario, preset)
    saved = SavedScenario.objects.filter(digest=digest).first()
    if saved is None:
        taken = set(
            SavedScenario.objects.filter(key__startswith=short_key(digest)).values_list(
                "key", flat=True
            )
        )
        length = KEY_LENGTH
        while short_key(digest, length) in taken:
            length += 2  # another scenario's hash starts the same way: a longer key
        saved = SavedScenario(
            key=short_key(digest, length), digest=digest, scenario=scenario, preset=preset
        )
        saved.full_clean(validate_unique=False)
        try:
            with transaction.atomic():
                saved.save()
        except IntegrityError:
            # The same scenario saved at the same moment by another request: use that row.
            saved = SavedScenario.objects.get(digest=digest)
    if user is not None and user.is_authenticated:
        ScenarioBookmark.objects.get_or_create(user=user, scenario=saved)
    return saved


def _submitted(request: HttpRequest) -> tuple[dict[str, Any], str]:
    """The scenario a POST to /s/ carries: the advisor form's fields, or `scenario` as JSON."""
    if forms.is_submitted(request.POST):
        return form_scenario(request.POST)
    text = request.POST.get("scenario", "")
    if not text:
        raise ScenarioRefused(_("No scenario was sent."))
    if len(text.encode()) > MAX_SCENARIO_BYTES:
        raise ScenarioRefused(_("The scenario is too large to save."))
    try:
        scenario = json.loads(text)
    except json.JSONDecodeError:
        raise ScenarioRefused(_("The scenario is not valid JSON.")) from None
    if not isinstance(scenario, dict) or not isinstance(scenario.get("tasks"), list):
        raise ScenarioRefused(_("A scenario is an object with a list of tasks."))
    try:
        query = forms.scenario_query(scenario, preset=request.POST.get("preset", ""))
    except (KeyError, TypeError, AttributeError):
        raise ScenarioRefused(_("The scenario is not valid.")) from None
    return form_scenario(query)


def _csrf_ok(request: HttpRequest) -> bool:
    """Whether the POST carries this session's CSRF token: only then is it put in the user's
    list (anyone may save a scenario; no other site may add to someone's list)."""
    check = CsrfViewMiddleware(lambda r: HttpResponse())
    return check.process_view(request, lambda r: HttpResponse(), (), {}) is None


@csrf_exempt
@require_http_methods(["GET", "POST"])
def index(request: HttpRequest) -> HttpResponse:
    if request.method == "GET":
        return mine(request)
    try:
        scenario, preset = _submitted(request)
    except ScenarioRefused as refused:
        return render(request, "advisor/saved_refused.html", {"reason": str(refused)}, status=400)
    user = request.user if request.user.is_authenticated and _csrf_ok(request) else None
    saved = saved_scenario_get(scenario=scenario, preset=preset, user=user)
    # 303: the browser GETs the short link, and reloading it does not post again; at its
    # results, where the link to copy is (the page's script focuses their heading).
    response = redirect(f"{saved.get_absolute_url()}#results")
    response.status_code = 303
    return response


@login_required
def mine(request: HttpRequest) -> HttpResponse:
    user = cast(User, request.user)  # login_required: a user, not AnonymousUser
    bookmarks = (
        ScenarioBookmark.objects.filter(user=user).select_related("scenario").order_by("-saved_at")
    )
    return render(request, "advisor/saved_list.html", {"bookmarks": bookmarks})


# ---------------------------------------------------------------------------- on the page


def share_context(
    request: HttpRequest, form: forms.ScenarioForm, query: QueryDict | None = None
) -> dict[str, Any]:
    """What the results say about sharing: the short link of a saved scenario (or the JSON the
    Share button saves), the API request that gives the same answer, the downloads. `form` and
    `query` are the scenario of the results shown (the request's own query by default)."""
    saved: SavedScenario | None = getattr(request, "saved_scenario", None)
    scenario = form.scenario()
    api_scenario = dict(scenario)
    if form.preset in presets.PRESETS:  # the API checks the preset's claims as the page does
        api_scenario["preset"] = form.preset
    body = json.dumps(api_scenario, ensure_ascii=False, indent=2)
    api_url = request.build_absolute_uri(reverse("api:advise"))
    # A shell single-quoted string: each ' becomes '\'' (POSIX sh quoting).
    quoted = "'" + json.dumps(api_scenario, ensure_ascii=False).replace("'", "'\\''") + "'"
    curl = f"curl -X POST {api_url} \\\n  -H 'Content-Type: application/json' \\\n  -d {quoted}"
    downloads = (request.GET if query is None else query).copy()
    downloads.pop("format", None)
    here = saved.get_absolute_url() if saved else reverse("advisor:index")
    return {
        "saved": saved,
        "link": request.build_absolute_uri(saved.get_absolute_url()) if saved else "",
        "scenario_json": json.dumps(scenario, ensure_ascii=False, separators=(",", ":")),
        "preset": form.preset,
        "api_json": body,
        "api_curl": curl,
        "csv_url": _download_url(here, downloads, "csv", saved is not None),
        "json_url": _download_url(here, downloads, "json", saved is not None),
    }


def _download_url(path: str, query: QueryDict, kind: str, saved: bool) -> str:
    if saved:  # the short link's page: the scenario is the link's, not the query's
        return f"{path}?format={kind}"
    query = query.copy()
    query["format"] = kind
    return f"{path}?{query.urlencode()}"


def json_download(report: AdviceReport) -> HttpResponse:
    """The advice as the API gives it (POST /api/v1/advise/), as a file."""
    response = JsonResponse(
        advice_report_json(report),
        json_dumps_params={"ensure_ascii": False, "indent": 2},
    )
    response["Content-Disposition"] = 'attachment; filename="gpu-advisor-results.json"'
    return response
