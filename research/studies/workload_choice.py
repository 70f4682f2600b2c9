"""Which wins on a publisher's workload, auto's pick planned for it or the workload strategy: synthetic families
(never the DPBench files), workloads by the narrow side of their queries.

For each family, N and epsilon: auto's pick by its other rows (the workload row, which this study is the
evidence for, taken out) given the workload where the pick plans for one, and the strategy method given it;
mean relative error over the workload (floor 0.001 N), one run each,
resolution 8 (the families' precision). Workloads: 200 random rectangles (DPBench's protocol), 1,000 squares of
side s cells centred on data points (s = 2, 4, 8, 16), 1,000 row prefixes (one cell tall, from the left edge).

``--set lumpy``: the families with structure finer than a few cells (``lumpy_families.py``: roads, towns, a
discretised attribute), N = 2 x 10^4, 2 x 10^5 and 2 x 10^6, with the workloads of the sparse set and squares of 2.

``--set sparse``: the sparse families instead (the zero-inflated pairs of ``bench_auto_rule.families`` and the
first four few-lines members per N of ``bench_lines.configs``), N = 2 x 10^4, 2 x 10^5 and 10^6, with the random
rectangles, the row prefixes, their transpose (column prefixes) and squares of 4 cells.

    python research/studies/workload_choice.py > research/studies/workload_choice.md
    python research/studies/workload_choice.py --set sparse > research/studies/workload_choice_sparse.md
    python research/studies/workload_choice.py --set lumpy > research/studies/workload_choice_lumpy.md
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_auto_rule import families  # noqa: E402
from bench_dpbench import DOMAIN, queries  # noqa: E402
from bench_lines import configs  # noqa: E402
from lumpy_families import lumpy_sets  # noqa: E402

import psdviz as pv  # noqa: E402
from psdviz.lab.metrics import relative_error  # noqa: E402
from psdviz.lab.synthetic import few_lines  # noqa: E402
from psdviz.methods import auto  # noqa: E402


def squares(pts: np.ndarray, side: int, rng: np.random.Generator) -> np.ndarray:
    c = np.floor(pts[rng.integers(0, len(pts), 1000)])
    lo = np.clip(c - side // 2, 0, 256 - side)
    return np.column_stack([lo, lo + side])


def row_prefixes(rng: np.random.Generator) -> np.ndarray:
    i, j = rng.integers(0, 256, 1000), rng.integers(1, 257, 1000)
    return np.column_stack([np.zeros(1000), i, j, i + 1]).astype(float)


def sparse_sets(n: int) -> list[tuple[str, np.ndarray]]:
    """The zero-inflated pairs and four few-lines members at ``n`` points."""
    sets = families(n, np.random.default_rng(n))[7:]
    for k, c in enumerate(configs(n)[:4]):
        name = (f"few lines {c['lines']} share={c['share']:g} {c['profile']}{' edge' if c['edge'] else ''} "
                f"{'columns' if c['vertical'] else 'rows'}")
        sets.append((name, few_lines(n, DOMAIN, np.random.default_rng(n + k), **c)))
    return sets


def workloads(pts: np.ndarray, which: str) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1)
    loads = {"random rectangles": queries(), "row prefixes": row_prefixes(rng)}
    if which in ("sparse", "lumpy"):
        loads["column prefixes"] = loads["row prefixes"][:, [1, 0, 3, 2]]
        loads["squares 4"] = squares(pts, 4, rng)
        if which == "lumpy":
            loads["squares 2"] = squares(pts, 2, rng)
    else:
        loads.update({f"squares {s}": squares(pts, s, rng) for s in (2, 4, 8, 16)})
    return loads


def main() -> int:
    which = sys.argv[2] if sys.argv[1:2] == ["--set"] else "families"
    sets = {"sparse": sparse_sets, "lumpy": lumpy_sets,
            "families": lambda n: families(n, np.random.default_rng(n))[:7]}[which]
    # the pick the workload rows compete with; set here, not on import, so that scripts importing the helpers
    # above measure auto as it is
    auto.RULES = tuple(r for r in auto.RULES if r.method != "strategy")
    print("| family | N | eps | workload | longer side (median cells) | points per cell the workload touches x eps "
          "| pick | pick+W MRE | strategy MRE | strategy / pick |")
    print("|---|---:|---:|---|---:|---:|---|---:|---:|---:|")
    for n in (20_000, 200_000, 1_000_000) if which == "sparse" else (20_000, 200_000, 2_000_000):
        for label, pts in sets(n):
            loads = workloads(pts, which)
            index = pv.PointIndex(pts)
            hist = np.histogram2d(pts[:, 0], pts[:, 1], bins=256, range=[[0, 256]] * 2)[0]
            for name, w in loads.items():
                w = w.astype(float)
                w[:, [2, 3]] = np.maximum(w[:, [2, 3]], w[:, [0, 1]] + 1)
                truth = index.count(w)
                touched = np.zeros((256, 256), bool)
                for x0, y0, x1, y1 in w.astype(int):
                    touched[x0:x1, y0:y1] = True
                density = hist[touched].sum() / touched.sum()
                side = float(np.median(np.maximum(w[:, 2] - w[:, 0], w[:, 3] - w[:, 1])))
                for eps in (0.1, 1.0):
                    out, pick = {}, ""
                    for m in ("auto", "strategy"):
                        rel = pv.build(pts, DOMAIN, m, eps, seed=3, resolution=8, workload=w)
                        out[m] = float(np.mean(relative_error(rel.answer(w), truth, n)))
                        pick = rel.params.get("chosen", pick)
                    print(f"| {label} | {n} | {eps:g} | {name} | {side:g} | {density * eps:.3g} | {pick} | "
                          f"{out['auto']:.4g} | "
                          f"{out['strategy']:.4g} | {out['strategy'] / out['auto']:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
