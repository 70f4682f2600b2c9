"""The Release: what could be published (docs/design.md data flow, "publish" step).

A Release holds node rectangles, released noisy counts, estimates, the ledger and how the run was
made. True counts never live inside it.
"""
from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import ClassVar, Literal, Protocol, overload

import numpy as np
import pandas as pd

from ..core.domain import Domain, validate_rects
from ..core.errors import ParameterError
from ..core.grid import Grid
from ..core.ledger import Ledger
from ..core.privacy_unit import ONE_POINT, PrivacyUnit
from ..core.rng import Randomness
from ..core.tree import FlatTree, read_only
from ..kernel.freeze import freeze
from ..kernel.header import ReleaseHeader
from ..kernel.intervals import whole_interval
from ..query.decompose import answer_tree, decompose, leaf_weights
from .query_model import QueryModel, as_model, machinery

# Exact variance of post-processed answers: node weights (n_nodes, k), non-zero on leaves only, of
# queries written as sums over released leaf estimates -> (k,) variances from the noise variances.
VarianceFn = Callable[[np.ndarray], np.ndarray]


class QueryIndex(Protocol):
    """A method-specific fast path returning exactly the canonical answer of ``answer_tree`` (the
    regular or near-equal grid pyramid, the adaptive grid's grid of grids, the h-tree's sorted splits;
    each tested against the generic traversal)."""

    def answer(self, rects: np.ndarray) -> np.ndarray: ...


_MACHINERY_INPUTS = {"tree", "query_model", "kept", "consistent", "grid", "domain"}


def report_name(param: str, params: dict) -> str:
    """A parameter's name in a report: the release's only ``delta`` is its privacy delta, so PrivTree's
    bias (its paper's delta) and the smooth-sensitivity medians' failure probability are named apart."""
    if param != "delta":
        return param
    return "bias_delta" if "lambda" in params else "median_delta"


