"""The advisor's form is posted, so a scenario of any size the form allows gets its answer.

A URL holds a scenario (bookmarked, shared) only while it is short: gunicorn refuses a request line
over 4,094 bytes with a 414 (`limit_request_line`,
https://docs.gunicorn.org/en/stable/settings.html#limit-request-line), and 14 task rows already
take 7 KB of query string, while the form takes 100. So the form posts: a scenario short enough
for a URL is redirected to it (303, the page as before, its URL the scenario), a longer one is
answered at once, the same page as if it had come in the URL. The form's add- and remove-task
buttons (no JavaScript) are applied here too, so a long scenario is never redirected to a URL
the server would refuse.

The form also carries `previous`, the query of the results it was sent from. It never goes into
a URL: a scenario the form or the engine refuses is answered at once, its errors summarised with
those earlier results kept beside them; a valid one is redirected to its URL at `#results`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict

from . import forms, sharing

# The request line is "GET <url> HTTP/1.1": the URL may take what the method, two spaces and the
# protocol leave of 4,094 bytes, with room to spare.
MAX_URL_BYTES = 4000

View = Callable[[HttpRequest], HttpResponse]


def scenario_by_post(view: View) -> View:
    """Wrap the advisor's page so that its form may post (see the module's docstring)."""

    @wraps(view)
    def page(request: HttpRequest) -> HttpResponse:
        if request.method != "POST":
            return view(request)
        data = request.POST.copy()
        data.pop("csrfmiddlewaretoken", None)
        previous = data.pop("previous", [""])[-1]
        edited = forms.edited_query(data)
        if edited is not None:
            data = edited
        url = f"{request.path}?{data.urlencode()}"
        if len(url.encode()) <= MAX_URL_BYTES:
            if edited is not None:  # a row added or removed: back to the form, not the results
                return HttpResponseRedirect(url, status=303)
            if _valid(data):
                return HttpResponseRedirect(f"{url}#results", status=303)
        request.previous_query = QueryDict(previous)  # type: ignore[attr-defined]
        # Answered as if it had come in the URL: the page reads the scenario from request.GET
        # (immutable, as Django's own).
        request.GET = QueryDict(data.urlencode())
        return view(request)

    return page


def _valid(data: QueryDict) -> bool:
    """Whether the form and the engine's scenario rules accept `data` (sharing.form_scenario)."""
    try:
        sharing.form_scenario(data)
    except sharing.ScenarioRefused:
        return False
    return True
