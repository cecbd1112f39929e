"""The shape of the tree ("One way down"): imports flow one way, and no hard dependency hides.

Layers, lowest first; a module may import its own layer and the ones below, never one above:

    errors, validate, cache, lazy, registry  <  privacy  <  vocabulary, setting, theorem (+ the ``theorems``
    registry)  <  instances
    <  simulate  <  check (+ verify/testing.py)  <  report, account  <  commands (+ cli, the package root)

Every import counts, also one inside a function: a lazy import still makes the lower layer depend on
the upper one.  The graph is read with ``ast`` (nothing is imported), so the test runs on a tree that
does not import at all.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("verify", "theorems")

#: module prefix -> layer; the longest matching prefix wins
LAYERS: dict[str, int] = {
    "verify.errors": 0, "verify.validate": 0, "verify.cache": 0, "verify.lazy": 0, "verify.logspace": 0,
    "verify.registry": 0,
    "verify.privacy": 1,
    "verify.vocabulary": 2, "verify.setting": 2, "verify.theorem": 2, "verify.proof": 2, "theorems": 2,
    "verify.instances": 3,
    "verify.simulate": 4,
    "verify.check": 5, "verify.testing": 5,
    "verify.report": 6, "verify.account": 6,
    "verify.commands": 7, "verify.__main__": 7, "verify": 7,
}
LAYER_NAMES = ("errors/validate/logspace", "privacy", "vocabulary/setting/theorem/theorems", "instances", "simulate",
               "check", "report/account", "commands")

#: third-party packages that are optional (GPU array backends, Opacus for comparisons): a module may
#: guard their import; every other dependency is imported plainly and fails loudly when missing
OPTIONAL = frozenset({"torch", "cupy", "opacus", "resource"})  # resource: POSIX only (a platform's, not a package's)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_files() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def layer(module: str) -> int | None:
    """The layer of a project module (None for third-party modules)."""
    parts = module.split(".")
    for k in range(len(parts), 0, -1):
        prefix = ".".join(parts[:k])
        if prefix in LAYERS:
            return LAYERS[prefix]
    return None


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, module) for every import of the file, wherever it sits; relative imports resolved, and
    ``from package import name`` read as the submodule ``package.name`` when that is a module."""
    tree = ast.parse(path.read_text(), str(path))
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.append((node.lineno, sub if _is_module(sub) else target))
        elif isinstance(node, ast.Call) and _dynamic_import(node):
            found.append((node.lineno, _dynamic_import(node)))
    return found


def _dynamic_import(call: ast.Call) -> str | None:
    """The module an ``importlib.import_module(...)`` or ``__import__(...)`` call names, when its text
    says it (a constant, or an f-string's constant package prefix such as ``f"theorems.{name}"``)."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if name not in ("import_module", "__import__") or not call.args:
        return None
    arg = call.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
        return str(arg.values[0].value).rpartition(".")[0] or None
    return None


def _is_module(name: str) -> bool:
    base = ROOT.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def upward_imports() -> list[str]:
    edges = []
    for path in source_files():
        source = module_name(path)
        own = layer(source)
        for line, target in imported_modules(path):
            if target == "verify":
                continue  # the package root itself: importing it loads nothing else
            theirs = layer(target)
            if own is not None and theirs is not None and theirs > own:
                edges.append(f"{path.relative_to(ROOT)}:{line}: {source} ({LAYER_NAMES[own]}) imports "
                             f"{target} ({LAYER_NAMES[theirs]})")
    return edges


def test_every_project_module_has_a_layer():
    unassigned = [module_name(p) for p in source_files() if layer(module_name(p)) is None]
    assert not unassigned, "modules with no layer (add them to LAYERS): " + ", ".join(unassigned)


def test_no_upward_import():
    edges = upward_imports()
    print("\n".join(edges))
    assert not edges, f"{len(edges)} upward import(s):\n" + "\n".join(edges)


def guarded_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of each import inside a ``try`` whose handlers catch ImportError."""
    tree = ast.parse(path.read_text(), str(path))
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try):
            continue
        caught = set()
        for handler in node.handlers:
            types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
            caught |= {t.id for t in types if isinstance(t, ast.Name)}
        if not caught & {"ImportError", "ModuleNotFoundError"}:
            continue
        for stmt in node.body:
            for inner in ast.walk(stmt):
                if isinstance(inner, ast.Import):
                    out += [(inner.lineno, alias.name) for alias in inner.names]
                elif isinstance(inner, ast.ImportFrom) and not inner.level:
                    out.append((inner.lineno, inner.module or ""))
                elif isinstance(inner, ast.ImportFrom):
                    out.append((inner.lineno, "." * inner.level + (inner.module or "")))
    return out


def test_no_hard_dependency_is_guarded():
    hidden = [f"{path.relative_to(ROOT)}:{line}: {module}" for path in sorted((ROOT / "verify").rglob("*.py"))
              for line, module in guarded_imports(path) if module.split(".")[0] not in OPTIONAL]
    print("\n".join(hidden))
    assert not hidden, ("an `except ImportError` switches off a hard dependency (import it plainly; only "
                        f"{', '.join(sorted(OPTIONAL))} are optional):\n" + "\n".join(hidden))


# --- the test's own reading of imports ------------------------------------------------------------


@pytest.mark.parametrize("module, expected", [
    ("verify.errors", 0), ("verify.privacy.gaussian", 1), ("theorems.bok2024", 2), ("verify.theorem", 2),
    ("verify.check.engine", 5), ("verify.testing", 5), ("verify.account.run", 6), ("verify.commands", 7),
    ("numpy", None), ("verifyx", None),
])
def test_layer_of_a_module(module, expected):
    assert layer(module) == expected


def test_imports_inside_functions_and_relative_imports_are_read(tmp_path, monkeypatch):
    package = tmp_path / "verify" / "privacy"
    package.mkdir(parents=True)
    (tmp_path / "verify" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "rdp.py").write_text("")
    (tmp_path / "verify" / "check").mkdir()
    (tmp_path / "verify" / "check" / "__init__.py").write_text("")
    (package / "bad.py").write_text(
        "from . import rdp\n"
        "def f():\n"
        "    from verify.check import engine\n"
        "    import verify.report.build\n"
        "    return importlib.import_module('verify.simulate.api'), __import__(f'verify.account.{x}')\n"
        "try:\n"
        "    import scipy\n"
        "except ImportError:\n"
        "    pass\n"
        "try:\n"
        "    import torch\n"
        "except ImportError:\n"
        "    pass\n")
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    assert sorted(imported_modules(package / "bad.py")) == [
        (1, "verify.privacy.rdp"), (3, "verify.check"), (4, "verify.report.build"), (5, "verify.account"),
        (5, "verify.simulate.api"), (7, "scipy"), (11, "torch")]
    edges = upward_imports()
    assert len(edges) == 4 and all("verify.privacy.bad (privacy)" in e for e in edges)
    assert [m for _, m in guarded_imports(package / "bad.py")] == ["scipy", "torch"]
