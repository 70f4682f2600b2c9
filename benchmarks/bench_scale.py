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
5. With ``--worst`` the case where grouping cannot help: a concentrated Gaussian (sd 0.15 about the centre of
   the unit square, redrawn inside it) at fine resolutions, where nearly every row has a cell of its own. One
   Parquet file per size (``--sizes``, written once in chunks of 10^7 rows), every method at each of
   ``--resolutions``, with ``--memory-limit`` and without one (``--limits``), each build in a fresh process
   against DuckDB's own GROUP BY scan of the same file measured in the same run (the 1024 x 1024 count, and a
   count of the build's own cells), with the load average at each build and its peak against the limit plus
   150 MB; a build past ``--timeout`` is stopped and reported as more than that. To
   docs/reproduction/scale_worst.md, one section per (size, resolution, limit): a run replaces the sections it
   measured and keeps the others.

    python benchmarks/bench_scale.py --memory-limit 4GB     # 10^8 rows (writes ~1.6 GB once)
    python benchmarks/bench_scale.py --rows 10000000 --growth
    python benchmarks/bench_scale.py --budget --memory-limit 300MB
    python benchmarks/bench_scale.py --worst --sizes 10000000 --memory-limit 4GB
The figures go to docs/reproduction/scale.md (and are printed).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from reproduction import publish_section  # noqa: E402

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


def run_one(kind: str, files: list[str], memory_limit: str | None, resolution: int, epsilon: float,
            mode: str = "auto") -> dict:
    """One measurement in this (fresh) process: seconds, passes, the path taken and peak resident memory."""
    t0 = time.perf_counter()
    passes = set()
    path, notes = "", []
    if kind == "baseline":
        import duckdb
        import pyarrow.parquet  # noqa: F401
    elif kind.startswith("scan"):      # "scan": the 1024 x 1024 count; "scan-k": the 2^k x 2^k count
        import duckdb
        con = duckdb.connect()
        if memory_limit is not None:
            con.execute(f"SET memory_limit = '{memory_limit}'").fetchall()
        side = 1 << int(kind[5:]) if kind != "scan" else 1024
        lst = "[" + ", ".join(f"'{f}'" for f in files) + "]"
        cur = con.execute(f"SELECT floor(lon * {side})::BIGINT AS i, floor(lat * {side})::BIGINT AS j, count(*) "
                          f"FROM read_parquet({lst}) GROUP BY ALL")
        cur.fetchall() if kind == "scan" else cur.fetchnumpy()   # up to 4^k groups: not as Python tuples
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
    use = resource.getrusage(resource.RUSAGE_SELF)
    return {"kind": kind, "seconds": sec, "cpu": use.ru_utime + use.ru_stime, "passes": max(1, len(passes)),
            "peak_mb": peak_rss_mb(), "path": path, "notes": notes}


