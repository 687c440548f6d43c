"""pfl-sim: fast federated-learning simulation (FedAvg/FedAdam) on torch.distributed, with
central Gaussian differential privacy (clipping, noise_cohort_size, adaptive clipping) and
PLD / PRV / RDP accountants for the Poisson-subsampled Gaussian (pfl-research, NeurIPS 2024)."""

from importlib.metadata import version as _version

from .accounting import RDP_ORDERS, compute_epsilon, compute_noise_multiplier, compute_rdp
from .privacy import CentralGaussian, PrivateAggregate
from .simulate import SimulationResult, simulate

__version__ = _version("pfl-sim")
__all__ = [
    "RDP_ORDERS",
    "CentralGaussian",
    "PrivateAggregate",
    "SimulationResult",
    "__version__",
    "compute_epsilon",
    "compute_noise_multiplier",
    "compute_rdp",
    "simulate",
]
