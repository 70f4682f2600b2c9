"""``psdviz regions``: counts for a layer of regions, from a release file or a region release."""
from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

from ..api import build_regions
from ..errors import ParameterError
from ..releases import load_release
from .inputs import check_input_options, input_counts, load_layer, open_budget, points_input
from .output import print_ledger, region_output, say, warning_line, write_drawn, write_table


def regions_from_release(a: argparse.Namespace) -> int:
    """``psdviz regions --release FILE --regions LAYER --out counts.csv``: an analyst's region counts from
    a published spatial release (post-processing: no data read, no epsilon spent)."""
    suffix = Path(a.out).suffix.lower()
    if suffix not in (".csv", ".parquet"):
        raise ParameterError(f"with --release, --out is the counts table (.csv or .parquet) (got {a.out!r})")
    if a.input is not None:
        raise ParameterError("give either points (INPUT --lon --lat) or --release FILE, not both")
    rel = load_release(a.release)
    if not hasattr(rel, "answer_regions"):
        raise ParameterError(f"{a.release} is not a spatial release: region counts are answered from published cells")
    with warnings.catch_warnings(record=True) as loaded:
        warnings.simplefilter("always")
        layer = load_layer(a)
    say("regions", map(warning_line, loaded))
    from ..present import labelled
    from ..regions import people_table
    table = people_table(labelled(rel.answer_regions(layer), rel.randomness))
    write_table(table, a.out)
    silent = int((table["domain_share"] <= 0).sum())
    outside = (f"; {silent:,} lie outside the release's domain and have no answer (empty fields)" if silent else "")
    print(f"wrote {a.out}: {len(table) - silent:,} regions answered from {a.release} (estimate, low_95 and high_95: "
          f"noise and the cells the borders cut; no epsilon spent){outside}")
    return 0


def run_regions(a: argparse.Namespace) -> int:
    if a.release is not None:
        return regions_from_release(a)
    if a.input is None or a.lon is None or a.lat is None:
        raise ParameterError("psdviz regions needs INPUT --lon COL --lat COL (points), or --release FILE (a spatial "
                             "release to answer the regions from)")
    suffix = Path(a.out).suffix.lower()
    if suffix not in (".json", ".csv", ".parquet"):
        raise ParameterError(f"--out must end in .json (the release), .csv or .parquet (its counts) (got {a.out!r})")
    check_input_options(a)
    with warnings.catch_warnings(record=True) as loaded:     # the layer's repairs, said below in one line each
        warnings.simplefilter("always")
        layer = load_layer(a)
    extra = {} if a.resolution is None else {"resolution": a.resolution}
    with points_input(a, extra) as points, warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        rel = build_regions(points, layer, epsilon=a.epsilon, seed=a.seed, pooling=a.pooling, **extra)
    print(input_counts(rel, a), file=sys.stderr)
    say("regions", map(warning_line, [*loaded, *said]))
    path = write_drawn(open_budget(a), rel, "regions", a.out, lambda p: region_output(rel, p, a.allow_seeded))
    print_ledger(rel)
    levels = int(rel.report()["levels"])
    print(f"wrote {path}: {len(rel.estimate):,} regions in {levels} level{'s' if levels != 1 else ''}, "
          f"epsilon {rel.epsilon:g} per {rel.privacy_unit}")
    return 0
