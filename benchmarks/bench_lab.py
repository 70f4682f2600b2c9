"""Timing of the lab computations (prints figures; 2 shared cores: pessimistic).

- Compare: the ICDE'12 Fig. 3 preset (4 quadtree variants x 3 epsilons, 4 shapes x 200 queries,
  1 trial) on the GeoNames sample (145k points), per cell and in total.
- Count of counts: grouping the flights sample and publish() with each page method.
- Sparse: the flights tail x service table (48.7 M cells) and summarize() per method; the query
  comparison of the page (6 sizes x 40 ranges and subsets).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a clone without installing

from psdviz import coco, sparse
from psdviz.coco.sample import flights_table
from psdviz.io.samples import SAMPLES, sample_points
from psdviz.lab import compare as C
from psdviz.lab.presets import PRESETS, resolve
from psdviz.lab.sparse_lab import compare_queries, query_sizes
from psdviz.sparse.sample import flights_sparse_table


def timed(f, *a, **k):
    t = time.perf_counter()
    out = f(*a, **k)
    return out, time.perf_counter() - t


def main() -> None:
    xy, dom = sample_points("geonames"), SAMPLES["geonames"].domain
    p = PRESETS["icde12-fig3"]
    variants, _ = resolve(p)
    wl = p.workload(dom, queries=200)
    qs, tq = timed(C.make_queries, xy, dom, wl, 0)
    print(f"compare: workload {len(qs.truth)} queries with truths: {tq:.2f} s")
    total = tq
    for v in variants:
        for e in p.epsilons:
            df, t = timed(C.run_cell, xy, dom, v, e, qs, 1, 0)
            total += t
            print(f"compare: {v.label:14s} eps {e:<4g} cell {t:.2f} s (build {df.build_seconds.iloc[0]:.2f} s)")
    print(f"compare: Fig. 3 preset total {total:.1f} s")
    (table, h), t = timed(flights_table)
    print(f"coco: flights grouped ({table.n_groups} groups, {h.n_nodes} nodes): {t:.2f} s")
    for m, c in (("naive", "independent"), ("hg", "top-down"), ("hc", "top-down"), ("hc", "bottom-up")):
        _, t = timed(coco.publish, table, None, [0.2, 0.5, 0.5], m, seed=0, consistency=c)
        print(f"coco: publish {m}/{c}: {t:.3f} s")
    st_, t = timed(flights_sparse_table)
    print(f"sparse: flights table m={st_.m:,} n={st_.n:,}: {t:.2f} s")
    for m in ("filter", "threshold", "priority", "filter-priority"):
        rel, t = timed(sparse.summarize, st_, 1.0, m, seed=0)
        print(f"sparse: {m:16s} size {rel.size:,}: {t:.2f} s")
    _, t = timed(compare_queries, rel, st_, query_sizes(st_.m), 40, 0)
    print(f"sparse: page query comparison (6 sizes x 40 ranges + subsets): {t:.2f} s")


if __name__ == "__main__":
    main()
