"""auto's plan: the facts a rule may read and the rules, read top to bottom (the first that holds picks).

Each rule is one declared object (:class:`Rule`): its name, the facts it reads, the condition in words and as a
predicate, what it picks (a method and the options it adds), one plain sentence a release says, and its evidence: a
link to the study or decision record that measured it. The thresholds below were chosen on the tuning part of the
corpus (:mod:`psdviz.lab.corpus`); what each rests on and the validation table are in docs/decisions/auto-rule.md
and docs/reproduction/auto_validation.md, never here.

The facts are bought by :mod:`.auto` (noisy, in its ledger); this module only reads them (post-processing).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass

FEATURE_SIDE = 256         # cells per axis of the public grid the cell facts are read from
N_EPS_MIN = 1e4            # below this N eps the spread is not read (small, noisy releases)
SPREAD_MIN = 0.6           # the AG rule: the points fill this share of the cells an even spread would
QUAD_N_EPS_MIN = 1e5       # from this N eps the quadtree (pruned during its build)
CORNER_SHARE_MIN = 0.2     # a corner cell holding this share of N (a lower bound) is an atom
LINE_SHARE_MIN = 0.3       # the lines rule: a row or column of cells holding this share of N (a lower bound) ...
LINES_N_EPS_MAX = 1e5      # ... below this N eps
SMALL_SIDE = 16            # small queries: their median longer side, in cells of the 256 x 256 grid, at most this
CELL_SNR_MIN = 5.0         # ... over cells holding this many noise scales (1 / eps) of points on average
THIN_SIDE = 2              # long thin queries: median shorter side at most this many cells, longer above SMALL_SIDE
THIN_SPREAD_MIN = 0.3      # the thin rule: spread (its lower bound) at least this ...
THIN_N_EPS_MIN = 1.5e5     # ... from this N eps
FINE_MIN = 0.15            # the fine rule: excess variation across thin queries (a lower bound), this share of N ...
FINE_SPREAD_MIN = 0.02     # ... spread (its lower bound) at least this ...
FINE_N_EPS_MIN = 1e6       # ... from this N eps
FINE_LINE_MAX = 0.2        # below it (from QUAD_N_EPS_MIN), also no row or column of cells above this share of N
CORNER_THIN_N_EPS_MIN = 1.5e5   # thin queries over a corner atom from this N eps -> PrivTree
HEAPED_MIN = 0.01          # heaped lines from a corner atom: excess variation along its edges (a lower bound) ...
HEAPED_N_EPS_MIN = 5e3     # ... from this N eps up to CORNER_THIN_N_EPS_MIN
ROUGH_MIN = 0.6            # the rough rule: excess variation across the queries (a lower bound) this share of N ...
ROUGH_LINE_MAX = 0.25      # ... no line of cells above this share (an upper bound) ...
ROUGH_SNR_MIN = 1.0        # ... small queries over cells holding this many noise scales, N_EPS_MIN <= N eps < QUAD
NNLS_STOP_SDS = 2.0        # the corner rules' tree stops at this many noise sds (docs/decisions/early-stop.md)
HYBRID_PLAN_N_EPS = 5e4    # from this N eps the hybrid's count levels are planned for a workload


@dataclass(frozen=True)
class Facts:
    """What the rules may read: public values (epsilon, the resolution, the workload's shape) and noisy facts
    (post-processing of released counts). NaN: not bought (no rule still to be read needed it)."""

    epsilon: float
    resolution: int
    n: float                             # public N or a noisy count
    spread: float = math.nan             # noisy occupied cells / the cells an even spread of n points would occupy
    _: KW_ONLY
    spread_floor: float = math.nan       # the spread three noise scales lower: a lower bound
    corner_share: float = 0.0            # (noisy largest corner cell of the release grid - 3 scales) / n
    coarse_corner_share: float = 0.0     # the same for the corner cells of the 256 x 256 grid
    line_share: float = 0.0              # lower bound of the fullest row or column of cells' share of n (0: not bought)
    line_ceiling: float = math.nan       # the fullest line of cells' share of n, three noise scales higher
    workload_side: float = math.nan      # public: the workload's median longer side in cells of that grid
    workload_thin: float = math.nan      # public: its median shorter side
    workload_density: float = math.nan   # noisy points in the cells the workload touches, per such cell
    fine_floor: float = math.nan         # excess variation across the queries over n, three noise scales lower
    edge_floor: float = math.nan         # excess variation along a corner's edges over n, three noise scales lower

    @property
    def n_eps(self) -> float:
        return self.n * self.epsilon

    @property
    def cell_snr(self) -> float:
        """Points per cell the workload touches, in noise scales (1 / epsilon): density x epsilon."""
        return self.workload_density * self.epsilon

    @property
    def thin(self) -> bool:
        """Long thin queries (public): median shorter side <= ``THIN_SIDE`` cells, longer > ``SMALL_SIDE``."""
        return thin_shape(self.workload_side, self.workload_thin)

    @property
    def corner(self) -> float:
        """The larger corner share (release grid or 256 x 256 grid)."""
        return max(self.corner_share, self.coarse_corner_share)


@dataclass(frozen=True)
class Rule:
    """One rule of the plan. ``when`` says the condition in words (its thresholds), ``applies`` tests it on the
    facts, ``plain`` is the sentence a release says, ``evidence`` links the study that measured the rule."""

    name: str
    reads: tuple[str, ...]          # the facts (fields of :class:`Facts`) the condition reads
    when: str
    applies: Callable[[Facts], bool]
    method: str
    plain: str
    evidence: str
    nonnegative: bool = False       # NNLS over the chosen method's released counts (post-processing)
    split_grid: int | None = None   # the chosen method splits on this public grid first
    stop_sds: float | None = None   # the chosen method's stop floor in noise sds (None: its default)
    workload_row: bool = False      # reads the workload: read first, before the facts only later rules read

    def options(self) -> dict[str, object]:
        """The build options the pick adds to the method's defaults."""
        kw: dict[str, object] = {"nonnegative": True} if self.nonnegative else {}
        if self.split_grid is not None:
            kw["split_grid"] = self.split_grid
        if self.stop_sds is not None:
            kw["stop_sds"] = self.stop_sds
        return kw

    @property
    def label(self) -> str:
        return self.method + ("+nnls" if self.nonnegative else "") + (f"/{self.split_grid}" if self.split_grid else "")


def thin_shape(side: float, thin: float) -> bool:
    """Long thin queries (public): median shorter side <= ``THIN_SIDE`` cells, median longer side > ``SMALL_SIDE``."""
    return thin <= THIN_SIDE and side > SMALL_SIDE


def reads_spread(n: float, epsilon: float) -> bool:
    """Whether a rule can read the spread: only from N eps = ``N_EPS_MIN``."""
    return n * epsilon >= N_EPS_MIN


def reads_rough(f: Facts) -> bool:
    """Whether the rough rule can apply before its own facts are read: small queries over cells holding >=
    ``ROUGH_SNR_MIN`` noise scales or long thin ones, and N eps in [``N_EPS_MIN``, ``QUAD_N_EPS_MIN``)."""
    shape = f.thin or (f.workload_side <= SMALL_SIDE and f.cell_snr >= ROUGH_SNR_MIN)
    return shape and N_EPS_MIN <= f.n_eps < QUAD_N_EPS_MIN


def reads_heaped(f: Facts) -> bool:
    """Whether the heaped rule can apply before its fact is read: long thin queries, a corner cell (either grid)
    >= ``CORNER_SHARE_MIN`` of N and N eps in [``HEAPED_N_EPS_MIN``, ``CORNER_THIN_N_EPS_MIN``)."""
    return f.thin and f.corner >= CORNER_SHARE_MIN and HEAPED_N_EPS_MIN <= f.n_eps < CORNER_THIN_N_EPS_MIN


def reads_line(f: Facts) -> bool:
    """Whether the lines rule can apply before its fact is read: below ``LINES_N_EPS_MAX`` and no corner atom."""
    return f.n_eps < LINES_N_EPS_MAX and not f.corner >= CORNER_SHARE_MIN


STRATEGY_WORDS = "so auto measured the answers planned for exactly those queries."
WORKLOAD = "docs/decisions/workload-strategy.md"
AUTO = "docs/decisions/auto-rule.md"

RULES: tuple[Rule, ...] = (
    Rule("small-queries", ("workload_side", "workload_density"),
         f"a workload of small queries (median longer side <= {SMALL_SIDE} cells of the {FEATURE_SIDE} x "
         f"{FEATURE_SIDE} grid) over cells holding >= {CELL_SNR_MIN:g} noise scales of points on average",
         lambda f: f.workload_side <= SMALL_SIDE and f.cell_snr >= CELL_SNR_MIN, "strategy",
         f"Your queries are small and the cells they cover hold many points, {STRATEGY_WORDS}",
         f"{WORKLOAD}#auto-s-workload-row", workload_row=True),
    Rule("thin-spread", ("workload_side", "workload_thin", "spread_floor", "n"),
         f"a workload of long thin queries (median shorter side <= {THIN_SIDE} cells, longer side > {SMALL_SIDE}) "
         f"over data with spread >= {THIN_SPREAD_MIN:g} (three noise scales below the noisy value) and N eps >= "
         f"{THIN_N_EPS_MIN:g}",
         lambda f: f.thin and f.spread_floor >= THIN_SPREAD_MIN and f.n_eps >= THIN_N_EPS_MIN, "strategy",
         f"Your queries are long and thin and the points fill much of the map, {STRATEGY_WORDS}",
         f"{WORKLOAD}#long-thin-queries", workload_row=True),
    Rule("thin-fine", ("workload_side", "workload_thin", "fine_floor", "spread_floor", "n"),
         f"a workload of long thin queries over structure finer than two cells across them (excess variation >= "
         f"{FINE_MIN:g} of N, three noise scales below the noisy value), spread >= {FINE_SPREAD_MIN:g} (its lower "
         f"bound) and N eps >= {FINE_N_EPS_MIN:g}",
         lambda f: (f.thin and f.fine_floor >= FINE_MIN and f.spread_floor >= FINE_SPREAD_MIN
                    and f.n_eps >= FINE_N_EPS_MIN), "strategy",
         "Your queries are long and thin, the points change from one row to the next and there are many of them, "
         f"{STRATEGY_WORDS}", f"{WORKLOAD}#fine-structure-across-thin-queries", workload_row=True),
    Rule("thin-fine-mid", ("workload_side", "workload_thin", "fine_floor", "spread_floor", "line_ceiling", "n"),
         f"a workload of long thin queries over structure finer than two cells across them (excess variation >= "
         f"{FINE_MIN:g} of N, three noise scales below the noisy value), spread >= {FINE_SPREAD_MIN:g} (its lower "
         f"bound), no row or column of cells holding more than {FINE_LINE_MAX:g} of N (three noise scales above) and "
         f"{QUAD_N_EPS_MIN:g} <= N eps < {FINE_N_EPS_MIN:g}",
         lambda f: (f.thin and QUAD_N_EPS_MIN <= f.n_eps < FINE_N_EPS_MIN and f.fine_floor >= FINE_MIN
                    and f.spread_floor >= FINE_SPREAD_MIN and f.line_ceiling <= FINE_LINE_MAX), "strategy",
         "Your queries are long and thin and the points change from one row to the next, with no row holding more "
         f"than a fifth of them, {STRATEGY_WORDS}", f"{WORKLOAD}#between-the-rough-and-the-fine-rows",
         workload_row=True),
    Rule("thin-corner", ("workload_side", "workload_thin", "corner_share", "coarse_corner_share", "n"),
         f"a workload of long thin queries and a corner cell (of the release's grid or the {FEATURE_SIDE} x "
         f"{FEATURE_SIDE} grid) >= {CORNER_SHARE_MIN:g} of N, N eps >= {CORNER_THIN_N_EPS_MIN:g}",
         lambda f: f.thin and f.n_eps >= CORNER_THIN_N_EPS_MIN and f.corner >= CORNER_SHARE_MIN, "privtree",
         "Your queries are long and thin and many points sit in one corner of the map, so auto used PrivTree, which "
         "splits finely along the lines that run from that corner.",
         f"{WORKLOAD}#an-atom-in-a-corner-given-thin-queries", workload_row=True),
    Rule("rough", ("workload_side", "workload_thin", "workload_density", "fine_floor", "line_ceiling", "n"),
         f"a workload of small queries over cells holding >= {ROUGH_SNR_MIN:g} noise scale of points or of long thin "
         f"queries, over structure finer than two cells across them (excess variation >= {ROUGH_MIN:g} of N summed "
         f"over the sides the queries are narrow across, three noise scales below the noisy value), no row or column "
         f"of cells holding more than {ROUGH_LINE_MAX:g} of N (three noise scales above) and {N_EPS_MIN:g} <= N eps "
         f"< {QUAD_N_EPS_MIN:g}",
         lambda f: reads_rough(f) and f.fine_floor >= ROUGH_MIN and f.line_ceiling <= ROUGH_LINE_MAX, "strategy",
         "Your queries are small or thin and the points sit on some rows of cells and not on their neighbours, "
         f"{STRATEGY_WORDS}", f"{WORKLOAD}#structure-finer-than-the-leaves", workload_row=True),
    Rule("heaped", ("workload_side", "workload_thin", "corner_share", "coarse_corner_share", "edge_floor", "n"),
         f"a workload of long thin queries over lines heaped on a few values from a corner cell (of either grid) "
         f">= {CORNER_SHARE_MIN:g} of N: excess variation along the edges through a corner >= {HEAPED_MIN:g} of N "
         f"(three noise scales below the noisy value), {HEAPED_N_EPS_MIN:g} <= N eps < {CORNER_THIN_N_EPS_MIN:g}",
         lambda f: reads_heaped(f) and f.edge_floor >= HEAPED_MIN, "privtree",
         "Your queries are long and thin, many points sit in one corner of the map and the others on a few values "
         "along its edges, so auto used PrivTree, which splits finely where those values lie.",
         f"{WORKLOAD}#heaped-lines-from-a-corner-atom", workload_row=True),
    Rule("corner", ("corner_share",), f"a corner cell >= {CORNER_SHARE_MIN:g} of N",
         lambda f: f.corner_share >= CORNER_SHARE_MIN, "hybrid",
         "Many points sit in one corner of the map, so auto used the hybrid tree, which cuts that corner out, and "
         "cleared the noise spread over the empty rest.", AUTO, nonnegative=True, stop_sds=NNLS_STOP_SDS),
    Rule("coarse-corner", ("coarse_corner_share",),
         f"a corner cell of the {FEATURE_SIDE} x {FEATURE_SIDE} grid >= {CORNER_SHARE_MIN:g} of N",
         lambda f: f.coarse_corner_share >= CORNER_SHARE_MIN, "hybrid",
         "Many points sit in one corner cell of the map, so auto used the hybrid tree on the 256 x 256 grid, which "
         "cuts that cell out, and cleared the noise spread over the empty rest.",
         f"{AUTO}#the-coarse-corner-row-revised-the-hybrid-splitting-on-the-256-x-256-grid-first",
         nonnegative=True, split_grid=FEATURE_SIDE, stop_sds=NNLS_STOP_SDS),
    Rule("lines", ("line_share", "n"),
         f"a row or column of cells of the {FEATURE_SIDE} x {FEATURE_SIDE} grid >= {LINE_SHARE_MIN:g} of N and N eps "
         f"< {LINES_N_EPS_MAX:g}", lambda f: f.line_share >= LINE_SHARE_MIN and f.n_eps < LINES_N_EPS_MAX, "lines",
         "Most points lie on a few lines across the map, so auto found those lines and split each along its "
         "length.", "docs/decisions/few-lines.md"),
    Rule("ag", ("spread", "n"), f"spread >= {SPREAD_MIN:g} and N eps >= {N_EPS_MIN:g}",
         lambda f: f.spread >= SPREAD_MIN and f.n_eps >= N_EPS_MIN, "ag",
         "The points fill most of the map, so auto used the adaptive grid, which does best on evenly spread data.",
         AUTO),
    Rule("quadtree", ("n",), f"N eps >= {QUAD_N_EPS_MIN:g}", lambda f: f.n_eps >= QUAD_N_EPS_MIN, "quadtree",
         "There are many points for this budget, so auto used the quadtree, whose fixed cells are accurate "
         "wherever the data are dense enough to fill them.", AUTO),
    Rule("privtree", (), "any other data", lambda f: True, "privtree",
         "The points crowd into some places and leave others empty, so auto used PrivTree, which splits the map "
         "only where there are points.", AUTO),
)
