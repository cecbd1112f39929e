"""Start-up (issue 12): ``verify --help`` imports no subcommand, ``verify list`` not the check engine.

Times are measured in benchmarks/bench_theorem.py; here, what is imported, which decides them.
"""

import subprocess
import sys


def _modules_after(argv: list[str], names: tuple[str, ...]) -> list[str]:
    code = (f"import contextlib, io, sys\nfrom verify.commands import main\n"
            f"with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()): main({argv!r})\n"
            f"print(sorted(m for m in {names!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return eval(out.strip().splitlines()[-1])  # a list of module names printed by the child


HEAVY = ("sympy", "scipy.stats", "dp_accounting", "theorems", "verify.check.engine", "verify.commands.registry",
         "verify.commands.verification", "verify.commands.account", "verify.commands.audit", "verify.commands.report")


def test_help_imports_no_subcommand_and_no_sympy():
    assert _modules_after(["--help"], HEAVY) == []


def test_list_imports_the_registry_only():
    assert _modules_after(["list"], HEAVY) == ["sympy", "theorems", "verify.commands.registry"]
