"""Presets for the accuracy lab: each paper's headline comparison, expressed as data.

A preset names its source, the method variants (registry name + parameters), the epsilons and a
workload. Query sizes are stated relative to the public domain so that a preset runs on whatever
data is loaded; :meth:`Preset.workload` turns them into data units. Readings chosen where the
papers leave room:

- ICDE'12 (Cormode et al.) section 8.2, Fig. 3 and Fig. 5: the paper's shapes (1,1), (5,5),
  (10,10) and (15,0.2) are in degrees on a 21.82 x 17.67 degree domain (TIGER WA+NM); we keep their
  share of the domain's width and height. Fig. 3: quadtrees of height 10, uniform vs geometric
  budget, with or without OLS. Fig. 5: kd-trees of height 8 pruned at noisy count 32
  (``prune=32``); the cell length 0.01 of kd-cell is left at that method's own default.
- Qardaji et al. (ICDE'13), "Experiment" slide: 6 query sizes, 200 queries each, epsilon 0.1 and
  1. The slides do not list the sizes; we use squares whose side is 1/2^k of the domain's side,
  k = 1..6, placed uniformly (our reading). Methods: UG, AG, KD-standard, KD-hybrid.
- DPBench (Hay et al. SIGMOD'16) 2-D protocol, as in ``benchmarks/bench_dpbench.py``: its fixed 200
  grid-aligned queries on a 256 x 256 grid over the domain, epsilon 0.1 and 1, error floor 0.001 N;
  load one of the DPBench .npy histograms (points placed uniformly in their cells) or any points.
  The lab builds at the default resolution (20), the benchmark table at 8 (the files' precision).
- Private h-tree (section 5): epsilon in {0.1, 0.4, 0.7, 1}, query areas {1, 2, 4, 8} km^2 on
  city-scale data. On loaded data we use centred squares whose areas double likewise,
  {1, 2, 4, 8} x 10^-4 of the domain (our reading), compared with UG, AG, KD and the quadtree.

A variant is offered only when its method is registered (``psdviz.METHODS`` or, for the labelled
non-private references such as kd-pure/kd-true, ``psdviz.REFERENCES``) and accepts the preset's
parameters; :func:`resolve` reports what it left out.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..core.domain import Domain
from ..methods.registry import methods, parameters, references
from .compare import Variant, Workload, variant

ICDE_DOMAIN = (21.82, 17.67)  # TIGER WA+NM extent in degrees (ICDE'12 section 8.1)
ICDE_SHAPES = ((1.0, 1.0), (5.0, 5.0), (10.0, 10.0), (15.0, 0.2))


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    source: str
    description: str
    variants: tuple[Variant, ...]
    epsilons: tuple[float, ...]
    kind: str                              # "shape", "centered" or "dpbench"
    relative_sizes: tuple[tuple[float, float], ...]  # shape: (w, h) shares of the domain; centred: (area, aspect)
    queries: int = 200

    def workload(self, domain: Domain, queries: int | None = None) -> Workload:
        """The workload in the loaded domain's units."""
        if self.kind == "dpbench":
            return Workload(self.kind, self.relative_sizes, queries or self.queries, nonempty=False)
        if self.kind == "shape":
            sizes = tuple((a * domain.width, b * domain.height) for a, b in self.relative_sizes)
        else:
            sizes = self.relative_sizes
        return Workload(self.kind, sizes, queries or self.queries, nonempty=True)


def _icde_shapes() -> tuple[tuple[float, float], ...]:
    return tuple((w / ICDE_DOMAIN[0], h / ICDE_DOMAIN[1]) for w, h in ICDE_SHAPES)


