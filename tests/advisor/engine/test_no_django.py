"""The engine is pure Python (the CLI's estimate needs no database); fail if anything under
advisor/engine imports django."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[3] / "advisor" / "engine"


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_the_engine_directory_is_where_this_test_looks() -> None:
    assert (ENGINE / "types.py").is_file()


def test_no_module_under_advisor_engine_imports_django() -> None:
    offenders = {
        str(path.relative_to(ENGINE)): sorted(
            name for name in imported_modules(path) if name.split(".")[0] == "django"
        )
        for path in sorted(ENGINE.rglob("*.py"))
    }
    assert {path: names for path, names in offenders.items() if names} == {}


def test_the_import_walker_sees_a_django_import(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    from django.db import models\n", encoding="utf-8")
    assert "django.db" in imported_modules(sample)
