"""Backups of the database as it is: a consistent copy of an SQLite file (SQLite's online backup
API) or a pg_dump archive of PostgreSQL (custom format, restored with pg_restore), and their
restore. `manage.py db_backup`, `manage.py db_restore`; `make backup`, `make restore FILE=...`.

A `dumpdata` JSON export is not a backup: it holds the models' rows but not the database's
sequences, constraints' history or anything outside the models; it is for moving data between
databases (ops/serializers keeps its timestamps whole).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from django.db import connections


class BackupError(Exception):
    pass


def _settings(alias: str) -> dict[str, Any]:
    return dict(connections[alias].settings_dict)


def vendor(alias: str = "default") -> str:
    return str(connections[alias].vendor)


def default_name(alias: str = "default") -> str:
    return "sqlite3" if vendor(alias) == "sqlite" else "dump"


def backup(path: Path, alias: str = "default") -> Path:
    """Write a backup of database `alias` to `path`, readable by its owner alone (it holds every
    user's password hash and the API tokens' digests); returns the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # Created empty and owner-only before anything is written into it (pg_dump and SQLite
    # keep an existing file's mode).
    path.touch(mode=0o600, exist_ok=True)
    path.chmod(0o600)
    config = _settings(alias)
    if vendor(alias) == "sqlite":
        source = sqlite3.connect(str(config["NAME"]))
        target = sqlite3.connect(str(path))
        try:
            with target:
                source.backup(target)
        finally:
            target.close()
            source.close()
        return path
    if vendor(alias) == "postgresql":
        _run(
            ["pg_dump", "--format=custom", "--no-owner", f"--file={path}", *_pg_args(config)],
            config,
        )
        return path
    raise BackupError(f"no backup for the {vendor(alias)} backend")


def restore(path: Path, alias: str = "default") -> None:
    """Replace database `alias`'s contents by the backup at `path`."""
    if not path.is_file():
        raise BackupError(f"{path}: no such file")
    config = _settings(alias)
    connections[alias].close()
    if vendor(alias) == "sqlite":
        source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        target = sqlite3.connect(str(config["NAME"]))
        try:
            with target:
                source.backup(target)
        finally:
            target.close()
            source.close()
        return
    if vendor(alias) == "postgresql":
        _run(
            [
                "pg_restore",
                "--clean",
                "--if-exists",
                "--no-owner",
                "--single-transaction",
                "--exit-on-error",
                *_pg_args(config, dbname_flag=True),
                str(path),
            ],
            config,
        )
        return
    raise BackupError(f"no restore for the {vendor(alias)} backend")


def _pg_args(config: dict[str, Any], *, dbname_flag: bool = False) -> list[str]:
    args = []
    if config.get("HOST"):
        args.append(f"--host={config['HOST']}")
    if config.get("PORT"):
        args.append(f"--port={config['PORT']}")
    if config.get("USER"):
        args.append(f"--username={config['USER']}")
    args.append(f"--dbname={config['NAME']}" if dbname_flag else str(config["NAME"]))
    return args


def _run(command: list[str], config: dict[str, Any]) -> None:
    if shutil.which(command[0]) is None:
        raise BackupError(
            f"{command[0]} is not installed (Debian: apt-get install postgresql-client)"
        )
    env = {**os.environ}
    if config.get("PASSWORD"):
        env["PGPASSWORD"] = str(config["PASSWORD"])
    result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise BackupError(f"{command[0]} failed: {result.stderr.strip()}")
