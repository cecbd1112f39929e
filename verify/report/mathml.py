"""Formulas as MathML for the self-contained HTML page (rendered by the browser: no script, no network).

Browsers render MathML Core natively (no script, no font download, no external URL), at the text's own size,
and the page stays searchable.  Two sources:

* the canonical bound, a sympy expression: sympy's presentation-MathML printer, with the engine's numeric
  operators (``SwitchAt``, ``SampledGaussianRDPMax``, ...) printed as upright names: the stock printer
  lower-cases unknown function names ("switchat") and the LaTeX printer reads a trailing ``hat`` as an
  accent ("Swit^c");
* the paper's own form, LaTeX as the paper prints it: ``latex2mathml``, after splitting commands glued to a
  letter (``\\otimesG`` is ``\\otimes G``), which it would otherwise leave as raw LaTeX.

A conversion that still leaves a backslash (raw LaTeX) is refused (None): the caller shows the plain-text
form instead, never LaTeX source.
"""

from __future__ import annotations

import functools
import re

import sympy as sp
from sympy.printing.latex import LatexPrinter
from sympy.printing.mathml import MathMLPresentationPrinter

from verify.privacy.operators import NumericOperator

_COMMAND = re.compile(r"\\([A-Za-z]+)")


def _is_operator(expr) -> bool:
    return isinstance(expr, NumericOperator) or isinstance(expr.func, sp.core.function.UndefinedFunction)


class _PresentationPrinter(MathMLPresentationPrinter):
    """sympy's presentation printer, with numeric operators named as they are written (``SwitchAt``)."""

    def _print_Function(self, e):
        if not _is_operator(e):
            return super()._print_Function(e)
        name = self.dom.createElement("mi")
        name.appendChild(self.dom.createTextNode(type(e).__name__))
        mrow = self.dom.createElement("mrow")
        mrow.appendChild(name)
        mrow.appendChild(self._paren_comma_separated(*e.args))
        return mrow


class _LatexPrinter(LatexPrinter):
    """sympy's LaTeX printer, with numeric operators as ``\\operatorname{SwitchAt}`` (for report.md)."""

    def _print_Function(self, e, exp=None):
        if not _is_operator(e):
            return super()._print_Function(e, exp)
        args = ", ".join(self._print(a) for a in e.args)
        out = rf"\operatorname{{{type(e).__name__}}}\left({args}\right)"
        return out if exp is None else rf"{out}^{{{exp}}}"


def _math(body: str, display: str = "block") -> str:
    return f'<math display="{display}">{body}</math>'


def bound_mathml(expr: sp.Expr) -> str | None:
    """The canonical bound as a ``<math>`` element (None when the printer fails on it)."""
    try:
        body = _PresentationPrinter().doprint(expr)
    except Exception:  # noqa: BLE001 - an expression the printer does not know: the text form is shown
        return None
    return _math(body) if "\\" not in body else None


def bound_latex(expr: sp.Expr) -> str:
    """The canonical bound as LaTeX for the Markdown page (GitHub math), operator names intact."""
    return _LatexPrinter().doprint(expr)


@functools.lru_cache(maxsize=None)
def _known(command: str) -> bool:
    """Whether latex2mathml knows ``\\command``: it leaves an unknown one as raw text, and refuses a known
    one that needs its arguments (``\\right``, ``\\frac``) alone."""
    from latex2mathml.converter import convert

    try:
        return "\\" not in convert("\\" + command)
    except Exception:  # noqa: BLE001 - a known command missing its arguments
        return True


def split_glued_commands(latex: str) -> str:
    r"""``\otimesG`` -> ``\otimes G``: a command glued to the letters after it, when the whole word is no
    command and its longest known prefix is."""
    def fix(m: re.Match) -> str:
        word = m.group(1)
        if _known(word):
            return m.group(0)
        for cut in range(len(word) - 1, 1, -1):
            if _known(word[:cut]):
                return f"\\{word[:cut]} {word[cut:]}"
        return m.group(0)

    return _COMMAND.sub(fix, latex)


def latex_mathml(latex: str, display: str = "block") -> str | None:
    """A paper's LaTeX formula as a ``<math>`` element; None when it cannot be converted without leaving
    raw LaTeX behind."""
    if not latex or not latex.strip():
        return None
    from latex2mathml.converter import convert

    try:
        out = convert(split_glued_commands(latex), display=display)
    except Exception:  # noqa: BLE001 - LaTeX latex2mathml does not parse: the caller shows text instead
        return None
    out = out.replace(' xmlns="http://www.w3.org/1998/Math/MathML"', "")  # not needed in HTML; no URL on the page
    out = _SIZED_DELIMITER.sub(lambda m: m.group(1) + _symbol(m.group(2)) + "<", out)
    return None if "\\" in out else out


#: a delimiter command that latex2mathml leaves raw after a size command (``\Big\lceil``)
_SIZED_DELIMITER = re.compile(r"(<mo [^>]*>)\\([A-Za-z]+)<")


@functools.lru_cache(maxsize=None)
def _symbol(command: str) -> str:
    r"""The character latex2mathml gives ``\command`` alone (``\lceil`` -> ``&#x02308;``)."""
    from latex2mathml.converter import convert

    try:
        m = re.search(r"<m[io][^>]*>([^<\\]+)</m[io]>", convert("\\" + command))
    except Exception:  # noqa: BLE001
        return "\\" + command
    return m.group(1) if m else "\\" + command


__all__ = ["bound_latex", "bound_mathml", "latex_mathml", "split_glued_commands"]
