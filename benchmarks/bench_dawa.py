"""The dawa method on the DPBench protocol, beside DAWA-2D with its partition's noise x4 (../shared/dpbench/peers.md).

The five DPBench files, the protocol of ``benchmarks/bench_dpbench.py`` (points placed uniformly inside their
cells, fresh per run; the 200 protocol rectangles; MRE with the floor 0.001 N; resolution 8), epsilon 0.1 and 1,
``runs`` runs (default 5). Columns: ``dawa`` without a workload, ``dawa+W`` given the 200 test queries as its
workload (as DAWA-2D is), DAWA x4 (DAWA-2D from dpcomp_core, given the same queries, its partition's noise
multiplied by 4; 3 runs, peers.md), the ratio dawa+W / DAWA x4 against the 1.1x target; for context auto and
auto+W from docs/reproduction/dpbench.md (10 runs) and the published DAWA-2D (not epsilon-DP as implemented).

Two diagnostics close the table. "published calibration" is dawa without a workload with its partition swapped for
the published calibration in the same dyadic form (mean deviations, Laplace (2 - 1/len - 1/n) / eps1 on windows of
two cells or more, none on single cells, every level a candidate, the clamp): not epsilon-DP (the audit), shown
for the accuracy the honest calibration costs. The last column is dawa+W's cell estimates truncated toward zero,
as dpcomp_core's DAWA-2D stores its 2-D estimate (``hatx2d = numpy.zeros([d, d], dtype='int32')``): the peer's
figures include that cast, which zeroes every cell whose estimate is below 1 (docs/decisions/dawa.md). Neither is a
psdviz option.

Writes docs/reproduction/dawa.md (and re-assembles docs/reproduction.md).

    python benchmarks/bench_dawa.py [runs]
"""
from __future__ import annotations

import platform
import re
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_dpbench import DOMAIN, DPBENCH, FILES, load_hist, place, queries, truth  # noqa: E402
from reproduction import publish_section  # noqa: E402

import psdviz as pv  # noqa: E402
from psdviz.core.noise import geometric_noise  # noqa: E402
from psdviz.lab.metrics import relative_error  # noqa: E402
from psdviz.splits.hilbert_curve import encode  # noqa: E402
from psdviz.splits.l1_partition import dyadic_cover  # noqa: E402

OUT = ROOT / "docs" / "reproduction" / "dawa.md"
DPBENCH_MD = ROOT / "docs" / "reproduction" / "dpbench.md"
EPSILONS = (0.1, 1.0)
TARGET = 1.1
SHORT = {"Adult_2D": "Adult_2D_256_256", "checkin": "checkin_256_256", "BeijingTaxiE": "BeijingTaxiE_256_256",
         "cabspottingS": "cabspottingS_256_256", "Stroke_2D": "Stroke_2D_256_256"}


def dawa_peers(path: Path = DPBENCH / "peers.md") -> dict:
    """{file: {"published": (eps 0.1, eps 1), "x4": (eps 0.1, eps 1)}} from peers.md's DAWA x4 table."""
    out = {}
    for line in path.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0] in SHORT:
            pub01, x401, pub1, x41 = (float(c) for c in cells[1:])
            out[SHORT[cells[0]]] = {"published": (pub01, pub1), "x4": (x401, x41)}
    return out


def auto_figures(path: Path = DPBENCH_MD) -> dict:
    """{(file, label): (eps 0.1 MRE, eps 1 MRE)} for auto and auto+W from docs/reproduction/dpbench.md."""
    out, current = {}, None
    for line in path.read_text().splitlines():
        m = re.match(r"### (\S+)", line)
        if m:
            current = m.group(1)
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if current in FILES and len(cells) >= 3 and cells[0] in ("auto", "auto+W"):
            out[(current, cells[0])] = tuple(float(c.split()[0]) for c in cells[1:3])
    return out


def unit_cells() -> np.ndarray:
    """The 256 x 256 unit cells of the protocol's domain, row-major over the first axis."""
    i, j = np.meshgrid(np.arange(256.0), np.arange(256.0), indexing="ij")
    return np.column_stack([i.ravel(), j.ravel(), i.ravel() + 1, j.ravel() + 1])


def published_calibration(hist: np.ndarray, eps: float, rng: np.random.Generator, ratio: float = 0.25) -> np.ndarray:
    """Cell estimates of dawa without a workload whose partition uses the published calibration (module docstring;
    not epsilon-DP): the buckets' counts with geometric noise at eps2, spread evenly."""
    i, j = np.meshgrid(np.arange(256), np.arange(256), indexing="ij")
    pos = encode(8, i.ravel(), j.ravel())
    x = np.zeros(pos.size)
    x[pos] = hist.ravel()
    eps1, eps2 = ratio * eps, (1 - ratio) * eps
    scores = [np.full((1, x.size), 1 / eps2)]
    for k in range(1, 17):
        blocks = x.reshape(-1, 1 << k)
        dev = np.abs(blocks - blocks.mean(axis=1, keepdims=True)).sum(axis=1)
        noise = rng.laplace(0, (2 - 2.0 ** -k - 1 / x.size) / eps1, dev.size)
        scores.append(np.maximum(dev + 1 / eps2 + noise, 1 / eps2)[None, :])
    starts, sizes = [], []
    for k, b in enumerate(dyadic_cover(scores)):
        starts.append(np.flatnonzero(b[0]) << k)
        sizes.append(np.full(int(b.sum()), 1 << k))
    order = np.argsort(np.concatenate(starts))
    start, size = np.concatenate(starts)[order], np.concatenate(sizes)[order]
    counts = np.add.reduceat(x, start) + geometric_noise(rng, start.size, eps2)
    est = np.repeat(counts / size, size)
    return est[pos].reshape(256, 256)