def peak_rss_mb() -> float:
    """This process's peak resident memory: VmHWM (reset at exec, unlike ru_maxrss, which a child
    started by fork + exec inherits from its parent)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(kind: str, files: list[Path], memory_limit: str | None, resolution: int, epsilon: float,
            mode: str = "auto", timeout: float | None = None) -> dict:
    """One measurement in a fresh process (``memory_limit`` None: no limit); past ``timeout`` seconds the process
    is stopped and the result says so (``stopped``: its seconds are a lower bound)."""
    cmd = [sys.executable, __file__, "--one", kind, "--memory-limit", memory_limit or NO_LIMIT, "--resolution",
           str(resolution), "--epsilon", str(epsilon), "--passes", mode, *map(str, files)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"kind": kind, "stopped": True, "seconds": float(timeout or 0)}
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
NO_LIMIT = "none"     # --memory-limit none: no memory_limit (the budget is then a quarter of the machine's memory)


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


GAUSS_SD = 0.15        # the worst case: a concentrated Gaussian about the centre of the unit square
WORST_PAGE = ROOT / "docs" / "reproduction" / "scale_worst.md"


def gaussian(n: int, rng: np.random.Generator) -> np.ndarray:
    """n points of a Gaussian of sd GAUSS_SD about (0.5, 0.5); points outside the unit square are drawn again
    (0.17 % of them), so every row is inside the domain."""
    xy = rng.normal(0.5, GAUSS_SD, (n, 2))
    out = ((xy < 0) | (xy > 1)).any(axis=1)
    while out.any():
        xy[out] = rng.normal(0.5, GAUSS_SD, (int(out.sum()), 2))
        out = ((xy < 0) | (xy > 1)).any(axis=1)
    return xy


def write_gaussian(folder: Path, rows: int) -> Path:
    """gauss-<rows>.parquet, written once in chunks of PER_FILE rows (seeds 2000, 2001, ...: a smaller file is
    the first rows of a larger one) and row groups of 10^6 rows; kept when it exists."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    path = folder / f"gauss-{rows}.parquet"
    if path.exists():
        return path
    folder.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with pq.ParquetWriter(tmp, pa.schema([("lon", pa.float64()), ("lat", pa.float64())]),
                          compression="zstd") as out:
        for i, start in enumerate(range(0, rows, PER_FILE)):
            xy = gaussian(min(PER_FILE, rows - start), np.random.default_rng(2000 + i))
            out.write_table(pa.table({"lon": xy[:, 0], "lat": xy[:, 1]}), row_group_size=1_000_000)
    tmp.rename(path)
    print(f"wrote {path.name}", flush=True)
    return path


def load() -> str:
    """The load averages over 1, 5 and 15 minutes (the machine is shared: ratios measured in one run hold)."""
    return " / ".join(f"{v:.1f}" for v in os.getloadavg())


def worst_table(rows: int, path: Path, limit: str | None, resolution: int, a) -> list[str]:
    """Every method of ``a.methods`` on one Gaussian file at one resolution and limit, against the scans."""
    started = load()
    scan = measure("scan", [path], limit, resolution, a.epsilon)
    fine = measure(f"scan-{resolution}", [path], limit, resolution, a.epsilon)
    bound = None
    if limit is not None:
        from psdviz.core.memory import memory_bytes
        bound = memory_bytes(limit) / 1e6 + ALLOWANCE_MB
    head = [f"### {rows:,} rows, resolution {resolution}, "
            + (f"memory_limit {limit} (bound {bound:,.0f} MB)" if limit else "no memory_limit"),
            f"<!-- worst rows={rows} resolution={resolution} limit={limit or NO_LIMIT} -->", "",
            f"DuckDB's own GROUP BY scan of the file, 1024 x 1024 cells (the yardstick): {scan['seconds']:.1f} s, "
            f"peak {scan['peak_mb']:.0f} MB; the same scan into the build's 2^{resolution} x 2^{resolution} cells: "
            f"{fine['seconds']:.1f} s ({fine['seconds'] / scan['seconds']:.2f}x), peak {fine['peak_mb']:.0f} MB; CPU "
            f"seconds (every thread) {scan['cpu']:.1f} and {fine['cpu']:.1f}. "
            f"Load average (1 / 5 / 15 min) at the start: {started}.", "",
            "| method | seconds | build / scan | CPU s | CPU / scan's | passes | path | peak memory MB "
            "| within the bound | load |",
            "|---|---:|---:|---:|---:|---:|---|---:|---|---|"]
    print("\n".join(head), flush=True)

    def one(m: str) -> dict:
        at = load()
        return {**measure(m, [path], limit, resolution, a.epsilon, timeout=a.timeout), "load": at}

    def row(m: str, r: dict) -> str:
        ratio = r["seconds"] / scan["seconds"]
        if r.get("stopped"):
            return f"| {m} | > {r['seconds']:.0f} (stopped) | > {ratio:.1f}x | - | - | - | - | - | - | {r['load']} |"
        within = "-" if bound is None else ("yes" if r["peak_mb"] <= bound else "**no**")
        return (f"| {m} | {r['seconds']:.1f} | {ratio:.2f}x | {r['cpu']:.1f} | {r['cpu'] / scan['cpu']:.2f}x | "
                f"{r['passes']} | {r['path'].split(' (')[0]} | {r['peak_mb']:.0f} | {within} | {r['load']} |")
    return head + row_each(a.methods, one, row) + [""]


