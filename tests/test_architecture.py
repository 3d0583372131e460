"""The project's layers hold: no import cycle among the project's own modules, and no import
from one layer to another that docs/architecture.md does not allow.

Imports are counted wherever they are written (at the top, inside a function, under
TYPE_CHECKING), as the engine's own test counts them (tests/advisor/engine/test_structure.py,
whose cycle search this reuses): an import put inside a function to dodge a cycle is still the
cycle. Migrations are left out (Django writes them; they import no layer above their app)."""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from pathlib import Path

from tests.advisor.engine.test_structure import cycles

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("advisor", "api", "config", "feeds", "ops", "platforms", "watches", "wording")
DOC = ROOT / "docs" / "architecture.md"


def project_modules(root: Path = ROOT) -> dict[str, Path]:
    """Each module of the project's packages by its dotted name (a package by its own)."""
    out = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _owner(dotted: str, modules: Mapping[str, object]) -> str | None:
    """The project module `dotted` is, or is inside (a name imported from it), else None."""
    while dotted:
        if dotted in modules:
            return dotted
        dotted = dotted.rpartition(".")[0]
    return None


def imports_of(module: str, source: str, modules: Mapping[str, object], package: bool) -> set[str]:
    """The project modules `module` imports (`package`: it is a package's __init__)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = _owner(alias.name, modules)
                if target is not None:
                    found.add(target)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if package else 0)]
                origin = ".".join([*base, node.module] if node.module else base)
            else:
                origin = node.module or ""
            for alias in node.names:
                name = f"{origin}.{alias.name}"
                target = name if name in modules else _owner(origin, modules)
                if target is not None:
                    found.add(target)
    found.discard(module)
    return found


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    modules = project_modules(root)
    return {
        name: imports_of(name, path.read_text(encoding="utf-8"), modules, path.stem == "__init__")
        for name, path in modules.items()
    }


def layers_of(doc: str) -> tuple[dict[str, str], dict[str, set[str]]]:
    """From the doc's table of layers: ({module prefix: layer}, {layer: the layers it may
    import}). A row is `| layer | modules | may import |`, names in backquotes."""
    prefixes: dict[str, str] = {}
    allowed: dict[str, set[str]] = {}
    table = doc.split("<!-- layers -->")[1]
    for line in table.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        layer = cells[0].strip("`")
        for prefix in re.findall(r"`([\w.]+)`", cells[1]):
            prefixes[prefix] = layer
        allowed[layer] = set(re.findall(r"`([\w.]+)`", cells[2]))
    return prefixes, allowed


def layer(module: str, prefixes: Mapping[str, str]) -> str | None:
    """The layer of `module`: that of the longest prefix naming it or a package above it."""
    owner = _owner(module, prefixes)
    return None if owner is None else prefixes[owner]


def arrows_not_allowed(
    graph: Mapping[str, set[str]], prefixes: Mapping[str, str], allowed: Mapping[str, set[str]]
) -> list[str]:
    out = []
    for module, targets in sorted(graph.items()):
        here = layer(module, prefixes)
        for target in sorted(targets):
            there = layer(target, prefixes)
            if here != there and there not in allowed.get(here or "", set()):
                out.append(f"{module} ({here}) -> {target} ({there})")
    return out


def test_every_module_of_the_project_is_in_a_layer() -> None:
    prefixes, _allowed = layers_of(DOC.read_text(encoding="utf-8"))
    graph = import_graph()
    assert {"advisor.engine.ranking", "wording.messages", "platforms.models"} <= set(graph)
    assert [m for m in graph if layer(m, prefixes) is None] == []


def test_no_module_of_the_project_imports_another_that_imports_it_back() -> None:
    found = cycles(import_graph())
    assert found == [], "import cycles: " + "; ".join(" -> ".join(c) for c in found)


def test_every_import_across_layers_is_an_arrow_the_architecture_allows() -> None:
    prefixes, allowed = layers_of(DOC.read_text(encoding="utf-8"))
    found = arrows_not_allowed(import_graph(), prefixes, allowed)
    assert found == [], "arrows docs/architecture.md does not allow:\n" + "\n".join(found)


def test_the_allowed_arrows_go_one_way() -> None:
    """The layers themselves form no cycle: each may import only layers below it."""
    _prefixes, allowed = layers_of(DOC.read_text(encoding="utf-8"))
    assert cycles({name: set(targets) for name, targets in allowed.items()}) == []


def test_the_checks_see_a_cycle_and_an_arrow_not_allowed(tmp_path: Path) -> None:
    """A function-level import that closes a cycle, and an import up the layers."""
    files = {
        "platforms/__init__.py": "",
        "platforms/models.py": "def f():\n    from advisor.services import x\n",
        "advisor/__init__.py": "",
        "advisor/services.py": "from platforms import models\n",
        "advisor/engine/__init__.py": "",
        "advisor/engine/types.py": "from . import __name__ as n\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    graph = import_graph(tmp_path)
    assert graph["advisor.engine.types"] == {"advisor.engine"}
    assert cycles(graph) == [["advisor.services", "platforms.models", "advisor.services"]]
    prefixes = {"advisor": "advisor", "advisor.engine": "engine", "platforms": "catalogue"}
    allowed = {"advisor": {"catalogue", "engine"}, "catalogue": {"engine"}, "engine": set()}
    assert arrows_not_allowed(graph, prefixes, allowed) == [
        "platforms.models (catalogue) -> advisor.services (advisor)"
    ]