def run(runs: int) -> dict:
    """{(file, eps): {label: [MRE per run]}, ...} and build CPU seconds per label."""
    q, cells = queries(), unit_cells()
    res: dict = {}
    for name in FILES:
        hist = load_hist(name)
        n, t = hist.sum(), truth(hist, q)
        for r in range(runs):
            pts = place(hist, np.random.default_rng(1000 + r))
            for eps in EPSILONS:
                row = res.setdefault((name, eps), {"dawa": [], "dawa+W": [], "cast": [], "published": [], "cpu": []})
                for label, extra in (("dawa", {}), ("dawa+W", {"workload": q})):
                    t0 = time.process_time()
                    rel = pv.build(pts, DOMAIN, "dawa", eps, seed=10_000 * r + int(eps * 10), resolution=8, **extra)
                    row["cpu"].append(time.process_time() - t0)
                    row[label].append(float(np.mean(relative_error(rel.answer(q), t, n))))
                est = np.trunc(rel.answer(cells)).reshape(256, 256)          # dawa+W's cells, cast as the peer does
                row["cast"].append(float(np.mean(relative_error(truth(est, q), t, n))))
                pub = published_calibration(hist, eps, np.random.default_rng(10_000 * r + int(eps * 10)))
                row["published"].append(float(np.mean(relative_error(truth(pub, q), t, n))))
                print(f"{name:22s} eps {eps:<4g} run {r}: dawa {row['dawa'][-1]:.4f}  dawa+W {row['dawa+W'][-1]:.4f}  "
                      f"cast {row['cast'][-1]:.4f}", flush=True)
    return res


def table(res: dict, runs: int) -> str:
    peers, auto = dawa_peers(), auto_figures()
    head = ["| file | eps | dawa | dawa+W | DAWA x4 | dawa+W / x4 | within 1.1x | auto | auto+W | "
            "DAWA-2D published | dawa, published calibration | dawa+W, cells cast to int |",
            "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|"]
    rows, ratios = [], []
    for (name, eps), row in res.items():
        k = EPSILONS.index(eps)
        x4, pub = peers[name]["x4"][k], peers[name]["published"][k]
        w = float(np.mean(row["dawa+W"]))
        ratio = w / x4
        ratios.append(ratio)
        a, aw = auto.get((name, "auto")), auto.get((name, "auto+W"))
        rows.append(f"| {name} | {eps:g} | {np.mean(row['dawa']):.4f} ({np.std(row['dawa']):.4f}) | {w:.4f} "
                    f"({np.std(row['dawa+W']):.4f}) | {x4:.4f} | {ratio:.2f} | {'yes' if ratio <= TARGET else 'NO'} | "
                    f"{'-' if a is None else f'{a[k]:.4f}'} | {'-' if aw is None else f'{aw[k]:.4f}'} | {pub:.4f} | "
                    f"{np.mean(row['published']):.4f} | {np.mean(row['cast']):.4f} |")
    cpu = np.mean([c for row in res.values() for c in row["cpu"]])
    met = sum(r <= TARGET for r in ratios)
    lines = ["## dawa on the DPBench protocol, beside DAWA-2D x4", "",
             f"_Generated by `python benchmarks/bench_dawa.py {runs}` ({platform.machine()}, Python "
             f"{platform.python_version()}, numpy {np.__version__}); do not edit by hand._ Protocol: "
             "`../shared/dpbench/` (resolution 8, the 200 protocol rectangles, MRE with the floor 0.001 N), "
             f"{runs} runs, mean (standard deviation) of the runs' MRE. dawa+W is given the 200 rectangles as its "
             "workload, as DAWA-2D is. DAWA x4 and DAWA-2D published: ../shared/dpbench/peers.md (dpcomp_core's "
             "DAWA-2D, 3 runs; published: not epsilon-DP as implemented, [the audit](dawa_audit.md); x4: its "
             "partition's noise multiplied by 4). auto and auto+W: [dpbench.md](dpbench.md) (10 runs). Two "
             "diagnostics, neither a psdviz option: 'dawa, published calibration' is dawa without a workload "
             "with its partition calibrated as published (dyadic form, not epsilon-DP): what the honest "
             "calibration costs; the last column truncates dawa+W's cell estimates toward zero as dpcomp_core's "
             "DAWA-2D does when it stores its estimate in an int32 array, a part of the peer's figures "
             "(docs/decisions/dawa.md).", "",
             f"dawa+W within {TARGET}x of DAWA x4 in {met} of {len(ratios)} cells; worst ratio {max(ratios):.2f}; "
             f"geometric mean {np.exp(np.mean(np.log(ratios))):.2f}. Mean build CPU {cpu:.2f} s.", "", *head, *rows]
    return "\n".join(lines)


def main() -> int:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    publish_section(table(run(runs), runs), OUT)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
