"""``psdviz info``, ``psdviz params`` and ``psdviz sample``: read-only descriptions, and synthetic points."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..api_reference import method_text
from ..errors import ParameterError
from ..releases import load_release
from .output import describe, write_table


def run_info(a: argparse.Namespace) -> int:
    rel = load_release(a.release)
    if a.format == "markdown":
        print(rel.report(format="markdown"))
    elif a.json or a.format == "json":
        print(json.dumps(rel.report(), indent=2, default=str))
    else:
        describe(rel)
    return 0


def run_sample(a: argparse.Namespace) -> int:
    rel = load_release(a.release)
    if not hasattr(rel, "sample_points"):
        raise ParameterError(f"{a.release} is not a spatial release: synthetic points are drawn from published cells")
    suffix = Path(a.out).suffix.lower()
    if suffix not in (".csv", ".parquet"):
        raise ParameterError(f"--out must end in .csv or .parquet (got {a.out!r})")
    pts = rel.sample_points(a.n, a.seed)
    write_table(pts, a.out)
    print(f"wrote {a.out}: {len(pts):,} synthetic points drawn from the private release (no real point; no "
          "epsilon spent)")
    return 0


def run_params(a: argparse.Namespace) -> int:
    if a.reference:
        from ..api_reference import reference
        print(reference(), end="")
        return 0
    if a.method is None:
        raise ParameterError("give a method (psdviz params kdtree) or --reference")
    print(method_text(a.method))
    return 0