@dataclass(frozen=True)
class Release:
    """A private spatial decomposition ready to publish (or a labelled non-private reference).

    Immutable once built: its fields cannot be reassigned, its dicts and tuples cannot be changed, and
    its tree's arrays and its ledger are read-only; a changed release is a new one
    (``dataclasses.replace``, as :func:`psdviz.publish.group_privacy.to_user_level` and
    :func:`psdviz.publish.nonnegative.nonnegative` do). The query machinery (``index``,
    ``leaf_variance``) is derived from ``tree`` and ``query_model`` alone, the same way when a release
    is built and when it is loaded from a file.
    """

    method: str
    params: dict
    domain: Domain
    tree: FlatTree
    ledger: Ledger
    randomness: Randomness
    input_report: dict            # the owner's exact input counts: audit() only
    consistent: bool              # est is consistent: every node equals the sum of its children
    private: bool = True
    notes: tuple[str, ...] = ()
    grid: Grid = field(kw_only=True)   # the public resolution grid every coordinate lies on
    query_model: QueryModel = field(kw_only=True)  # how answers and variances are computed (query_model.py)
    kept: np.ndarray | None = None  # after pruning a complete tree: each node's id in the full tree
    privacy_unit: PrivacyUnit = ONE_POINT
    curve: np.ndarray | None = None  # Hilbert R-tree: each node's range [lo, hi) of curve positions, (n, 2)
    kind: ClassVar[str] = "spatial"

    def __post_init__(self) -> None:
        freeze(self, tuples=("notes",), dicts=("params", "input_report"))
        object.__setattr__(self, "query_model", as_model(self.query_model))   # typed (a dict is its saved form)
        if isinstance(self.privacy_unit, str):
            object.__setattr__(self, "privacy_unit", PrivacyUnit.parse(self.privacy_unit))
        object.__setattr__(self, "tree", self.tree.frozen())
        if self.kept is not None:
            object.__setattr__(self, "kept", read_only(np.asarray(self.kept, dtype=np.int64)))
        if self.curve is not None:
            object.__setattr__(self, "curve", read_only(np.asarray(self.curve, dtype=np.int64).reshape(-1, 2)))

    @property
    def points_report(self) -> dict:
        """Deprecated name of :attr:`input_report` (the name every release kind uses for the owner's counts about
        the input; not private: read them through :meth:`audit`). Reading it warns (``DeprecationWarning``)."""
        warnings.warn("Release.points_report is deprecated: read Release.input_report (the same counts)",
                      DeprecationWarning, stacklevel=2)
        return self.input_report

    @cached_property
    def header(self) -> ReleaseHeader:
        """The facts every release kind states first (:class:`~psdviz.kernel.header.ReleaseHeader`), the
        parameters named as the report names them (:func:`report_name`; a workload by its size)."""
        params = {report_name(k, self.params): (
            f"{len(v):,} rectangles (recorded in the release)" if k == "workload" and isinstance(v, (list, tuple))
            else v if isinstance(v, (int, float, str, bool, type(None))) else str(v))
            for k, v in self.params.items()}
        return ReleaseHeader(self.kind, self.method, params, self.ledger, self.randomness, self.privacy_unit,
                             self.private, self.notes)

    @cached_property
    def _query(self) -> tuple[QueryIndex | None, VarianceFn | None]:
        return machinery(self)

    def evolve(self, **changes) -> Release:
        """A new release with ``changes`` (releases are immutable). The query machinery is kept when
        nothing it is derived from changes, else rebuilt now from the new tree and query model (a model
        that does not fit fails here). Releases are made by :func:`psdviz.publish.factory.make_release`."""
        new_rnd = changes.get("randomness")
        if new_rnd is not None and self.randomness.seeded and not new_rnd.seeded:
            raise ParameterError("a seeded release stays seeded: its noise came from the seed, whatever the label says "
                                 "(build again with seed=None for a fresh release)")
        if changes.get("query_model") is not None:
            changes["query_model"] = as_model(changes["query_model"])
        out = dataclasses.replace(self, **changes)
        if "_query" in self.__dict__ and not set(changes) & _MACHINERY_INPUTS:
            out.__dict__["_query"] = self.__dict__["_query"]
        else:
            _ = out.index
        return out

    def with_notes(self, *notes: str | None) -> Release:
        """A new release with ``notes`` (None entries skipped) added to its notes."""
        return self.evolve(notes=self.notes + tuple(n for n in notes if n))

    @property
    def index(self) -> QueryIndex | None:
        """The fast query path of this release's query model (None: the generic tree traversal)."""
        return self._query[0]

    @property
    def leaf_variance(self) -> VarianceFn | None:
        """Exact variances of post-processed answers (adjoint of the inference), or None for raw counts."""
        return self._query[1]

    @property
    def epsilon(self) -> float:
        return self.ledger.budget

    @property
    def randomness_mode(self) -> str:
        return self.randomness.mode

    def _values(self) -> np.ndarray:
        return self.tree.est if self.consistent else self.tree.noisy

    def answer(self, rects) -> np.ndarray:
        """Estimated counts of rectangles, from the released cells (uniformity inside a cell).

        Parameters
        ----------
        rects : array (k, 4)
            [xmin, ymin, xmax, ymax] per query, in the domain's units.

        Returns
        -------
        ndarray (k,)
            The private estimates (post-processing of released values only).
        """
        rects = validate_rects(rects)
        if self.index is not None:
            return self.index.answer(rects)
        return answer_tree(self.tree, rects, self._values())

    def answer_variance(self, rects) -> np.ndarray:
        """Exact variance of each answer due to count noise, given the released structure.

        Parameters
        ----------
        rects : array (k, 4)
            As for :meth:`answer`.

        Returns
        -------
        ndarray (k,)
            Variances; the standard error is their square root.

        The answer is a linear function c^T Y of the noisy counts Y (canonical decomposition,
        and for post-processed trees the adjoint of the post-processing), so its variance is
        sum_v c_v^2 Var(Y_v). The uniformity assumption's bias and the randomness of private
        splits are not part of this figure.
        """
        rects = validate_rects(rects)
        by_rectangle = getattr(self.leaf_variance, "rectangles", None)
        if by_rectangle is not None:           # a product strategy's cells: exact in closed form
            return by_rectangle(rects)
        t = self.tree
        var = t.noise_var
        q, v, c = decompose(t, rects, np.isfinite(self._values()))
        if self.leaf_variance is None:
            return np.bincount(q, weights=c * c * var[v], minlength=rects.shape[0])
        out = np.empty(rects.shape[0])
        for s in range(0, rects.shape[0], 16):
            sel = (q >= s) & (q < s + 16)
            k = min(16, rects.shape[0] - s)
            out[s:s + k] = self.leaf_variance(leaf_weights(t, q[sel] - s, v[sel], c[sel], k))
        return out

    def answer_regions(self, regions, *, id: str | None = None, name: str | None = None, parent: str | None = None,
                       layer: str | None = None) -> pd.DataFrame:
        """Estimates for the regions of a public layer, from the released cells.

        A region takes each published cell's estimate in proportion to the share of the cell's area it
        covers (the uniformity assumption, as for rectangles); the answer is linear in the released
        values, so its noise variance is exact in the same way as :meth:`answer_variance`. The error of
        the assumption itself in the cells the border cuts is modelled (:mod:`psdviz.query.uniformity`:
        the cut cells' points scattered as unevenly as the release's leaves are inside their parents).

        Parameters
        ----------
        regions : psdviz.regions.Regions, GeoDataFrame or path
            In the release's coordinates (lon/lat layers are reprojected to EPSG:4326 when made). A
            GeoDataFrame or the path of a layer file (GeoJSON, GeoPackage, zipped Shapefile, TopoJSON) is read
            as ``Regions.from_frame`` / ``Regions.from_file`` read it.
        id, name, parent : str, optional
            For a GeoDataFrame or a path: the columns of the region ids, names and parents (without ``id``, the
            id and name columns are guessed: a unique column named like an id, never a measure).
        layer : str, optional
            For a path: the TopoJSON object or GeoPackage layer to read.

        Returns
        -------
        DataFrame
            id, name, level, parent, estimate, standard_error (of the noise), uniformity_error (the model's
            standard deviation of the cut cells' error), low_95 and high_95 (the 95 % interval of the whole
            error, noise and cut cells together, as :meth:`answer_interval`), domain_share (the share of the
            region's area inside the release's domain: the answer counts that part only; a region wholly
            outside has no answer, NaN, never 0 with no error): one row per region.
        """
        from ..core.workload import region_layer
        from ..query.overlap import cell_shares
        regions = region_layer(regions, id=id, name=name, parent=parent, layer_name=layer)
        t = self.tree
        leaves = t.leaf_index()
        reg, cell, share = cell_shares(t.rect[leaves], np.asarray(regions.geometry))
        n = len(regions.geometry)
        values = self._values()[leaves]
        est = np.bincount(reg, weights=share * np.nan_to_num(values[cell]), minlength=n)
        by_pairs = getattr(self.leaf_variance, "pairs", None)
        var = np.empty(n) if by_pairs is None else by_pairs(reg, leaves[cell], share, n)   # sparse: least squares
        for s in range(0, n if by_pairs is None else 0, 16):    # (n_nodes, 16) weights at a time
            sel = (reg >= s) & (reg < s + 16)
            w = np.zeros((t.n_nodes, min(16, n - s)))
            np.add.at(w, (leaves[cell[sel]], reg[sel] - s), share[sel])
            var[s:s + w.shape[1]] = (self.leaf_variance(w) if self.leaf_variance is not None
                                     else (w ** 2 * np.where(np.isfinite(t.noise_var), t.noise_var, 0.0)[:, None])
                                     .sum(axis=0))
        se = np.sqrt(np.maximum(var, 0.0))
        border = np.where((share > 0) & (share < 1), 0, -1)     # a region's border: one edge, every way it turns
        cut = self._cut_error(reg, leaves[cell], share, n, border, (max(self._coherence),) * 2)
        room_low, room_high = self._cut_rooms(reg, leaves[cell], share, n)
        inside = self._domain_share(np.asarray(regions.geometry))
        unknown = inside <= 0.0          # the release says nothing about a region outside its domain: not 0 +- 0
        est, se, cut = (np.where(unknown, np.nan, v) for v in (est, se, cut))
        low, high = whole_interval(est, se, cut, room_low=room_low, room_high=room_high)
        return regions.table().assign(estimate=est, standard_error=se, uniformity_error=cut, low_95=low, high_95=high,
                                      domain_share=inside)

    def _domain_share(self, geometry: np.ndarray) -> np.ndarray:
        """Each region's share of its area inside the release's domain (public: the layer and the domain are)."""
        from ..core.optional import require
        shapely = require("shapely", "region layers")
        d = self.domain
        area = shapely.area(geometry)
        inside = shapely.area(shapely.intersection(geometry, shapely.box(d.xmin, d.ymin, d.xmax, d.ymax)))
        return np.where(area > 0, np.clip(inside / np.where(area > 0, area, 1.0), 0.0, 1.0), 0.0)

    def answer_interval(self, rects, level: float = 0.95) -> np.ndarray:
        """The interval each answer's whole error falls in: the count noise and the modelled error of the
        cells the rectangle's edges cut, together.

        Parameters
        ----------
        rects : array (k, 4)
            As for :meth:`answer`.
        level : float
            The interval's coverage, in (0, 1); default 0.95.

        Returns
        -------
        ndarray (k, 2)
            [low, high] per rectangle: ``answer -+ (z * sqrt(answer_variance + cut**2) + 1/2)``, z the larger
            of the normal and the Laplace quantile (2.12 standard deviations at 0.95; heavy-tailed count noise),
            the cut cells' part on each side at most what those cells could hold, both ends at least 0
            (:func:`psdviz.kernel.intervals.whole_interval`). For a rectangle made of whole cells the cut term is
            0 and this is the noise interval. NaN where the noise variance is not known.

        Notes
        -----
        The noise variance is exact given the released structure; the cut cells' term is a model
        (:mod:`psdviz.query.uniformity`), conservative where the release shows little, so the coverage is
        measured, not proved (``benchmarks/bench_coverage.py``). Post-processing of released values only.

        Examples
        --------
        >>> import numpy as np, psdviz as pv
        >>> pts = np.random.default_rng(0).random((2000, 2))
        >>> rel = pv.build(pts, pv.Domain(0, 0, 1, 1), method="quadtree", epsilon=1.0, height=3)
        >>> iv = rel.answer_interval([[0.1, 0.1, 0.6, 0.4]])
        >>> iv.shape, bool(iv[0, 0] < rel.answer([[0.1, 0.1, 0.6, 0.4]])[0] < iv[0, 1])
        ((1, 2), True)
        >>> whole = rel.answer_interval([[0, 0, 0.5, 0.5]])[0]           # whole cells: the noise alone
        >>> sd = rel.answer_variance([[0, 0, 0.5, 0.5]])[0] ** 0.5
        >>> bool(np.isclose(whole[1] - whole[0], 2 * (2.118303 * sd + 0.5)))
        True
        """
        parts = self.answer_error(rects, level)
        return np.column_stack([parts["low"], parts["high"]])

    def answer_error(self, rects, level: float = 0.95) -> dict[str, np.ndarray]:
        """Each answer with its whole error, as the app, the CLI and the exports show it.

        Parameters
        ----------
        rects : array (k, 4)
            As for :meth:`answer`.
        level : float
            As for :meth:`answer_interval`.

        Returns
        -------
        dict of arrays (k,)
            ``estimate`` (:meth:`answer`, unbiased, may be below 0), ``shown`` (the estimate held at 0: a count
            is never negative), ``standard_error`` (of the noise), ``uniformity_error`` (the cut cells' model),
            ``low`` and ``high`` (:meth:`answer_interval`). Post-processing of released values only.
        """
        rects = validate_rects(rects)
        est = self.answer(rects)
        se = np.sqrt(np.maximum(self.answer_variance(rects), 0.0))
        cut, room_low, room_high = self._cut_parts(rects)
        low, high = whole_interval(est, se, cut, level, room_low, room_high)
        return {"estimate": est, "shown": np.maximum(est, 0.0), "standard_error": se, "uniformity_error": cut,
                "low": low, "high": high}

    def answer_uniformity_error(self, rects) -> np.ndarray:
        """Modelled error of the uniformity assumption in the cells each rectangle's edges cut.

        Parameters
        ----------
        rects : array (k, 4)
            As for :meth:`answer`.

        Returns
        -------
        ndarray (k,)
            Standard deviations under the model of :mod:`psdviz.query.uniformity` (the cut cells' points
            as unevenly spread as the release's leaves are inside their parents); 0 for a rectangle made
            of whole cells. A model, not a bound; post-processing of released values only.
        """
        return self._cut_parts(validate_rects(rects))[0]

    def _cut_parts(self, rects: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per rectangle: the cut cells' modelled standard deviation and the room below and above the
        uniformity answer that those cells could hold (:meth:`_cut_rooms`), from one decomposition."""
        from ..query.uniformity import cutting_edge
        q, v, c = decompose(self.tree, rects, np.isfinite(self._values()))   # cut leaves: their covered share
        n = rects.shape[0]                                                    # (whole nodes: c = 1, no error)
        edge = cutting_edge(rects, q, self.tree.rect[v])
        return (self._cut_error(q, v, c, n, edge), *self._cut_rooms(q, v, c, n))

    def _cut_rooms(self, reg: np.ndarray, node: np.ndarray, share: np.ndarray, n: int
                   ) -> tuple[np.ndarray, np.ndarray]:
        """Per query: how far the truth can lie below and above the uniformity answer, from the cells it cuts
        (0 < covered share a < 1): at most sum a c below (the covered parts held none of their points) and sum
        (1 - a) c above (they held all), c a cell's count read high (:meth:`_upper_counts`). Released values
        only."""
        cut = (share > 0) & (share < 1)
        cap, a = self._upper_counts[node[cut]], share[cut]
        return (np.bincount(reg[cut], weights=a * cap, minlength=n),
                np.bincount(reg[cut], weights=(1.0 - a) * cap, minlength=n))

    @cached_property
    def _upper_counts(self) -> np.ndarray:
        """Per node: its count read high, the estimate (at least 0) plus two standard deviations of its own
        noise: what the cut cells' model and rooms take a cut cell to hold, since how far the truth can lie
        from the uniformity answer grows with the cell's true count, which the estimate may understate."""
        var = self.tree.noise_var
        return read_only(np.maximum(np.nan_to_num(self._values()), 0.0)
                         + 2.0 * np.sqrt(np.where(np.isfinite(var), var, 0.0)))

    @cached_property
    def _cut_model(self) -> tuple[np.ndarray, np.ndarray]:
        """Per node: the cut cells' factor and whether the data placed its edges (:mod:`psdviz.query.uniformity`),
        a function of the release alone, so computed once rather than per query."""
        from ..query.uniformity import cut_factor, data_placed
        placed = data_placed(self.tree, self.query_model.data_cuts)
        return read_only(cut_factor(self.tree, self._values(), placed)), read_only(placed)

    def _cut_error(self, reg: np.ndarray, node: np.ndarray, share: np.ndarray, n: int,
                   edge: np.ndarray | None = None, grow: tuple[float, float] | None = None) -> np.ndarray:
        """sqrt of :func:`~psdviz.query.uniformity.cut_cell_variance` over (query, node, covered share) pairs
        (``edge``: which edge cuts each pair's cell; ``grow``: the edges' growth factors, by default the release's
        :func:`~psdviz.query.uniformity.edge_coherence`, each stretched to its cell's spacing; given, as for a
        region's border that turns every way, stretched by the larger of the two)."""
        from ..query.uniformity import cut_cell_variance, stacked_along
        kappa, placed = self._cut_model
        along = None
        if edge is not None:                    # a region's border (grow given) turns every way: the larger stack
            in_column, in_row = self._stacked
            along = (stacked_along(edge, in_column[node], in_row[node]) if grow is None
                     else np.maximum(in_column, in_row)[node])
        return np.sqrt(cut_cell_variance(reg, share, self._values()[node], kappa[node], n, placed[node], edge,
                                         self._coherence if grow is None else grow, along))

    @cached_property
    def _stacked(self) -> tuple[np.ndarray, np.ndarray]:
        """:func:`~psdviz.query.uniformity.stacked_cells` of the tree, once."""
        from ..query.uniformity import stacked_cells
        return stacked_cells(self.tree)

    @cached_property
    def _coherence(self) -> tuple[float, float]:
        """How alike the cut cells along one edge are (:func:`~psdviz.query.uniformity.edge_coherence`), once."""
        from ..query.uniformity import edge_coherence
        return edge_coherence(self.tree)

    def sample_points(self, n: int | None = None, seed: int | None = None) -> pd.DataFrame:
        """Synthetic points drawn from the release: post-processing, no epsilon spent, no real point.

        Parameters
        ----------
        n : int, optional
            How many points; default the released total (the sum of the cells' non-negative estimates,
            rounded).
        seed : int, optional
            For reproducible draws; None draws from OS entropy.

        Returns
        -------
        DataFrame
            ``lon`` and ``lat`` (the domain's x and y): each point in a published cell chosen in proportion
            to its non-negative estimate, uniform inside it (the release's own uniformity assumption).
            A function of the release and the seed only.
        """
        t = self.tree
        leaves = t.leaf_index()
        w = np.maximum(np.nan_to_num(self._values()[leaves]), 0.0)
        total = float(w.sum())
        if n is None:
            n = int(round(total))
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 0 <= n <= 100_000_000:
            raise ParameterError(f"n must be a whole number from 0 to 100,000,000 (got {n!r})")
        rng = np.random.default_rng(seed)
        if n == 0 or total <= 0:
            return pd.DataFrame({"lon": np.zeros(0), "lat": np.zeros(0)})
        counts = rng.multinomial(int(n), w / total)
        r = np.repeat(t.rect[leaves], counts, axis=0)
        u = rng.random((int(n), 2))
        return pd.DataFrame({"lon": r[:, 0] + u[:, 0] * (r[:, 2] - r[:, 0]),
                             "lat": r[:, 1] + u[:, 1] * (r[:, 3] - r[:, 1])})

    def to_geodataframe(self, crs=None):
        """The published cells as a GeoDataFrame (needs ``psdviz[geo]``): node, level, estimate, low_95 and
        high_95 (the whole 95 % interval; a whole cell's is the noise of its estimate,
        :func:`psdviz.publish.cells.cell_intervals`), noisy count and its noise standard deviation, in ``crs``
        (e.g. "EPSG:4326" for a longitude/latitude domain)."""
        from ..core.optional import require
        from .cells import cell_intervals
        gpd = require("geopandas", "to_geodataframe")
        shapely = require("shapely", "to_geodataframe")
        t = self.tree
        leaves = t.leaf_index()
        r = t.rect[leaves]
        iv = cell_intervals(self, leaves)
        sd = np.sqrt(np.where(np.isfinite(t.noise_var[leaves]), t.noise_var[leaves], np.nan))
        frame = pd.DataFrame({"node": leaves, "level": t.depth[leaves], "estimate": t.est[leaves],
                              "low_95": iv[:, 0], "high_95": iv[:, 1], "noisy": t.noisy[leaves], "noise_sd": sd})
        return gpd.GeoDataFrame(frame, geometry=shapely.box(r[:, 0], r[:, 1], r[:, 2], r[:, 3]), crs=crs)

    def nodes(self, max_depth: int | None = None) -> pd.DataFrame:
        """Node table (no true counts) down to ``max_depth``; ``is_leaf`` marks published cells."""
        t = self.tree
        sel = np.ones(t.n_nodes, bool) if max_depth is None else t.depth <= max_depth
        idx = np.flatnonzero(sel)
        r = t.rect[idx]
        return pd.DataFrame({
            "node": idx, "depth": t.depth[idx], "x0": r[:, 0], "y0": r[:, 1], "x1": r[:, 2], "y1": r[:, 3],
            "noisy": t.noisy[idx], "estimate": t.est[idx], "count_epsilon": t.count_eps[idx],
            "split_epsilon": t.split_eps[idx], "noise_variance": t.noise_var[idx],
            "is_leaf": t.is_leaf[idx]})

    def leaves(self) -> pd.DataFrame:
        """The published cells: rectangles with their estimated (and noisy) counts."""
        df = self.nodes()
        return df[df["is_leaf"]].reset_index(drop=True)

    def input_handling(self) -> dict:
        """How invalid or out-of-domain rows were treated (the rules only, no counts: counts of the
        private input are not part of a release, nor is whether any row was dropped)."""
        rep = self.input_report
        return {"outside_domain": rep.get("outside_rows", "dropped"),
                "rows_with_nan_or_inf": rep.get("nonfinite_rows", "refused"),
                "N": "private: not released" if "N" not in self.params else str(self.params["N"])}

    def audit(self) -> dict:
        """The data owner's audit: exact counts about the input (rows read, dropped, outside, used) and
        the seed of a seeded run. Not differentially private: never part of the report or of a release file."""
        from ..kernel.protocol import owner_audit
        counts = self.input_report if "rows_in" in self.input_report else {}
        return owner_audit(counts, self.randomness.seed, method=self.method)

    def save(self, path, crs=None, *, allow_seeded: bool = False):
        """Write the release file (GeoParquet + metadata; ``docs/release-format.md``): what a consumer
        needs to map and query it, never the audit or the seed. ``crs``: e.g. "EPSG:4326" for lon/lat.
        A seeded run is refused unless ``allow_seeded=True`` (then the file says NOT private)."""
        from .release_file import save_release
        return save_release(self, path, crs, allow_seeded=allow_seeded)

    @overload
    def report(self, format: Literal["json"] = "json") -> dict: ...

    @overload
    def report(self, format: str) -> dict | str: ...

    def report(self, format: str = "json") -> dict | str:
        """The privacy report, holding only publishable facts: method, parameters, domain, resolution,
        ledger, randomness mode, privacy unit, input-handling rules (no counts of the input and no seed,
        which would let anyone regenerate the noise: see :meth:`audit`).

        Parameters
        ----------
        format : {"json", "markdown"}
            "json" (default): a JSON-ready dict with one ``delta``, the release's. "markdown": the privacy
            statement a publisher can hand on (:func:`psdviz.kernel.statement.markdown`).
        """
        from ..kernel.statement import check_format, markdown
        if check_format(format) == "markdown":
            return markdown(self)
        return {**self.header.report(),
                "domain": [self.domain.xmin, self.domain.ymin, self.domain.xmax, self.domain.ymax],
                "resolution": self.grid.describe(),
                "input_handling": self.input_handling(),
                "cells": int(self.tree.is_leaf.sum()), "nodes": self.tree.n_nodes}
