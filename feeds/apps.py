from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FeedsConfig(AppConfig):
    name = "feeds"
    verbose_name = _("Price feeds")

    def ready(self) -> None:
        from platforms.seed import seed_loaded

        from .seed import on_seed_loaded

        seed_loaded.connect(on_seed_loaded, dispatch_uid="feeds.seed.on_seed_loaded")
