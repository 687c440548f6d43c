"""Closed-form derivatives of power-ReLU two-layer PINNs and variable splitting (VS-PINN): how PDE
order affects PINN convergence, measured on problems with closed-form solutions."""

from importlib.metadata import version as _version

from .models import PINN, VSPINN, gram_matrix, min_eig, pinn_loss, relative_l2_error, train
from .networks import AutogradNet, PowerReLU, TwoLayerPowerNet, autograd_derivative, derivative
from .pde import (
    LinearPDE,
    Points,
    SplitSystem,
    biharmonic,
    euler_bernoulli_beam,
    heat_1d,
    poisson,
    sample_points,
    split_system,
)

__version__ = _version("pinn-split")
__all__ = [
    "PINN",
    "AutogradNet",
    "VSPINN",
    "LinearPDE",
    "Points",
    "PowerReLU",
    "SplitSystem",
    "TwoLayerPowerNet",
    "__version__",
    "autograd_derivative",
    "biharmonic",
    "derivative",
    "euler_bernoulli_beam",
    "gram_matrix",
    "heat_1d",
    "min_eig",
    "pinn_loss",
    "poisson",
    "relative_l2_error",
    "sample_points",
    "split_system",
    "train",
]
