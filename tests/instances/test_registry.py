"""The family registry, the immutable Instance record and its typed run description."""

import dataclasses
import json

import numpy as np
import pytest

from verify.errors import InputError
from verify.instances import FAMILIES, Instance, RunDescription, family, register_family
from verify.instances import registry
from verify.instances.profile import GaussianProfile
from verify.setting import Setting, loss_classes

BASE = dict(n=10, eta=0.1, sigma=1.0, T=5)

def test_every_registered_family_declares_an_example_build():
    assert all(fam.example for fam in FAMILIES.values())


def test_the_grid_families_are_those_whose_cost_grows_with_T():
    grid = {name for name, fam in FAMILIES.items() if fam.cost == "grid"}
    assert grid == {"interval_walk", "subsampled_linear", "bok_c16", "at22_thm41", "dpsgd_worst_step",
                    "projected_quadratic", "subsampled_quadratic", "projected_nonconvex", "shuffled_chain", "tanh_walk"}
    assert {fam.cost for fam in FAMILIES.values()} <= set(registry.COSTS)


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_a_family_setting_covers_every_instance_it_builds(name):
    fam = family(name)
    inst = fam.example_build()
    assert inst.family == name and fam.exactness and fam.description
    assert fam.setting.covers(inst.setting, inst.loss_classes, steps=inst.steps) is None
    assert inst.run.kind == fam.run_kind
    assert loss_classes(*inst.loss_classes) == inst.loss_classes  # closed under implication
    json.dumps(inst.run.to_json())  # plain JSON values only


def test_a_paper_construction_does_not_cover_a_general_instance():
    cyclic = family("quadratic_chain").build(n=10, eta=0.1, sigma=1.0, T=4, m=0.5, M=2.0, Delta=1.0,
                                             batches="cyclic", b=5)
    assert family("bok_thm42").setting.covers(cyclic.setting, cyclic.loss_classes, steps=cyclic.steps) \
        == "batches cyclic is not full"


def test_families_is_a_read_only_view_and_unknown_names_are_input_errors():
    with pytest.raises(TypeError):
        FAMILIES["mine"] = FAMILIES["linear_chain"]  # type: ignore[index]
    with pytest.raises(InputError, match="unknown family 'nope'.*linear_chain") as info:
        family("nope")
    assert info.value.parameter == "family"


def test_register_family_adds_one_record_and_refuses_a_second_by_the_same_name():
    def shifted_pair(Delta=1.0):
        """A shifted Gaussian pair."""
        return FAMILIES["gaussian_mechanism"].build(sigma=1.0, Delta=Delta)

    try:
        fam = register_family("shifted_pair", shifted_pair, setting=Setting(algorithm="gaussian_mechanism"),
                              cost="closed_form", exactness="closed form", run_kind="gaussian_pair")
        assert FAMILIES["shifted_pair"] is fam and fam.description == "A shifted Gaussian pair."
        assert fam.build(Delta=2.0).profile().mu == pytest.approx(2.0)
        with pytest.raises(InputError, match="already registered"):
            register_family("shifted_pair", shifted_pair, setting=Setting(), cost="closed_form", exactness="",
                            run_kind="gaussian_pair")
    finally:
        FAMILIES.remove("shifted_pair")
    with pytest.raises(InputError, match="cost must be one of") as info:
        register_family("cheap", shifted_pair, setting=Setting(), cost="free", exactness="", run_kind="gaussian_pair")
    assert info.value.parameter == "cost" and "cheap" not in FAMILIES


def test_searched_keywords_are_builder_keywords_with_callable_draws_and_read_only():
    def shifted_pair(Delta=1.0, offset=0.0):
        """A shifted Gaussian pair."""
        return FAMILIES["gaussian_mechanism"].build(sigma=1.0, Delta=Delta)

    common = dict(setting=Setting(algorithm="gaussian_mechanism"), cost="closed_form", exactness="",
                  run_kind="gaussian_pair")
    with pytest.raises(InputError, match="'colour' is not a keyword") as info:
        register_family("shifted_pair", shifted_pair, searched={"colour": lambda u, ctx: u}, **common)
    assert info.value.parameter == "searched" and "shifted_pair" not in FAMILIES
    with pytest.raises(InputError, match="not callable"):
        register_family("shifted_pair", shifted_pair, searched={"offset": 0.5}, **common)
    try:
        fam = register_family("shifted_pair", shifted_pair, searched={"offset": lambda u, ctx: u}, **common)
        assert list(fam.searched) == ["offset"]
        with pytest.raises(TypeError):
            fam.searched["Delta"] = None  # type: ignore[index]
    finally:
        FAMILIES.remove("shifted_pair")


def test_build_reads_the_builder_signature_once(monkeypatch):
    def pair(Delta=1.0):
        """A pair."""
        return FAMILIES["gaussian_mechanism"].build(sigma=1.0, Delta=Delta)

    fam = registry.Family("pair", pair, Setting(algorithm="gaussian_mechanism"), "closed_form", "", "gaussian_pair")
    calls = []
    original = registry.inspect.signature
    monkeypatch.setattr(registry.inspect, "signature", lambda f: calls.append(f) or original(f))
    for Delta in (1.0, 2.0, 3.0):
        assert fam.build(Delta=Delta).profile().mu == pytest.approx(Delta)
    with pytest.raises(InputError):
        fam.build(colour="red")
    assert calls.count(pair) <= 1 and fam.required == () and fam.defaults == {"Delta": 1.0}


