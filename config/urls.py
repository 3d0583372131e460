"""URL configuration: pages, admin, language switching."""

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path


def favicon(request: HttpRequest) -> HttpResponse:
    """/favicon.ico, which browsers ask for on pages that name no icon (the admin, say)."""
    return redirect(static("favicon.svg"), permanent=True)


urlpatterns = [
    path("favicon.ico", favicon),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/", include("api.urls")),
    path("advisor/", include("advisor.urls")),
    path("s/", include("advisor.scenario_urls")),
    path("watches/", include("watches.urls")),
    path("", include("platforms.urls")),
]

# A database that is down is a 503 (page or API shape), anything else the 500 page; both name the
# request id. /healthz and /readyz are answered by ops.health.HealthMiddleware.
handler500 = "ops.views.server_error"
# Under /api/ the API's JSON error shape, elsewhere Django's pages.
handler400 = "api.handlers.bad_request"
handler403 = "api.handlers.permission_denied"
handler404 = "api.handlers.page_not_found"
