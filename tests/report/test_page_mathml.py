"""Formulas on the HTML page are MathML, never LaTeX source."""

from __future__ import annotations

import re
import xml.dom.minidom

import sympy as sp

import theorems
from verify.report.mathml import bound_latex, bound_mathml, latex_mathml, split_glued_commands

RAW_LATEX = re.compile(r"\\[A-Za-z]+|\$\$")


def _texts(mathml: str) -> list[str]:
    """The text of every leaf element (mi, mo, mn, mtext) of a <math> element, parsed as XML."""
    dom = xml.dom.minidom.parseString(mathml.replace("&InvisibleTimes;", "&#8290;"))
    out = []

    def walk(node):
        for child in node.childNodes:
            if child.nodeType == child.TEXT_NODE and child.data.strip():
                out.append(child.data.strip())
            walk(child)

    walk(dom)
    return out


def test_every_registry_formula_converts_without_raw_latex():
    # the issue counted 49 of 85 paper forms shown as LaTeX source: every one must now be MathML
    records = theorems.all()
    forms = [t.paper_form for t in records if t.paper_form]
    assert len(forms) >= 60
    for t in records:
        bound = bound_mathml(t.bound)
        assert bound is not None and bound.startswith("<math") and not RAW_LATEX.search(bound), t.id
        if t.paper_form:
            paper = latex_mathml(t.paper_form)
            assert paper is not None, t.id
            assert not RAW_LATEX.search(paper) and "http" not in paper, t.id


def test_numeric_operator_names_are_kept():
    # sympy's LaTeX printer reads SwitchAt as "Switc" with a hat accent; its MathML printer lower-cases it
    switch = theorems.get("bok2024/tables10-12/as-printed").bound
    assert "SwitchAt" in _texts(bound_mathml(switch))
    assert bound_latex(switch).startswith(r"\operatorname{SwitchAt}\left(")
    assert "hat" not in bound_latex(switch)


def test_glued_command_is_split():
    assert split_glued_commands(r"A\otimesG\Big(x\Big)") == r"A\otimes G\Big(x\Big)"
    assert split_glued_commands(r"\frac{a}{b}\right)\left(") == r"\frac{a}{b}\right)\left("  # known: untouched
    texts = _texts(latex_mathml(theorems.get("bok2024/thm4.9").paper_form))
    i = texts.index("\N{CIRCLED TIMES}", texts.index("\N{CIRCLED TIMES}") + 1)  # the second tensor power sign
    assert texts[i + 1] == "G"


def test_sized_delimiters_become_characters():
    texts = _texts(latex_mathml(r"\Big\lceil x \Big\rceil"))
    assert texts == ["\N{LEFT CEILING}", "x", "\N{RIGHT CEILING}"]


def test_bound_mathml_reads_the_expression():
    delta, n, sigma = sp.symbols("Delta n sigma", positive=True)
    texts = _texts(bound_mathml(delta / (n * sigma)))
    assert texts[0] == "\N{GREEK CAPITAL LETTER DELTA}" and {"n", "\N{GREEK SMALL LETTER SIGMA}"} <= set(texts)
    assert "<mfrac>" in bound_mathml(delta / (n * sigma))


def test_unconvertible_latex_is_refused_not_shown():
    assert latex_mathml(r"\frac{1}{") is None  # unbalanced
    assert latex_mathml("") is None
