"""The JSON API app: DRF views over the catalogue and the advisor, with an OpenAPI schema."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ApiConfig(AppConfig):
    name = "api"
    verbose_name = _("JSON API")
