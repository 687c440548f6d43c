"""service-init: AcQUIre initialisation of services for diverse users, and its fair variant.

Implements *Initializing Services in Interactive ML Systems for Diverse Users* (Bose, Curmei,
Jiang, Morgenstern, Dean, Ratliff, Fazel; NeurIPS 2024) - https://arxiv.org/abs/2312.11846:
AcQUIre (a k-means++-style seeding for users with personal losses under bandit feedback),
Fair AcQUIre, the paper's baselines, the post-deployment learning dynamics, and exact
small-scale references (global optimum, exact expected AcQUIre loss).
"""

from importlib.metadata import version as _version

from .dynamics import (
    AlternatingResult,
    WeightsResult,
    alternating_minimization,
    group_losses,
    max_group_loss,
    multiplicative_weights,
    total_loss,
    user_losses,
)
from .exact import Optimum, acquire_expected_loss, exact_optimum
from .seeding import (
    Seeding,
    acquire,
    balanced_greedy_init,
    balanced_random_init,
    eps_greedy_init,
    fair_acquire,
    greedy_init,
    random_init,
)
from .users import CallableUsers, QuadraticUsers, RegressionUsers

__version__ = _version("service-init")
__all__ = [
    "AlternatingResult",
    "Optimum",
    "Seeding",
    "WeightsResult",
    "QuadraticUsers",
    "RegressionUsers",
    "CallableUsers",
    "acquire",
    "fair_acquire",
    "random_init",
    "greedy_init",
    "eps_greedy_init",
    "balanced_random_init",
    "balanced_greedy_init",
    "alternating_minimization",
    "multiplicative_weights",
    "total_loss",
    "user_losses",
    "group_losses",
    "max_group_loss",
    "exact_optimum",
    "acquire_expected_loss",
    "__version__",
]
