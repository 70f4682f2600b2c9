"""Small and long thin queries over structure finer than the trees' leaves, at N eps 10^4-10^5: where the workload
strategy beats auto's other rows, read by the excess variation across the queries and the fullest line of cells.

Reads the three tables of ``workload_choice.py`` (one run each, strategy MRE over the MRE of the pick of auto's other
rows, planned where the pick plans) and keeps the row and column prefixes and the squares over cells holding 1-5
noise scales of points (from 5 the small-queries row applies). For each such cell, the member's exact excess
variation (:func:`psdviz.methods.fine_structure.excess_variation`, across the side the queries are narrow across,
both sides summed for squares) and fullest row or column of cells, both over N, and the readings auto would expect
(the excess three noise scales lower, the line three higher, at a cell fact's epsilon); then what a rule "excess >=
F, line <= L" sends, by band of N eps; and, for the rule auto uses, how often auto's own noisy facts send each cell
(``SEEDS`` draws of :func:`psdviz.methods.auto.measure_facts`), each cell it ever sends measured again (``RUNS``
runs, the present code). The reading is in docs/decisions/workload-strategy.md
("Structure finer than the leaves").

    python research/studies/workload_rough.py > research/studies/workload_rough.md
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import workload_fine as wf  # noqa: E402
from ratios import summary  # noqa: E402
from workload_choice import workloads  # noqa: E402

import psdviz as pv  # noqa: E402
from psdviz.core.domain import prepare_points  # noqa: E402
from psdviz.core.ledger import Ledger  # noqa: E402
from psdviz.core.rng import make_randomness  # noqa: E402
from psdviz.lab.metrics import relative_error  # noqa: E402
from psdviz.methods import auto  # noqa: E402
from psdviz.methods.fine_structure import excess_variation  # noqa: E402

SETS = {"workload_choice.md": "families", "workload_choice_sparse.md": "sparse", "workload_choice_lumpy.md": "lumpy"}
BANDS = ((1e4, 1e5), (1e5, 1e6))
SEEDS = 10
RUNS = 3              # runs a cell when the cells the rule sends are measured again
CELL_SHARE = auto.FEATURE_FRACTION / 2 / auto.CELL_FACTS     # a cell fact's share of epsilon


def cells() -> list[dict]:
    """Every prefix cell and every squares cell at 1-5 noise scales a touched cell, from N eps = 10^4."""
    out, points = [], {}
    for table, which in SETS.items():
        for line in (HERE / table).read_text().splitlines():
            x = [c.strip() for c in line.split("|")]
            if not (len(x) > 10 and x[2].isdigit()):
                continue
            n, eps, wl, snr = int(x[2]), float(x[3]), x[4], float(x[6])
            small = wl.startswith("squares")
            if n * eps < 1e4 or not ("prefixes" in wl or (small and 1 <= snr < auto.CELL_SNR_MIN)):
                continue
            if (x[1], n) not in points:
                points.update({(label, n): pts for label, pts in wf.members(n)})
            out.append({"family": x[1], "n": n, "eps": eps, "workload": wl, "which": which, "snr": snr,
                        "ratio": float(x[-2]), **facts(wf.histogram(points[(x[1], n)]).T, n, eps, wl)})
    return out


def facts(grid: np.ndarray, n: int, eps: float, wl: str) -> dict:
    """Exact excess and line shares on the grid's rows [y, x], and the readings auto expects."""
    axes = (0,) if wl == "row prefixes" else (1,) if wl == "column prefixes" else (0, 1)
    excess = sum(excess_variation(grid, a) for a in axes) / n
    line = max(grid.sum(axis=0).max(), grid.sum(axis=1).max()) / n
    e_cell = CELL_SHARE * eps
    return {"excess": excess, "line": line, "excess_read": excess - 3 * 2 * len(axes) / e_cell / n,
            "line_read": line + 3 / e_cell / n}


def cell_workload(cell: dict, points: np.ndarray) -> np.ndarray:
    """The cell's queries, as ``workload_choice.py`` built them (at least one cell a side)."""
    w = workloads(points, cell["which"])[cell["workload"]].astype(float)
    w[:, [2, 3]] = np.maximum(w[:, [2, 3]], w[:, [0, 1]] + 1)
    return w