def worst(a) -> int:
    """``--worst``: the tables of every (size, resolution, limit) asked for, each a section of WORST_PAGE."""
    folder = Path(a.dir).parent / "gauss"
    sections = _sections(WORST_PAGE.read_text()) if WORST_PAGE.exists() else {}
    limits = [None if v == NO_LIMIT else v for v in a.limits]
    for rows in a.sizes:
        path = write_gaussian(folder, rows)
        for resolution in a.resolutions:
            for limit in limits:
                lines = worst_table(rows, path, limit, resolution, a)
                sections[(rows, resolution, limit or NO_LIMIT)] = "\n".join(lines)
                if list(a.methods) == list(METHODS):       # written as each section is done: a long run keeps them
                    _write_worst(sections, a)
    return 0


def _write_worst(sections: dict, a) -> None:
    head = ["# Builds where grouping cannot help (benchmarks/bench_scale.py --worst)", "",
            f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
            f"Python {platform.python_version()}, DuckDB {__import__('duckdb').__version__}, numpy {np.__version__}; "
            f"one Parquet file per size of a Gaussian of sd {GAUSS_SD} about the centre of the unit square (every "
            f"row inside it), epsilon {a.epsilon:g}, passes auto, each build in a fresh process (peak = its "
            "VmHWM) and timed against DuckDB's own GROUP BY scan of the same file in the same run. 'CPU s' is the "
            "process's CPU time, every thread (DuckDB's two and numpy's one), against the scan's: it moves less with "
            "the machine's load than the seconds do, but is not the same measure (an idle build's seconds are about "
            "its DuckDB CPU over two plus its numpy CPU). 'passes' counts the passes over the data; 'load' is the "
            "machine's load average (1 / 5 / 15 min) as the build started (the machine has 2 cores and is shared: a "
            "ratio's scan and build ran at about the same load). "
            f"The bound is memory_limit plus {ALLOWANCE_MB} MB of interpreter and libraries. A section's heading "
            "says its size, resolution and limit; each run of the benchmark replaces the sections it measured.", ""]
    body = [sections[k] for k in sorted(sections, key=lambda k: (k[0], k[1], k[2] == NO_LIMIT, k[2]))]
    publish_section("\n".join(head + body) + "\n", WORST_PAGE)


_SECTION = re.compile(r"^<!-- worst rows=(\d+) resolution=(\d+) limit=(\S+) -->$", re.M)


def _sections(text: str) -> dict:
    """The sections of WORST_PAGE by (rows, resolution, limit): each from its heading to the next heading."""
    parts = re.split(r"(?m)^(?=### )", text)
    out = {}
    for part in parts:
        m = _SECTION.search(part)
        if m:
            out[(int(m.group(1)), int(m.group(2)), m.group(3))] = part.strip() + "\n"
    return out


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
    ap.add_argument("--worst", action="store_true",
                    help="the Gaussian worst case at --sizes, --resolutions and --limits (to "
                         "docs/reproduction/scale_worst.md)")
    ap.add_argument("--sizes", nargs="+", type=int, default=[10_000_000, 100_000_000])
    ap.add_argument("--resolutions", nargs="+", type=int, default=[16, 20])
    ap.add_argument("--limits", nargs="+", default=None,
                    help=f"with --worst: memory limits to run under, '{NO_LIMIT}' for none (default: --memory-limit "
                         f"and {NO_LIMIT})")
    ap.add_argument("--timeout", type=float, default=None, help="with --worst: stop a build after this many seconds")
    ap.add_argument("--one", default=None, help=argparse.SUPPRESS)
    ap.add_argument("files", nargs="*", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        limit = None if a.memory_limit == NO_LIMIT else a.memory_limit
        print(json.dumps(run_one(a.one, a.files, limit, a.resolution, a.epsilon, a.passes)))
        return 0
    if a.budget:
        return budget(a)
    if a.worst:
        a.limits = a.limits or [a.memory_limit, NO_LIMIT]
        return worst(a)
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
