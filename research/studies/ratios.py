"""One line for a set of strategy-over-pick error ratios, shared by the workload studies."""
from __future__ import annotations

import numpy as np


def summary(r: np.ndarray, better: str = "the strategy") -> str:
    """"k cells, <better> better in w, geometric mean g, worst x" (or "no cells"): r is <better>'s error over the
    other's."""
    r = np.asarray(r, dtype=float)
    if not r.size:
        return "no cells"
    wins = int((r < 1).sum())
    return (f"{r.size:3d} cells, {better} better in {wins:3d}, geometric mean {np.exp(np.log(r).mean()):.2f}, "
            f"worst {r.max():.2f}")
