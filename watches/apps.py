from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WatchesConfig(AppConfig):
    name = "watches"
    verbose_name = _("Watches")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import signals

        signals.connect()
