"""Plots (optional extra ``genai-pricing-game[plot]``; matplotlib is imported lazily).

The two-task region diagram of Mahmood, NeurIPS 2024 (https://arxiv.org/abs/2411.02661, Figure 3):
blue = first mover shut out, orange / green = it earns on its stronger task at a low / high price.
"""

from __future__ import annotations

import os

import numpy as np

from ._checks import check_int, describe

__all__ = ["plot_two_task_regions"]

_COLORS = {"blue": "#4C72B0", "orange": "#DD8452", "green": "#55A868"}


def plot_two_task_regions(region_map=None, *, path=None, ax=None, resolution: int = 200):
    """Draw the (share ``a1/(a1+a2)``, similarity ``kappa2/kappa1``) region diagram.

    Args:
        region_map: output of :func:`~genai_pricing_game.two_task_region_map`; its numerical
            ``revenue_A > 0`` cells are overlaid as dots (x: A shut out) on the closed-form regions.
        path: write a PNG there when given.
        ax: a matplotlib Axes to draw into (a new figure otherwise).
        resolution: pixels per axis of the closed-form background.

    Returns:
        the matplotlib Axes. Raises ImportError naming the extra if matplotlib is missing.
    """
    from .regions import RegionMap, two_task_regions

    if region_map is not None and not isinstance(region_map, RegionMap):
        raise TypeError(
            f"region_map must be None or a RegionMap (two_task_region_map's result), got "
            f"{describe(region_map)}"
        )
    if path is not None and not isinstance(path, str | os.PathLike):
        raise TypeError(f"path must be None, a str or a path, got {describe(path)}")
    resolution = check_int(resolution, "resolution", minimum=2)
    try:
        import matplotlib

        if ax is None and path is not None:
            matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
        from matplotlib.colors import ListedColormap
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "plotting needs matplotlib: pip install 'genai-pricing-game[plot]'"
        ) from exc

    g = np.linspace(0.0025, 0.9975, resolution)
    S, R = np.meshgrid(g, g)
    reg = two_task_regions(S, 1 - S, 1.0, R, 1.0).region
    code = np.select([reg == "blue", reg == "orange"], [0, 1], 2)
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 4.5))
    cmap = ListedColormap([_COLORS["blue"], _COLORS["orange"], _COLORS["green"]])
    ax.imshow(code, origin="lower", extent=(0, 1, 0, 1), cmap=cmap, vmin=0, vmax=2, alpha=0.6)
    ax.plot(g, g, "k-", lw=1, label=r"$r = s$")
    if region_map is not None:
        Sm, Rm = np.meshgrid(region_map.shares, region_map.ratios)
        pos = region_map.numeric_positive
        ax.scatter(Sm[pos], Rm[pos], s=3, c="k", label="numeric: A earns")
        ax.scatter(Sm[~pos], Rm[~pos], s=3, c="w", marker="x", label="numeric: A shut out")
    ax.set_xlabel(r"$s = a_1/(a_1+a_2)$ (demand share of B's stronger task)")
    ax.set_ylabel(r"$r = \kappa_2/\kappa_1$ (task similarity)")
    ax.set_title("First mover's fate, two tasks, exponential demand")
    ax.legend(loc="upper left", fontsize=7)
    if path is not None:
        ax.figure.savefig(path, dpi=120, bbox_inches="tight")
    return ax
