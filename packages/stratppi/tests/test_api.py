"""API shape (issue 9): data positional, options keyword-only; results immutable."""

import dataclasses
import inspect

import pytest
import stratppi as sp
from stratppi import baselines

# ppi_py's drop-in replacements keep ppi_py's positional order (see test_ppi_py_parity.py)
PPI_PY_COMPATIBLE = set(baselines.__all__)
FUNCTIONS = [
    name
    for name in sp.__all__
    if inspect.isfunction(getattr(sp, name)) and name not in PPI_PY_COMPATIBLE
]


@pytest.mark.parametrize("name", FUNCTIONS)
def test_options_are_keyword_only(name):
    """Every parameter with a default (an option) is keyword-only; data have no defaults."""
    for p in inspect.signature(getattr(sp, name)).parameters.values():
        if p.default is not p.empty:
            assert p.kind is p.KEYWORD_ONLY, f"{name}({p.name}=...) is not keyword-only"
        else:
            assert p.kind is p.POSITIONAL_OR_KEYWORD, f"{name}: {p.name}"


def test_pointestimate_takes_options_by_keyword_only():
    # 0.1.0 took weights, lam and clip positionally here but not in stratppi_mean_ci
    d = sp.simulate(n=100, N=1000, rng=0)
    args = (d.Y, d.Yhat, d.Yhat_unlabeled, d.strata, d.strata_unlabeled)
    with pytest.raises(TypeError):
        sp.stratppi_mean_pointestimate(*args, None, 0.0)
    assert sp.stratppi_mean_pointestimate(*args, lam=0.0) == pytest.approx(
        sp.stratppi_mean_pointestimate(*args, weights=None, lam=0.0, clip=True)
    )


@pytest.mark.parametrize("name", sorted(PPI_PY_COMPATIBLE))
def test_ppi_py_compatible_extras_are_keyword_only(name):
    extra = [
        p.name
        for p in inspect.signature(getattr(sp, name)).parameters.values()
        if p.name in ("clip", "ddof")
    ]
    for p in inspect.signature(getattr(sp, name)).parameters.values():
        if p.name in extra:
            assert p.kind is p.KEYWORD_ONLY


def test_simdata_is_frozen():
    d = sp.simulate(n=100, N=1000, rng=0)
    assert dataclasses.is_dataclass(d)
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.theta = 0.0
