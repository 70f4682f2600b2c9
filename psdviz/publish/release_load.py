"""Opening a spatial release file (written by :mod:`.release_file`): every claim checked before a release is
made of it (:mod:`.release_checks`), the release made by the same factory as a build."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ..core.domain import Domain
from ..core.errors import ReleaseFileError
from ..core.grid import Grid
from ..core.parallel import Checked, Disjointness, TreeTiling
from ..core.privacy_unit import PrivacyUnit
from ..core.tree import FlatTree
from ..kernel import file_checks
from . import release_checks as checks
from .factory import make_release
from .release import Release
from .release_file import _COLUMNS, _RECT, CURVE, FORMAT, META_KEY, READS


def _read_metadata(path: Path) -> dict:
    try:
        schema = pq.read_schema(path)
    except (OSError, pa.ArrowException) as exc:
        raise ReleaseFileError(f"{path} is not a readable Parquet file: {exc}") from None
    raw = (schema.metadata or {}).get(META_KEY)
    if raw is None:
        raise ReleaseFileError(f"{path} is not a psdviz release file (no '{META_KEY.decode()}' metadata); "
                         "save one with release.save(path)")
    try:
        meta = json.loads(raw)
    except ValueError:          # bad JSON or bad UTF-8
        raise file_checks.bad(f"{path}: the release metadata is not valid JSON text") from None
    except RecursionError:      # nested thousands deep: no release's metadata is
        raise file_checks.bad(f"{path}: the release metadata is nested too deeply") from None
    version = meta.get("format_version") if isinstance(meta, dict) else None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT or isinstance(version, bool) or version not in READS:
        got = (meta.get("format"), meta.get("format_version")) if isinstance(meta, dict) else (None, None)
        raise ReleaseFileError(f"{path} is format {got[0]!r} version {got[1]!r}; "
                         f"this psdviz reads {FORMAT!r} versions {', '.join(map(str, READS))}")
    return meta


def _tree(path: Path, grid: Grid) -> tuple[FlatTree, np.ndarray | None, np.ndarray | None]:
    """The node table, checked (links, values, the public grid) before a tree is made of it."""
    n, names = checks.check_footer(path)
    try:
        table = pq.read_table(path, columns=names)
    except (OSError, pa.ArrowException) as exc:
        raise file_checks.bad(f"{path}: its node table cannot be read ({exc})") from None
    f = {field: checks.column(table, name, dtype) for name, field, dtype in _COLUMNS}
    f["node"] = checks.column(table, "node", np.int64)
    f["is_leaf"] = checks.column(table, "is_leaf", np.int8)
    rect = np.column_stack([checks.column(table, c, np.float64) for c in _RECT])
    checks.check_links(f)
    checks.check_values(f, rect, grid)
    kept = checks.column(table, "full_index", np.int64) if "full_index" in names else None
    curve = (np.column_stack([checks.column(table, c, np.int64) for c in CURVE])
             if set(CURVE) <= set(names) else None)
    return FlatTree(rect=rect, **{field: f[field] for _, field, _ in _COLUMNS}), kept, curve


def loaded_parallel(meta: dict, tree: FlatTree, grid: Grid, curve: np.ndarray | None) -> Disjointness | None:
    """The disjointness proof for a loaded tree: its children must tile their parent (levels below its
    leaves, measured before pruning, lie inside them), except in a Hilbert R-tree, whose boxes overlap by
    design: there the file's curve ranges are checked (:func:`release_checks.check_curve_ranges`), and
    levels below its leaves lie inside the leaves' ranges."""
    if meta["method"] == "hilbert":
        checks.check_curve_ranges(tree, curve, meta["parameters"].get("order"), grid)
        return Checked(frozenset(range(int(meta["query_model"].get("full_height", tree.height)) + 1)),
                       "consecutive Hilbert curve ranges, checked on load; deeper levels lie inside the leaves' ranges")
    if curve is not None:
        raise file_checks.bad(f"only a Hilbert R-tree holds curve ranges, not a {meta['method']} release")
    return TreeTiling.of(tree, grid).pruned(tree.height)


def load_release(path) -> Release:
    """Read a release file written by :func:`save_release`; it answers queries exactly as the original.

    The whole file is checked against its own tables first (``release_checks.py``): any damaged or
    edited file is a ValueError naming what is wrong, and memory stays bounded by the file's size."""
    path = Path(path)
    meta = _read_metadata(path)
    checks.check_metadata(meta)
    ledger = file_checks.check_ledger(meta)
    domain = Domain(*meta["domain"])
    grid = Grid(domain, int(meta["resolution"]))
    tree, kept, curve = _tree(path, grid)
    checks.check_against_ledger(float(tree.path_epsilons().max()), ledger)
    checks.check_claims(tree, ledger, meta["privacy_unit"])
    checks.check_query_model(meta["query_model"], tree.height, tree.n_nodes, grid, kept)
    checks.check_estimates(tree, str(meta["query_model"].get("variance", "")))
    rules = meta["input_handling"]
    parallel = loaded_parallel(meta, tree, grid, curve)
    try:
        return make_release(meta["method"], dict(meta["parameters"]), domain, tree, ledger,
                            file_checks.loaded_randomness(meta["randomness"]),
                            {"outside_rows": rules["outside_domain"], "nonfinite_rows": rules["rows_with_nan_or_inf"]},
                            consistent=meta["consistent"], grid=grid, notes=meta["notes"], kept=kept,
                            privacy_unit=PrivacyUnit.from_data(meta["privacy_unit"]), query_model=meta["query_model"],
                            parallel=parallel).evolve(curve=curve)
    except (ArithmeticError, LookupError, TypeError, ValueError) as exc:
        raise file_checks.bad(f"{path}: it does not hold together ({exc})") from None
