"""The engine's modules form layers: no import cycle among them, and no module reads another's
private names (a leading underscore: that module's own business). Imports are counted wherever
they are written (at the top, inside a function, under TYPE_CHECKING): an import put inside a
function to dodge a cycle is still the cycle. And no module keeps state for the life of the
process (a cache, a registry, a lock): what the engine keeps between calls is the caller's
(placement.PlacementCache)."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[3] / "advisor" / "engine"
PACKAGE = "advisor.engine"


def engine_sources() -> dict[str, str]:
    """Each engine module's source by its name within the package ("ranking", "mig")."""
    return {
        ".".join(path.relative_to(ENGINE).with_suffix("").parts): path.read_text(encoding="utf-8")
        for path in sorted(ENGINE.rglob("*.py"))
        if path.name != "__init__.py"
    }


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _engine_module(dotted: str, modules: Mapping[str, str]) -> str | None:
    """The engine module `dotted` ("advisor.engine.ranking") names, else None."""
    if not dotted.startswith(PACKAGE + "."):
        return None
    name = dotted.removeprefix(PACKAGE + ".")
    return name if name in modules else None


def _absolute(node: ast.ImportFrom, module: str) -> str:
    """The module an ImportFrom reads from, relative imports resolved within the package."""
    if not node.level:
        return node.module or ""
    parts = [*PACKAGE.split("."), *module.split(".")][: -node.level]
    return ".".join([*parts, node.module] if node.module else parts)


def _dotted(node: ast.expr) -> str | None:
    """`a.b.c` of an attribute chain of names, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return None if head is None else f"{head}.{node.attr}"
    return None


def scan(module: str, source: str, modules: Mapping[str, str]) -> tuple[set[str], list[str]]:
    """(the engine modules `module` imports, its uses of their private names as
    "module: what it reads")."""
    tree = ast.parse(source, filename=f"{module}.py")
    imports: set[str] = set()
    private: list[str] = []
    # Local names bound to an engine module (`from advisor.engine import ranking`, `import
    # advisor.engine.ranking as r`), and dotted names that reach one (`advisor.engine.ranking`).
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = _engine_module(alias.name, modules)
                if target is not None:
                    imports.add(target)
                    bound[alias.asname or alias.name] = target
        elif isinstance(node, ast.ImportFrom):
            origin = _absolute(node, module)
            target = _engine_module(origin, modules)
            for alias in node.names:
                sub = _engine_module(f"{origin}.{alias.name}", modules)
                if sub is not None:  # a module of the package, imported by name
                    imports.add(sub)
                    bound[alias.asname or alias.name] = sub
                elif target is not None:
                    imports.add(target)
                    if _private(alias.name):
                        private.append(f"{module}: from {target} import {alias.name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            head = _dotted(node.value)
            target = None if head is None else bound.get(head) or _engine_module(head, modules)
            if target is not None and target != module:
                private.append(f"{module}: {target}.{node.attr}")
    imports.discard(module)
    return imports, sorted(set(private))


def import_graph(sources: Mapping[str, str]) -> dict[str, set[str]]:
    return {module: scan(module, source, sources)[0] for module, source in sources.items()}


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """Each import cycle once, as the modules along it back to the first (a depth-first search
    that reports a back edge's path)."""
    found: list[list[str]] = []
    seen: set[frozenset[str]] = set()
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for nxt in sorted(graph.get(module, ())):
            if state.get(nxt) == 1:
                cycle = [*path[path.index(nxt) :], nxt]
                if frozenset(cycle) not in seen:
                    seen.add(frozenset(cycle))
                    found.append(cycle)
            elif nxt not in state:
                visit(nxt)
        path.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)
    return found


def private_uses(sources: Mapping[str, str]) -> Iterator[str]:
    for module, source in sources.items():
        yield from scan(module, source, sources)[1]


def test_the_engine_directory_is_where_this_test_looks() -> None:
    sources = engine_sources()
    assert {"ranking", "prune", "placement", "types"} <= set(sources)


def test_no_engine_module_imports_another_that_imports_it_back() -> None:
    found = cycles(import_graph(engine_sources()))
    assert found == [], "import cycles: " + "; ".join(" -> ".join(c) for c in found)


def test_no_engine_module_reads_another_engine_modules_private_names() -> None:
    found = list(private_uses(engine_sources()))
    assert found == [], "private names read across modules:\n" + "\n".join(found)


def test_the_checks_see_a_cycle_through_an_import_inside_a_function() -> None:
    sources = {
        "a": "from advisor.engine import b\n",
        "b": "def f():\n    from advisor.engine.c import x\n",
        "c": "import advisor.engine.a\n",
        "d": "from advisor.engine import a\n",
    }
    assert cycles(import_graph(sources)) == [["a", "b", "c", "a"]]


