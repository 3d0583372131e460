from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class OpsConfig(AppConfig):
    """Operations: logs with request ids, health endpoints, error pages, database timeouts,
    security headers, backups."""

    name = "ops"
    verbose_name = _("Operations")
