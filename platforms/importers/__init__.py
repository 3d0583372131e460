"""Price ingestion: catalog files (SkyPilot, gpuhunt, native CSV) into offerings and price history.

`offers_import` is the one write path, used by `manage.py import_offers` and the admin's
"Import offers" page; `currency.convert` converts prices at a stated date.
"""

from .base import FORMAT_LABELS, ImportReport, observed_at_value, offers_import

__all__ = ["FORMAT_LABELS", "ImportReport", "observed_at_value", "offers_import"]