def test_the_checks_see_every_way_of_reading_a_private_name() -> None:
    sources = {
        "lib": "_x = 1\n",
        "by_name": "from advisor.engine.lib import _x\n",
        "by_module": "from advisor.engine import lib\n\ndef f():\n    return lib._x\n",
        "by_alias": "import advisor.engine.lib as other\nother._x\n",
        "by_path": "import advisor.engine.lib\nadvisor.engine.lib._x\n",
        "relative": "from .lib import _x\n",
        "own": "_y = 1\n\ndef f():\n    return _y\n",
        "dunder": "from advisor.engine import lib\nlib.__name__\n",
    }
    assert sorted(private_uses(sources)) == [
        "by_alias: lib._x",
        "by_module: lib._x",
        "by_name: from lib import _x",
        "by_path: lib._x",
        "relative: from lib import _x",
    ]


# Methods that change a container in place.
_MUTATORS = frozenset(
    {"append", "extend", "insert", "add", "update", "setdefault", "pop", "popitem", "remove"}
    | {"clear", "discard", "move_to_end", "appendleft", "sort", "reverse"}
)
# Decorators and calls that keep state for the life of the process.
_PROCESS_STATE = frozenset({"lru_cache", "cache", "Lock", "RLock"})


def _bound_in(function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    """The names a function binds itself (its parameters and what it assigns)."""
    args = function.args
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    names |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def module_state(module: str, source: str) -> list[str]:
    """What `module` keeps for the life of the process: a module-level name changed inside a
    function (an item stored, a mutating method called, a `global` rebound), a functools cache,
    a lock made at module level. Constants (built once at import, never changed) are not state."""
    tree = ast.parse(source, filename=f"{module}.py")
    found: list[str] = []
    module_names: set[str] = set()
    for node in tree.body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            module_names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            for call in ast.walk(node.value):
                if (
                    isinstance(call, ast.Call)
                    and (_dotted(call.func) or "").split(".")[-1] in _PROCESS_STATE
                ):
                    found.append(f"{module}: {ast.unparse(node).splitlines()[0]}")
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for decorator in node.decorator_list:
                head = decorator.func if isinstance(decorator, ast.Call) else decorator
                if (_dotted(head) or "").split(".")[-1] in _PROCESS_STATE:
                    found.append(f"{module}: @{ast.unparse(decorator)} {node.name}")
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        local = _bound_in(node)
        for inner in ast.walk(node):
            if isinstance(inner, ast.Global):
                found += [
                    f"{module}: global {name} in {getattr(node, 'name', 'lambda')}"
                    for name in inner.names
                ]
            base: ast.expr | None = None
            if isinstance(inner, ast.Subscript) and isinstance(inner.ctx, ast.Store | ast.Del):
                base = inner.value
            elif (
                isinstance(inner, ast.Call)
                and isinstance(inner.func, ast.Attribute)
                and inner.func.attr in _MUTATORS
            ):
                base = inner.func.value
            if isinstance(base, ast.Name) and base.id in module_names and base.id not in local:
                found.append(f"{module}: {base.id} changed in {getattr(node, 'name', 'lambda')}")
    return sorted(set(found))


def test_no_engine_module_keeps_state_for_the_life_of_the_process() -> None:
    """Whatever the engine keeps between calls lives in the one object the caller owns
    (placement.PlacementCache); its modules keep nothing of their own."""
    found = [f for module, source in engine_sources().items() for f in module_state(module, source)]
    assert found == [], "module-level state:\n" + "\n".join(found)


def test_the_check_sees_every_kind_of_module_state() -> None:
    sources = {
        "stored": "_KEPT = {}\n\ndef f(k):\n    _KEPT[k] = 1\n",
        "appended": "SEEN = []\n\ndef f(x):\n    SEEN.append(x)\n",
        "rebound": "COUNT = 0\n\ndef f():\n    global COUNT\n    COUNT += 1\n",
        "cached": "import functools\n\n@functools.lru_cache(maxsize=8)\ndef f(x):\n    return x\n",
        "locked": "import threading\n\nLOCK = threading.Lock()\n",
        "shadowed": "ITEMS = {}\n\ndef f():\n    ITEMS = {}\n    ITEMS['a'] = 1\n",
        "constant": "TABLE = {'a': 1}\n\ndef f(k):\n    return TABLE[k]\n",
        "instance": (
            "import threading\n\nclass C:\n    def __init__(self):\n"
            "        self.lock = threading.Lock()\n"
        ),
    }
    found = [f for module, source in sources.items() for f in module_state(module, source)]
    assert [f.split(":")[0] for f in found] == ["stored", "appended", "rebound", "cached", "locked"]
