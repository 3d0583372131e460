"""Price ingestion: catalog files (SkyPilot, gpuhunt, native CSV) into offerings and price history.

`offers_import` is the one import path, used by `manage.py import_offers` and the admin's "Import
offers" page. One module per job, each importing only the ones listed before it: `interconnect`
(instance family -> NVLink or PCIe, from a sourced table), `rows` (the row model and CSV readers),
the formats (`skypilot`, `gpuhunt`, `native`), `registry` (format name -> label and parser),
`accelerators` (catalog GPU names -> Accelerator), `report`, `plan` (checks everything, writes
nothing), `apply` (writes through platforms.services) and `service` (`offers_import`).
"""

from .registry import FORMAT_LABELS
from .report import ImportReport
from .rows import observed_at_value
from .service import offers_import

__all__ = ["FORMAT_LABELS", "ImportReport", "observed_at_value", "offers_import"]
