"""Builds from files bigger than memory.

1. Writes a skewed synthetic Parquet set (lab.synthetic.skewed: 10 tight clusters plus 5 % background,
   in files of 10^7 rows; resumable: existing files are kept) of ``--rows`` rows, 10^8 by default.
2. Times every method's build (defaults, ``--epsilon`` 0.1, ``--resolution`` 12, ``--passes`` auto) read
   from those files by DuckDB, each in a fresh process so its peak resident memory (VmHWM) is its own, and
   DuckDB's own single ``GROUP BY`` scan of the same files (a 1024 x 1024 cell count in SQL) measured in
   the same run as the yardstick: the table gives seconds, the build as a multiple of that scan, passes
   over the data (grouped passes plus the one into the occupied cells), the path taken (one pass, then
   memory; or per-level passes) and peak memory against ``--memory-limit``.
3. With ``--growth`` also the same at 10^6 and 10^7 rows (the first files), so time per pass can be read
   against rows.
4. With ``--budget`` the promise of ``memory_limit`` (psdviz.core.memory): every method at ``--rows`` and at
   3 x 10^7 rows under ``--memory-limit``, its peak against the limit plus the baseline allowance of
   150 MB (the interpreter with psdviz, DuckDB and pyarrow imported is measured too), with the sizes the
   limit lowered; to docs/reproduction/memory_budget.md.

    python benchmarks/bench_scale.py --memory-limit 4GB     # 10^8 rows (writes ~1.6 GB once)
    python benchmarks/bench_scale.py --rows 10000000 --growth
    python benchmarks/bench_scale.py --budget --memory-limit 300MB
The figures go to docs/reproduction/scale.md (and are printed).
"""
from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import psdviz as pv  # noqa: E402
from psdviz.lab.synthetic import skewed  # noqa: E402

DOM = pv.Domain(0.0, 0.0, 1.0, 1.0)
PER_FILE = 10_000_000
METHODS = pv.METHODS


