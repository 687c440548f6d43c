"""Periodic agent-state based Q-learning (PASQL) for POMDPs (Sinha, Geist, Mahajan, NeurIPS 2024).

A finite POMDP (``TabularPOMDP``, also a gymnasium-style env), agent states (``LastObservation``,
``FrameStack``, ``FiniteAutomaton``, or any object with ``n_states``, ``init(y)``,
``update(z, y, a)``), exact tools for periodic policies (``evaluate_periodic``,
``best_periodic_bruteforce``, ``cyclic_limit``, ``limit_q``, ``greedy_periodic``) and the learner
(``pasql`` on any env, ``pasql_from_data`` on recorded data, ``pasql_many`` seed-vectorised).
"""

from importlib.metadata import version as _version

from .agent_state import FiniteAutomaton, FrameStack, LastObservation, tabulate
from .exact import (
    PeriodicOptimum,
    best_periodic_bruteforce,
    cyclic_limit,
    epsilon_greedy,
    evaluate_periodic,
    greedy_periodic,
    limit_q,
    periodic_bellman_solve,
)
from .learning import Trajectories, asql, pasql, pasql_from_data, pasql_many, sample_trajectories
from .pomdp import TabularPOMDP, phase_pomdp, random_pomdp, six_state_standin

__version__ = _version("pasql")
__all__ = [
    "FiniteAutomaton",
    "FrameStack",
    "LastObservation",
    "PeriodicOptimum",
    "TabularPOMDP",
    "Trajectories",
    "__version__",
    "asql",
    "best_periodic_bruteforce",
    "cyclic_limit",
    "epsilon_greedy",
    "evaluate_periodic",
    "greedy_periodic",
    "limit_q",
    "pasql",
    "pasql_from_data",
    "pasql_many",
    "periodic_bellman_solve",
    "phase_pomdp",
    "random_pomdp",
    "sample_trajectories",
    "six_state_standin",
    "tabulate",
]