def rerun_ratio(cell: dict, points: np.ndarray) -> float:
    """The strategy's MRE over the pick's of auto's other rows (the strategy rows out), ``RUNS`` runs each."""
    w = cell_workload(cell, points)
    truth, n, rows = pv.PointIndex(points).count(w), len(points), auto.RULES
    err = {}
    try:
        auto.RULES = tuple(r for r in rows if r.method != "strategy")
        for m in ("auto", "strategy"):
            err[m] = np.mean([np.mean(relative_error(pv.build(points, wf.DOMAIN, m, cell["eps"], seed=3 + s,
                                                              resolution=8, workload=w).answer(w), truth, n))
                              for s in range(RUNS)])
    finally:
        auto.RULES = rows
    return float(err["strategy"] / err["auto"])


def sent_share(cell: dict, points: np.ndarray) -> float:
    """How often auto's own noisy facts send the cell to the row for structure finer than the leaves."""
    w = cell_workload(cell, points)
    ps = prepare_points(points, wf.DOMAIN, resolution=8)
    shape = auto.workload_cells(w, ps, auto.FEATURE_SIDE)
    rough = next(r for r in auto.RULES if r.when.startswith("a workload of small queries over cells holding >= 1"))
    hits = 0
    for s in range(SEEDS):
        f, _ = auto.measure_facts(ps, cell["eps"], make_randomness(s), Ledger(cell["eps"]), None, shape)
        hits += auto.choose(f) is rough
    return hits / SEEDS


def main() -> int:
    table = cells()
    print("## Cells (exact shares; the readings auto expects: excess three noise scales lower, line three higher)\n")
    print("| family | N | eps | workload | noise scales a cell | excess / N | expected reading | fullest line / N "
          "| expected reading | strategy / pick |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    for c in sorted(table, key=lambda c: (c["n"] * c["eps"], -c["excess_read"])):
        print(f"| {c['family']} | {c['n']} | {c['eps']:g} | {c['workload']} | {c['snr']:.3g} | {c['excess']:.3f} | "
              f"{c['excess_read']:.3f} | {c['line']:.3f} | {c['line_read']:.3f} | {c['ratio']:.2f} |")
    print("\n## Rules on the expected readings\n")
    for lo, hi in BANDS:
        band = [c for c in table if lo <= c["n"] * c["eps"] < hi]
        for f_min in (0.5, 0.6, 0.7):
            for l_max in (0.2, 0.25, 0.3):
                r = np.array([c["ratio"] for c in band if c["excess_read"] >= f_min and c["line_read"] <= l_max])
                print(f"- N eps in [{lo:g}, {hi:g}), excess >= {f_min:g}, line <= {l_max:g}: {summary(r)}")
    print(f"\n## The rule auto uses, on its own noisy facts ({SEEDS} draws a cell, N eps in [10^4, 10^5))\n")
    points: dict = {}
    sent, left, rerun = [], [], []
    for c in table:
        if not auto.N_EPS_MIN <= c["n"] * c["eps"] < auto.QUAD_N_EPS_MIN:
            continue
        if (c["family"], c["n"]) not in points:
            points.update({(label, c["n"]): pts for label, pts in wf.members(c["n"])})
        share = sent_share(c, points[(c["family"], c["n"])])
        (sent if share >= 0.5 else left).append(c["ratio"])
        if share > 0:
            again = rerun_ratio(c, points[(c["family"], c["n"])])
            (rerun if share >= 0.5 else []).append(again)
            print(f"- {c['family']}, N {c['n']}, eps {c['eps']:g}, {c['workload']}: sent in {share:.0%} of draws, "
                  f"strategy / pick {c['ratio']:.2f} (one run), {again:.2f} ({RUNS} runs now)")
    print(f"\nSent in at least half the draws: {summary(np.array(sent))}; left: {summary(np.array(left))}")
    print(f"The cells sent, {RUNS} runs each with the present code: {summary(np.array(rerun))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