def write_set(folder: Path, rows: int) -> list[Path]:
    """Files part-000.parquet ... of PER_FILE rows (the last may be shorter); existing files are kept."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for i, start in enumerate(range(0, rows, PER_FILE)):
        n = min(PER_FILE, rows - start)
        path = folder / f"part-{i:03d}-{n}.parquet"
        if not path.exists():
            xy = skewed(n, DOM, np.random.default_rng(1000 + i))
            tmp = path.with_suffix(".tmp")
            pq.write_table(pa.table({"lon": xy[:, 0], "lat": xy[:, 1]}), tmp, compression="zstd")
            tmp.rename(path)
            print(f"wrote {path.name}", flush=True)
        files.append(path)
    return files


def run_one(kind: str, files: list[str], memory_limit: str, resolution: int, epsilon: float,
            mode: str = "auto") -> dict:
    """One measurement in this (fresh) process: seconds, passes, the path taken and peak resident memory."""
    t0 = time.perf_counter()
    passes = set()
    path, notes = "", []
    if kind == "baseline":
        import duckdb
        import pyarrow.parquet  # noqa: F401
    elif kind == "scan":
        import duckdb
        con = duckdb.connect()
        con.execute(f"SET memory_limit = '{memory_limit}'").fetchall()
        lst = "[" + ", ".join(f"'{f}'" for f in files) + "]"
        con.execute("SELECT floor(lon * 1024)::BIGINT AS i, floor(lat * 1024)::BIGINT AS j, count(*) "
                    f"FROM read_parquet({lst}) GROUP BY ALL").fetchall()
        passes.add("scan")
    else:
        from psdviz.sources.files import DuckDBSource
        grouped, cells = DuckDBSource.grouped, DuckDBSource.cells_at_most

        def counted(self, keyer):       # a pass over the data = one grouped count
            passes.add(len(passes))
            return grouped(self, keyer)

        def counted_cells(self, cap):   # the pass into the occupied cells
            passes.add(len(passes))
            return cells(self, cap)
        DuckDBSource.grouped, DuckDBSource.cells_at_most = counted, counted_cells
        rel = pv.build(files, DOM, kind, epsilon, seed=1, lon="lon", lat="lat", memory_limit=memory_limit,
                       resolution=resolution, passes=mode)
        path = rel.audit().get("data_passes", "")
        notes = [n for n in rel.notes if "memory_limit" in n]   # what the limit lowered or cut
    sec = time.perf_counter() - t0
    return {"kind": kind, "seconds": sec, "passes": max(1, len(passes)), "peak_mb": peak_rss_mb(), "path": path,
            "notes": notes}


def peak_rss_mb() -> float:
    """This process's peak resident memory: VmHWM (reset at exec, unlike ru_maxrss, which a child
    started by fork + exec inherits from its parent)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(kind: str, files: list[Path], memory_limit: str, resolution: int, epsilon: float,
            mode: str = "auto") -> dict:
    cmd = [sys.executable, __file__, "--one", kind, "--memory-limit", memory_limit, "--resolution",
           str(resolution), "--epsilon", str(epsilon), "--passes", mode, *map(str, files)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return {"kind": kind, "error": last[:300]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def table(rows: int, files: list[Path], memory_limit: str, resolution: int, epsilon: float,
          mode: str = "auto", methods=METHODS) -> list[str]:
    scan = measure("scan", files, memory_limit, resolution, epsilon)
    lines = [f"### {rows:,} rows ({rows * 16 / 1e9:.1f} GB as float64 points)", "",
             f"DuckDB's own GROUP BY scan of the files: {scan['seconds']:.1f} s, peak {scan['peak_mb']:.0f} MB.", "",
             "| method | seconds | build / scan | passes | path | peak memory MB |",
             "|---|---:|---:|---:|---|---:|"]
    print("\n".join(lines), flush=True)

    def row(m: str, r: dict) -> str:
        return (f"| {m} | {r['seconds']:.1f} | {r['seconds'] / scan['seconds']:.2f}x | {r['passes']} | "
                f"{r['path'].split(' (')[0]} | {r['peak_mb']:.0f} |")
    return lines + row_each(methods, lambda m: measure(m, files, memory_limit, resolution, epsilon, mode), row) + [""]


def row_each(methods, one, row) -> list[str]:
    """A table row per method (``one(m)`` measures it, ``row(m, r)`` writes it), printed as it comes; a failed
    build is a row saying why."""
    out = []
    for m in methods:
        r = one(m)
        line = f"| {m} | failed: {r['error']} |" if "error" in r else row(m, r)
        print(line, flush=True)
        out.append(line)
    return out


ALLOWANCE_MB = 150    # the interpreter's and the libraries' baseline the promise allows above the limit


def budget_table(rows: int, files: list[Path], memory_limit: str, resolution: int, epsilon: float,
                 methods) -> tuple[list[str], int]:
    """Every method's peak under ``memory_limit`` against the limit plus :data:`ALLOWANCE_MB`: the table and
    the number of methods above it."""
    from psdviz.core.memory import memory_bytes
    bound = memory_bytes(memory_limit) / 1e6 + ALLOWANCE_MB
    base = measure("baseline", files, memory_limit, resolution, epsilon)
    lines = [f"### {rows:,} rows, memory_limit {memory_limit} (bound {bound:,.0f} MB)", "",
             f"The interpreter with psdviz, DuckDB and pyarrow imported: {base['peak_mb']:.0f} MB.", "",
             "| method | seconds | path | peak memory MB | within the bound | lowered or cut by the limit |",
             "|---|---:|---|---:|---|---|"]
    print("\n".join(lines), flush=True)

    def row(m: str, r: dict) -> str:
        return (f"| {m} | {r['seconds']:.1f} | {r['path'].split(' (')[0]} | {r['peak_mb']:.0f} | "
                f"{'yes' if r['peak_mb'] <= bound else '**no**'} | {'; '.join(r['notes']) or '-'} |")
    body = row_each(methods, lambda m: measure(m, files, memory_limit, resolution, epsilon), row)
    return lines + body + [""], sum(" | **no** | " in line for line in body)


def budget(a) -> int:
    """``--budget``: the tables at 3 x 10^7 rows and at ``--rows`` to docs/reproduction/memory_budget.md."""
    head = ["# memory_limit as the build's budget (benchmarks/bench_scale.py --budget)", "",
            f"Machine: {platform.processor() or platform.machine()}, {__import__('os').cpu_count()} cores, "
            f"Python {platform.python_version()}, DuckDB {__import__('duckdb').__version__}; skewed synthetic "
            f"points in Parquet files, resolution {a.resolution}, epsilon {a.epsilon:g}, passes auto, each build "
            "in a fresh process (peak = its VmHWM). The promise (psdviz/core/memory.py): a build's peak within "
            f"memory_limit plus {ALLOWANCE_MB} MB of interpreter and library baseline. The last column lists "
            "the sizes the limit lowered or the trees it cut (each also a note in the release).", ""]
    body, over = [], 0
    for n in sorted({30_000_000, a.rows}):
        lines, k = budget_table(n, write_set(Path(a.dir), n), a.memory_limit, a.resolution, a.epsilon, a.methods)
        body, over = body + lines, over + k
    out = ROOT / "docs" / "reproduction" / "memory_budget.md"
    out.write_text("\n".join(head + body) + "\n")
    print(f"wrote {out}; {over} build(s) above the bound")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000_000)
    ap.add_argument("--dir", default=str(ROOT / "benchmarks" / ".data" / "scale"))
    ap.add_argument("--memory-limit", default="1GB", help="DuckDB's cap (default 1GB)")
    ap.add_argument("--growth", action="store_true", help="also 10^6 and 10^7 rows")
    ap.add_argument("--epsilon", type=float, default=0.1,
                    help="default 0.1: at epsilon 1 AG's own size rule asks for about N eps / 10 = 10^7 cells at "
                         "10^8 rows, above the engine's node cap")
    ap.add_argument("--resolution", type=int, default=12,
                    help="bits per axis of the public grid (default 12: at 10^8 skewed rows the occupied cells "
                         "then fit a 4GB budget)")
    ap.add_argument("--passes", default="auto", choices=["auto", "one", "per-level"])
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS),
                    help="the methods to time (default: all); with a subset the table is printed, not written")
    ap.add_argument("--budget", action="store_true",
                    help="the promise of --memory-limit at 3 x 10^7 rows and --rows (to "
                         "docs/reproduction/memory_budget.md)")
    ap.add_argument("--one", default=None, help=argparse.SUPPRESS)
    ap.add_argument("files", nargs="*", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        print(json.dumps(run_one(a.one, a.files, a.memory_limit, a.resolution, a.epsilon, a.passes)))
        return 0
    if a.budget:
        return budget(a)
    files = write_set(Path(a.dir), a.rows)
    head = ["# Builds from Parquet files through DuckDB (benchmarks/bench_scale.py)", "",
            f"Machine: {platform.processor() or platform.machine()}, {__import__('os').cpu_count()} cores, "
            f"Python {platform.python_version()}, DuckDB {__import__('duckdb').__version__}; "
            f"memory_limit {a.memory_limit} (the build's budget, half of it DuckDB's cap), passes {a.passes}; "
            f"skewed synthetic points, resolution {a.resolution}, "
            f"epsilon {a.epsilon:g}, each build in a fresh process (peak = its VmHWM). 'passes' counts the "
            "passes over the data (on the one-pass path the validation counts come from the same scan; on the "
            "per-level path a validation scan comes first), all included in the seconds.", ""]
    body = []
    if a.growth:
        sub = Path(a.dir) / "growth"
        for n in (10 ** 6, 10 ** 7):
            if n < a.rows:
                body += table(n, write_set(sub / str(n), n), a.memory_limit, a.resolution, a.epsilon, a.passes)
    body += table(a.rows, files, a.memory_limit, a.resolution, a.epsilon, a.passes, a.methods)
    if list(a.methods) != list(METHODS):
        return 0
    out = ROOT / "docs" / "reproduction" / "scale.md"
    out.write_text("\n".join(head + body) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
