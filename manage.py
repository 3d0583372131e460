#!/usr/bin/env python
"""Django's command-line utility for administrative tasks.

Development settings by default; DJANGO_SETTINGS_MODULE=config.settings.prod on a production host.
Settings that refuse to load (production without SECRET_KEY, say) print one line and exit 2.
"""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        settings.INSTALLED_APPS  # noqa: B018 (loads the settings module)
    except ImproperlyConfigured as exc:
        sys.stderr.write(f"error: {exc}\n")
        sys.exit(2)
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
