"""Every registry of named records behaves alike: a taken name is refused unless replace=True, the view is
read-only, an unknown name gets close matches; importing the papers does not change the vocabulary."""

import numpy as np
import pytest

import theorems
from verify.errors import InputError
from verify.instances import FAMILIES
from verify.privacy.notions import NOTIONS, Notion, register_notion
from verify.privacy.operators import OPERATORS, numeric_operator
from verify.registry import Registry


def test_a_taken_name_is_refused_unless_replaced():
    reg = Registry("colour")
    assert reg.add("red", 1) == 1
    with pytest.raises(InputError, match="'red' is already registered") as info:
        reg.add("red", 2)
    assert info.value.parameter == "name" and reg["red"] == 1
    assert reg.add("red", 2, replace=True) == 2 and reg["red"] == 2
    assert reg.remove("red") == 2 and "red" not in reg and reg.remove("red") is None


def test_the_view_is_read_only_and_ordered():
    reg = Registry("colour")
    for name in ("red", "green", "blue"):
        reg.add(name, name.upper())
    assert list(reg) == ["red", "green", "blue"] and len(reg) == 3 and dict(reg)["blue"] == "BLUE"
    with pytest.raises(TypeError):
        reg["black"] = "BLACK"  # type: ignore[index]


def test_an_unknown_name_gets_close_matches_and_the_parameter():
    reg = Registry("colour", "paint")
    for name in ("red", "green", "blue"):
        reg.add(name, name)
    with pytest.raises(InputError, match=r"unknown colour 'gren' \(did you mean 'green'\?; known: red, green, blue\)") \
            as info:
        reg.lookup("gren")
    assert info.value.parameter == "paint"
    with pytest.raises(InputError, match="unknown colour 12"):
        reg.lookup(12)
    with pytest.raises(InputError, match="non-empty string"):
        reg.add("", 0)


@pytest.mark.parametrize("registry", [FAMILIES, NOTIONS, OPERATORS], ids=["families", "notions", "operators"])
def test_the_tool_registries_share_the_behaviour(registry):
    assert isinstance(registry, Registry) and len(registry) > 0
    with pytest.raises(InputError, match="did you mean"):
        registry.lookup(next(iter(registry)) + "x")


def test_a_second_notion_or_operator_of_one_name_is_refused():
    with pytest.raises(InputError, match="'gdp' is already registered"):
        register_notion(Notion(name="gdp", label="again", quantity="mu"))
    with pytest.raises(InputError, match="'GDPDelta' is already registered"):
        numeric_operator("GDPDelta", lambda mu, eps: np.zeros_like(mu), ("mu", "eps"), "a second GDPDelta")
    assert OPERATORS["GDPDelta"].description != "a second GDPDelta"


def test_theorem_lookup_names_close_ids():
    with pytest.raises(KeyError, match="did you mean 'bok2024/thm4.3'"):
        theorems.get("bok2024/thm4.3x")


def test_importing_the_papers_leaves_the_vocabulary_as_declared(fresh_registry_import):
    before = fresh_registry_import["vocabulary_before"]
    assert fresh_registry_import["vocabulary_unchanged"] and "clsi" in before and "eps_rdp" in before
