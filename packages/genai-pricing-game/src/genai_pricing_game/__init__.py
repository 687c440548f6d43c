"""genai-pricing-game: cost-effectiveness and sequential (Stackelberg) pricing for competing generative AI
models, after Mahmood, "Pricing and Competition for Generative AI", NeurIPS 2024
(https://arxiv.org/abs/2411.02661).

* :mod:`~genai_pricing_game.prompts` — expected prompts, relative performance, cost-effectiveness (Sec. 3)
* :mod:`~genai_pricing_game.demand` — exponential, linear and user-supplied demand (vectorised over tasks)
* :mod:`~genai_pricing_game.game` — latecomer best response, first-mover price, market sweeps (Sec. 4-5)
* :mod:`~genai_pricing_game.regions` — the two-task blue / orange / green region diagram (Figure 3)
* :mod:`~genai_pricing_game.plot` — the region plot (optional extra ``[plot]``)
"""

from importlib.metadata import version as _version

from .demand import CallableDemand, Demand, ExponentialDemand, LinearDemand
from .game import (
    BestResponse,
    FirstMover,
    MarketOutcome,
    best_response,
    first_mover_price,
    simulate_market,
)
from .plot import plot_two_task_regions
from .prompts import expected_prompts, is_cost_effective, relative_performance
from .regions import RegionMap, TwoTaskRegion, two_task_region_map, two_task_regions

__version__ = _version("genai-pricing-game")
__all__ = [
    "__version__",
    "BestResponse",
    "CallableDemand",
    "Demand",
    "ExponentialDemand",
    "FirstMover",
    "LinearDemand",
    "MarketOutcome",
    "RegionMap",
    "TwoTaskRegion",
    "best_response",
    "expected_prompts",
    "first_mover_price",
    "is_cost_effective",
    "plot_two_task_regions",
    "relative_performance",
    "simulate_market",
    "two_task_region_map",
    "two_task_regions",
]
