"""The advisor's form is posted, so a scenario of any size the form allows gets its answer.

A URL holds a scenario (bookmarked, shared) only while it is short: gunicorn refuses a request line
over 4,094 bytes with a 414 (`limit_request_line`,
https://docs.gunicorn.org/en/stable/settings.html#limit-request-line), and 14 task rows already
take 7 KB of query string, while the form takes 100. So the form posts: a scenario short enough
for a URL is redirected to it (303, the page as before, its URL the scenario), a longer one is
answered at once, the same page as if it had come in the URL. The form's add- and remove-task
buttons (no JavaScript) are applied here too, so a long scenario is never redirected to a URL
the server would refuse.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict

from . import forms

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
        edited = forms.edited_query(data)
        if edited is not None:
            data = edited
        url = f"{request.path}?{data.urlencode()}"
        if len(url.encode()) <= MAX_URL_BYTES:
            return HttpResponseRedirect(url, status=303)
        # Answered as if it had come in the URL: the page reads the scenario from request.GET
        # (immutable, as Django's own).
        request.GET = QueryDict(data.urlencode())
        return view(request)

    return page
