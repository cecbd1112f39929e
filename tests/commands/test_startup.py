"""Start-up: ``verify --help`` imports no subcommand, ``verify list`` not the check engine.

Times are measured in benchmarks/bench_theorem.py; here, what is imported, which decides them.
"""

import functools
import json
import subprocess
import sys


def _modules_after(argv: list[str], names: tuple[str, ...]) -> list[str]:
    """Which of ``names`` a fresh ``verify ARGV`` imported (one child process per command line, shared by the
    tests that ask about it)."""
    return sorted(m for m in names if m in _loaded_after(tuple(argv)))


#: every module a test below asks about
WATCHED = ("sympy", "scipy.stats", "scipy.special", "numpy", "dp_accounting", "theorems", "verify.check.engine",
           "verify.commands.registry", "verify.commands.verification", "verify.commands.account",
           "verify.commands.audit", "verify.commands.report")


@functools.cache
def _loaded_after(argv: tuple[str, ...]) -> frozenset[str]:
    return frozenset(_child_modules(list(argv)))


def _child_modules(argv: list[str]) -> list[str]:
    code = (f"import contextlib, io, sys\nfrom verify.commands import main\n"
            f"with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()): main({argv!r})\n"
            f"print(sorted(m for m in {WATCHED!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return eval(out.strip().splitlines()[-1])  # a list of module names printed by the child


HEAVY = ("sympy", "scipy.stats", "dp_accounting", "theorems", "verify.check.engine", "verify.commands.registry",
         "verify.commands.verification", "verify.commands.account", "verify.commands.audit", "verify.commands.report")


def test_help_imports_no_subcommand_and_no_sympy():
    assert _modules_after(["--help"], HEAVY) == []


def test_list_builds_the_registry_only_when_its_index_is_missing():
    """A cold ``verify list`` builds the registry (and writes the index); a warm one reads the index only:
    no sympy, no record (run twice: the first call makes the index current)."""
    _child_modules(["list"])
    assert _modules_after(["list"], HEAVY) == ["verify.commands.registry"]
    assert _modules_after(["list", "--json"], HEAVY) == ["verify.commands.registry"]


def test_help_imports_no_numpy():
    """Option parsing (verify.validate) loads numpy at its first array only."""
    assert _modules_after(["--help"], ("numpy",)) == []


def _lambdified_after(*commands: list[str]) -> list[tuple[int, list[str]]]:
    """How many times sympy's lambdify ran during each ``verify ARGV`` of ``commands`` (run one after the other
    in one fresh process; counts since the start), and which records hold a compiled bound after it."""
    code = ("import contextlib, io, sys, sympy\n"
            "lam = sys.modules['sympy.utilities.lambdify']\n"
            "calls = []\n"
            "original = lam.lambdify\n"
            "def counting(*a, **k):\n"
            "    calls.append(1)\n"
            "    return original(*a, **k)\n"
            "lam.lambdify = sympy.lambdify = counting\n"
            "from verify.commands import main\n"
            "after = []\n"
            f"for argv in {list(commands)!r}:\n"
            "    with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
            "        main(argv)\n"
            "    import theorems\n"
            "    after.append((len(calls), sorted(t.id for t in theorems.all() if '_compiled' in vars(t))))\n"
            "print(repr(after))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return eval(out.strip().splitlines()[-1])  # a list of tuples printed by the child


def test_list_and_show_compile_no_bound():
    """the registry is data until a bound is evaluated; list and show never lambdify (one process runs the
    three: nothing is compiled after any of them)."""
    assert _lambdified_after(["list"], ["list", "--json"], ["show", "altschuler2022/b.2/both-directions"]) == \
        [(0, [])] * 3


def test_eval_compiles_the_bound_it_evaluates():
    """The counter above does see a compilation (else the test before would pass vacuously)."""
    [(calls, compiled)] = _lambdified_after(["eval", "bok2024/thm4.1", "Delta=1", "n=10", "sigma=1", "T=5"])
    assert calls >= 1 and compiled == ["bok2024/thm4.1"]


def test_list_imports_no_scipy_stats():
    assert _modules_after(["list", "--json"], ("scipy.stats",)) == []


def test_list_and_show_import_no_scipy_special():
    """scipy.special (a quarter of the registry's start-up) is imported at the first computation only."""
    for argv in (["list", "--json"], ["show", "bok2024/thm4.2"]):
        assert _modules_after(argv, ("scipy.special",)) == [], argv


def test_show_and_eval_import_the_registry_only():
    """``show`` and ``eval`` (without --family) need the record, never the check engine, the PLD library
    or scipy.stats (what a user waits for before the first line)."""
    assert _modules_after(["show", "bok2024/thm4.2"], HEAVY) == ["sympy", "theorems", "verify.commands.registry"]
    assert _modules_after(["eval", "bok2024/thm4.1", "Delta=1", "n=10", "sigma=1", "T=5"], HEAVY) == \
        ["sympy", "theorems", "verify.commands.registry"]


def test_index_gives_what_the_registry_gives(tmp_path):
    """The summaries read from the index are those the registry gives, in the same order; a stale index
    (another key) is never read, and is removed when the current one is written."""
    import theorems
    from verify.commands import registry

    built = [registry.summary(t) for t in theorems.all()]
    stale = tmp_path / ("0" * 64 + ".json")
    stale.write_text("[]")
    assert registry.summaries(tmp_path) == built  # cold: from the registry
    assert not stale.exists()
    [index] = tmp_path.glob("*.json")
    assert index.name == registry.index_key() + ".json"
    assert registry.summaries(tmp_path) == built  # warm: from the index
    from verify.cache import ResultCache

    ResultCache(tmp_path).put(registry.index_key(), built[:1])  # what is read is the index (else vacuous)
    assert registry.summaries(tmp_path) == built[:1]
    index.write_text(json.dumps(built[:1]))  # an entry written by hand does not verify itself: rebuilt
    assert registry.summaries(tmp_path) == built


def test_index_key_follows_every_source(tmp_path):
    """Any edit, addition or removal of a source file gives another key."""
    from verify.commands.registry import index_key

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("x = 1\n")
    keys = [index_key((tmp_path / "pkg",))]
    (tmp_path / "pkg" / "a.py").write_text("x = 2\n")
    keys.append(index_key((tmp_path / "pkg",)))
    (tmp_path / "pkg" / "b.py").write_text("")
    keys.append(index_key((tmp_path / "pkg",)))
    (tmp_path / "pkg" / "a.py").unlink()
    keys.append(index_key((tmp_path / "pkg",)))
    assert len(set(keys)) == 4
