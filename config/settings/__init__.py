"""Settings package: base.py holds everything; dev, test and prod adjust it.

A `.env` file beside manage.py (copied from .env.example) is read first, before any settings
module reads the environment: it fills in what the environment does not set.
"""

from pathlib import Path

from .env import load_env_file

load_env_file(Path(__file__).resolve().parent.parent.parent / ".env")