PRESETS: dict[str, Preset] = {p.name: p for p in (
    Preset(
        "icde12-fig3", "Quadtree optimisations (ICDE'12 Fig. 3)",
        "Cormode et al., Differentially private spatial decompositions, ICDE 2012, section 8.2, Fig. 3",
        "Geometric budget and OLS post-processing each cut the error; together by up to 10x at small epsilon.",
        (variant("quad-baseline", "quadtree", height=10, budget="uniform", postprocess=False, prune=None),
         variant("quad-geo", "quadtree", height=10, budget="geometric", postprocess=False, prune=None),
         variant("quad-post", "quadtree", height=10, budget="uniform", postprocess=True, prune=None),
         variant("quad-opt", "quadtree", height=10, budget="geometric", postprocess=True, prune=None)),
        (0.1, 0.5, 1.0), "shape", _icde_shapes(), 600),
    Preset(
        "icde12-fig5", "kd-tree variants (ICDE'12 Fig. 5)",
        "Cormode et al., ICDE 2012, section 8.2, Fig. 5 (kd-trees of height 8, pruning threshold 32)",
        "Private medians cost more accuracy than noisy counts; kd-hybrid is the most reliable.",
        (variant("kd-standard", "kdtree", height=8, prune=32),
         variant("kd-hybrid", "hybrid", height=8, switch=4, prune=32),
         variant("kd-cell", "kd-cell", height=8, prune=32),
         variant("kd-noisymean", "kd-noisymean", height=8, prune=32),
         variant("kd-true", "kd-true", height=8, prune=32),
         variant("kd-pure", "kd-pure", height=8, prune=32)),
        (0.1, 0.5, 1.0), "shape", _icde_shapes(), 600),
    Preset(
        "qardaji13-grids", "Uniform vs adaptive grids (Qardaji et al. ICDE'13)",
        "Qardaji, Yang, Li, Differentially private grids for geospatial data, ICDE 2013, Experiment",
        "UG with m = sqrt(N eps / 10) is hard to beat; AG (two levels) beats it and the kd-trees.",
        (variant("UG", "ug"), variant("AG", "ag"), variant("KD-standard", "kdtree"),
         variant("KD-hybrid", "hybrid")),
        (0.1, 1.0), "shape", tuple((0.5 ** k, 0.5 ** k) for k in range(1, 7)), 200),
    Preset(
        "dpbench", "DPBench protocol (Hay et al. SIGMOD'16; docs/reproduction/dpbench.md)",
        "Hay, Machanavajjhala, Miklau, Chen, Zhang, Principled evaluation of differentially private algorithms "
        "using DPBench, SIGMOD 2016: 2-D protocol (200 grid-aligned random queries, epsilon 0.1 and 1)",
        "PrivTree is psdviz's best method on most cells; auto picks it on four real files, the hybrid with NNLS on "
        "ADULT-2D (an atom cell) and AG on the spread synthetic set.",
        (variant("auto", "auto"), variant("PrivTree", "privtree"), variant("kd-privtree", "kd-privtree"),
         variant("AG", "ag"), variant("UG", "ug"),
         variant("quad-opt", "quadtree"), variant("kd-standard", "kdtree"), variant("kd-hybrid", "hybrid"),
         variant("h-tree", "htree")),
        (0.1, 1.0), "dpbench", ((256.0, 256.0),), 200),
    Preset(
        "htree-outliers", "h-tree on sparse data with outliers (private h-tree paper)",
        "Private h-tree paper, section 5 (Experimental Results): eps in {0.1, 0.4, 0.7, 1}, 4 query sizes",
        "Data with outliers and empty space: the h-tree's private splits waste fewer cells than grids.",
        (variant("h-tree", "htree"), variant("UG", "ug"), variant("AG", "ag"),
         variant("kd-standard", "kdtree"), variant("quadtree", "quadtree")),
        (0.1, 0.4, 0.7, 1.0), "centered", tuple((f * 1e-4, 1.0) for f in (1, 2, 4, 8)), 250),
)}


def resolve(preset: Preset) -> tuple[list[Variant], list[str]]:
    """The preset's variants that can run now, and a note for each one left out."""
    registered = set(methods()) | set(references())
    keep, notes = [], []
    for v in preset.variants:
        if v.method not in registered:
            notes.append(f"{v.label}: method {v.method!r} is not available yet")
            continue
        try:
            accepted = set(parameters(v.method))
        except (ImportError, AttributeError) as exc:  # a method registered before its module landed
            notes.append(f"{v.label}: method {v.method!r} cannot be loaded ({exc})")
            continue
        unknown = sorted(set(v.kwargs) - accepted)
        if unknown:
            notes.append(f"{v.label}: method {v.method!r} has no parameter(s) {unknown}")
            continue
        keep.append(v)
    return keep, notes
