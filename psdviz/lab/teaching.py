"""Teaching views: noise shown as noise (the app's Teach page; owner-side, never published).

* :func:`cell_errors`: each cell's private estimate minus its true count, in units of the cell's own
  standard error (the exact variance of the release's linear answer for that cell). About 68 % of the
  cells should lie within one standard error and 95 % within 1.96 when the estimates are unbiased and
  near normal; a map of these values shows where a release's errors are larger than it says.
* :func:`redraw`: the same query answered by ``k`` fresh releases of the same data, method and
  epsilon: the spread of their answers around the truth is the noise the standard error describes.

Both read the true counts, so their results are NOT differentially private: they are for a data owner
teaching or checking a method, and the app labels them so.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.domain import Domain
from ..core.errors import ParameterError
from ..publish.release import Release
from ..query.truth import PointIndex


@dataclass(frozen=True)
class CellErrors:
    """Per cell: private - true, its standard error, and their ratio (NaN where the error is not known)."""

    diff: np.ndarray
    se: np.ndarray
    z: np.ndarray

    def within(self, k: float) -> float:
        """Share of the cells with a known standard error whose error is within ``k`` of them."""
        ok = np.isfinite(self.z)
        return float((np.abs(self.z[ok]) <= k).mean()) if ok.any() else float("nan")


def cell_errors(release: Release, truth: PointIndex, nodes: np.ndarray) -> CellErrors:
    """Private-minus-true of the cells ``nodes`` of ``release`` in their own standard errors (NOT private)."""
    rects = np.asarray(release.tree.rect)[np.asarray(nodes, dtype=np.int64)]
    diff = release.answer(rects) - truth.count(rects)
    var = release.answer_variance(rects)
    se = np.sqrt(np.where(np.isfinite(var) & (var > 0), var, np.nan))
    return CellErrors(diff, se, diff / se)


@dataclass(frozen=True)
class Redraws:
    """Answers of one rectangle from ``k`` independent releases, with the standard error of the noise each
    stated and each one's 95 % interval of its whole error (``low``, ``high``: :meth:`Release.answer_interval`)."""

    answers: np.ndarray
    stated_se: np.ndarray
    low: np.ndarray
    high: np.ndarray

    @property
    def spread(self) -> float:
        """Standard deviation of the answers (the noise seen)."""
        return float(np.std(self.answers, ddof=1)) if self.answers.size > 1 else float("nan")

    @property
    def stated(self) -> float:
        """Root mean square of the standard errors the releases stated (the noise promised)."""
        return float(np.sqrt(np.mean(self.stated_se ** 2)))

    def within(self, truth: float) -> float:
        """Share of the releases whose 95 % interval (the whole error's, as every page shows it) holds ``truth``."""
        return float(((self.low <= truth) & (truth <= self.high)).mean())

    def within_noise_band(self, truth: float, k: float = 1.96) -> float:
        """Share of the answers within ``k`` stated standard errors of the noise alone (the *noise band*, a
        teaching figure: it leaves out the cells the rectangle cuts, so it is not the 95 % interval)."""
        return float((np.abs(self.answers - truth) <= k * self.stated_se).mean())


def redraw(points, domain: Domain, rect, *, method: str, epsilon: float, k: int = 20, seed: int | None = None,
           **build_kw) -> Redraws:
    """``k`` releases of ``points`` (fresh randomness each; ``seed``: a reproducible teaching run, each
    release from its own child of the seed) answering ``rect`` [xmin, ymin, xmax, ymax].

    Raises ValueError for ``k`` below 2 (a spread needs two answers) or above 1000."""
    from ..api import build
    if not isinstance(k, (int, np.integer)) or not 2 <= k <= 1000:
        raise ParameterError(f"k (the number of fresh releases) must be a whole number in [2, 1000] (got {k!r})")
    seeds = [None] * k if seed is None else [int(s.generate_state(1)[0]) for s in
                                            np.random.SeedSequence(seed).spawn(k)]
    q = np.asarray([rect], dtype=float)
    answers, se, low, high = (np.empty(k) for _ in range(4))
    for i, s in enumerate(seeds):   # k whole releases: the loop is over releases, not points or nodes
        rel = build(points, domain, method=method, epsilon=epsilon, seed=s, **build_kw)
        parts = rel.answer_error(q)
        answers[i], se[i], low[i], high[i] = (parts[k][0] for k in ("estimate", "standard_error", "low", "high"))
    return Redraws(answers, se, low, high)
