"""The privacy-accuracy frontier of the accuracy lab (DPComp's error-against-epsilon view).

From the lab's tidy results: for each method and query shape, the median relative error at each
epsilon run, and the smallest epsilon at which it reaches a target error (10 % by default), read by
linear interpolation of log error against log epsilon between the two epsilons that bracket the
target (our reading: errors of these mechanisms fall close to a power of epsilon between two runs).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .compare import summarize

TARGET = 0.10


def frontier(results: pd.DataFrame) -> pd.DataFrame:
    """Median relative error per (method, shape, epsilon), sorted by epsilon."""
    s = summarize(results)[["method", "shape", "epsilon", "median_rel_error"]]
    return s.sort_values(["method", "shape", "epsilon"]).reset_index(drop=True)


def epsilon_at(eps: np.ndarray, err: np.ndarray, target: float = TARGET) -> float:
    """Smallest epsilon whose (interpolated) error is at most ``target``; NaN if never reached."""
    eps, err = np.asarray(eps, float), np.asarray(err, float)
    hit = np.flatnonzero(err <= target)
    if hit.size == 0:
        return float("nan")
    i = int(hit[0])
    if i == 0 or err[i - 1] <= 0 or err[i] <= 0:
        return float(eps[i])
    x0, x1, y0, y1 = np.log(eps[i - 1]), np.log(eps[i]), np.log(err[i - 1]), np.log(err[i])
    return float(np.exp(x0 + (np.log(target) - y0) * (x1 - x0) / (y1 - y0)))


def reaching(front: pd.DataFrame, target: float = TARGET) -> pd.DataFrame:
    """Per (shape, method): the epsilon at which the method reaches ``target`` error."""
    rows = [{"shape": shape, "method": method, "epsilon": epsilon_at(g["epsilon"], g["median_rel_error"], target)}
            for (shape, method), g in front.groupby(["shape", "method"], sort=False)]
    return pd.DataFrame(rows, columns=["shape", "method", "epsilon"])


def reading(front: pd.DataFrame, target: float = TARGET) -> list[str]:
    """One line per query shape: which method reaches ``target`` error first, and from which epsilon."""
    out = []
    for shape, g in reaching(front, target).groupby("shape", sort=False):
        ok = g.dropna(subset=["epsilon"])
        if ok.empty:
            top = front[front["shape"] == shape]["epsilon"].max()
            out.append(f"For queries of shape {shape}, no method reaches {target:.0%} median error up to "
                       f"epsilon {top:g}.")
            continue
        best = ok.loc[ok["epsilon"].idxmin()]
        out.append(f"For queries of shape {shape}, {best['method']} reaches {target:.0%} median error from "
                   f"epsilon = {best['epsilon']:.3g}" + ("" if len(ok) == 1 else
                   f" (next: {ok.drop(best.name).sort_values('epsilon').iloc[0]['method']})") + ".")
    return out