def test_a_family_with_searched_keywords_survives_pickling():
    import pickle

    walk = FAMILIES["interval_walk"]
    copy = pickle.loads(pickle.dumps(walk))
    assert copy == walk and dict(copy.searched) == dict(walk.searched) and copy.parameters == walk.parameters


@pytest.mark.parametrize("name, kwargs, parameter", [
    ("quadratic_chain", dict(BASE, eta=-0.1, m=1.0, M=1.0, Delta=1.0), "eta"),
    ("quadratic_chain", dict(BASE, m=1.0, M=1.0, Delta=1.0, batches="cyclic", b=3), "b"),
    ("quadratic_chain", dict(BASE, m=1.0, M=1.0, Delta=1.0, batches="cyclic", b=5, position=2), "position"),
    ("quadratic_chain", dict(BASE, m=1.0, M=1.0, Delta=1.0, theta0=[1.0, 2.0]), "theta0"),
    ("quadratic_chain", dict(BASE, m=1.0, M=1.0, Delta=1.0, colour="red"), "colour"),
    ("quadratic_chain", dict(n=10, eta=0.1, sigma=1.0, m=1.0, M=1.0, Delta=1.0), "T"),
    ("linear_chain", dict(BASE, Delta=1.0, init="gaussian"), "init_var"),
    ("bok_c17", dict(n=10, b=5, eta=0.1, sigma=1.0, E=3, T=7, m=0.5, M=2.0, Delta=1.0), "T"),
    ("interval_walk", dict(BASE, Delta=1.0, D=0.0), "D"),
    ("interval_walk", dict(BASE, Delta=1.0, D=1.0, method="exact"), "method"),
    ("subsampled_linear", dict(BASE, Delta=1.0, b=20), "b"),
    ("dpsgd_worst_step", dict(BASE, Delta=-1.0, b=2), "Delta"),
    ("gaussian_mechanism", dict(n=10, Delta=1.0), "sigma"),
])
def test_invalid_parameters_are_input_errors_naming_the_parameter(name, kwargs, parameter):
    with pytest.raises(InputError) as info:
        FAMILIES[name].build(**kwargs)
    assert info.value.parameter == parameter and str(info.value).startswith(f"{name}: ")


def test_bok_c17_derives_T_from_the_epochs():
    inst = FAMILIES["bok_c17"].build(n=12, b=4, eta=0.1, sigma=1.0, E=5, m=0.5, M=2.0, Delta=1.0)
    assert (inst.params()["l"], inst.params()["E"], inst.params()["T"], inst.run.position) == (3, 5, 15, 2)


def test_instances_are_immutable():
    inst = FAMILIES["bok_thm42"].example_build()
    with pytest.raises(dataclasses.FrozenInstanceError):
        inst.run.tight = False  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        inst.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        inst.constants["n"] = 3  # type: ignore[index]
    with pytest.raises(TypeError):
        inst.extras["expected_excess_risk"] = None  # type: ignore[index]
    with pytest.raises(ValueError, match="read-only"):
        inst.run.eigenvalues[0] = 9.0
    params = inst.params()
    params["n"] = 3  # a copy
    assert inst.params()["n"] == 10


def test_the_profile_is_computed_once():
    calls = []

    def compute():
        calls.append(1)
        return GaussianProfile(0.0, 1.0, 1.0, 1.0)

    inst = Instance(name="pair", family="mine", setting=Setting(), loss_classes=frozenset(), constants={},
                    run=RunDescription(kind="gaussian_pair"), compute=compute)
    assert inst.profile() is inst.profile() and len(calls) == 1
    bare = dataclasses.replace(inst, compute=None)
    with pytest.raises(InputError, match="no privacy profile"):
        bare.profile()


def test_an_instance_refuses_unknown_loss_classes_and_untyped_runs():
    with pytest.raises(InputError, match="unknown loss classes"):
        Instance(name="x", family="mine", setting=Setting(), loss_classes=frozenset({"wavy"}), constants={},
                 run=RunDescription(kind="gaussian_pair"))
    with pytest.raises(InputError, match="RunDescription"):
        Instance(name="x", family="mine", setting=Setting(), loss_classes=frozenset(), constants={},
                 run={"kind": "gaussian_pair"})  # type: ignore[arg-type]
    with pytest.raises(InputError, match="kind must be one of"):
        RunDescription(kind="spiral")


def test_run_descriptions_say_what_the_paper_constructions_are():
    thm42 = FAMILIES["bok_thm42"].example_build()
    assert thm42.run.tight is True and thm42.run.get("tight") is True
    assert thm42.run.source.startswith("Bok et al. 2024, Theorem 4.2")
    general = FAMILIES["quadratic_chain"].example_build()
    assert general.run.tight is None and general.run.get("tight", "unknown") == "unknown"
    assert general.run.get("no_such_field", 7) == 7
    chourasia = FAMILIES["chourasia_thm3"].build(**dict(BASE, Delta=2.0, d=2))
    np.testing.assert_array_equal(chourasia.run.data_prime, [-1.0, 0.0])
    assert chourasia.run.data[0, 0] == 1.0 and chourasia.run.loss == "1/2 |theta - x|^2"
    walk = FAMILIES["subsampled_linear"].example_build().run.to_json()
    assert "projection" not in walk and walk["window"][0] < 0 < walk["window"][1]
    assert walk["interval"] == walk["window"] and walk["cells"] == 64
