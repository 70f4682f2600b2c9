"""Parquet and CSV files of any size, scanned by DuckDB (the embedded, out-of-core engine).

The files stay on disk. Each pass is one SQL statement: DuckDB scans the two coordinate columns and
computes their grid keys in SQL (the same float operations as in memory), then groups them. A keyer
with a SQL form (grid cells, a PrivTree depth's nodes: :class:`psdviz.splits.keyers.CoarseKeyer`) is
grouped by DuckDB alone and its ``post`` map runs on the distinct groups; any other keyer (a kd level's
(node, position), AG's sub-cells) runs as a vectorised Python function registered as an Arrow UDF,
called by DuckDB per chunk of rows with the very numpy code the in-memory path uses, inside the
``GROUP BY``.
Memory is DuckDB's hash table of groups plus one chunk, never the points; DuckDB is capped at its share of
``memory_limit`` (:mod:`psdviz.core.memory`; it spills to ``temp_directory`` beyond it).
"""
from __future__ import annotations

import functools
import glob
import itertools
import os
from pathlib import Path

import numpy as np

from ..core.cells import weighted_groups
from ..core.domain import Domain, check_modes, nonfinite_error
from ..core.errors import InputDataError, ParameterError
from ..core.grid import DEFAULT_RESOLUTION, Grid, check_resolution
from ..core.memory import check_memory_limit, duckdb_limit
from ..core.source import Keyer, KeySource, cell_keys, dense_ids, merge_counts

PARQUET = (".parquet", ".pq", ".parq")
CSV = (".csv", ".tsv", ".txt", ".csv.gz")
_ids = itertools.count()


def expand_paths(pattern) -> list[str]:
    """Files of a path, a glob or a list of either; all Parquet or all CSV."""
    items = [pattern] if isinstance(pattern, (str, Path)) else list(pattern)
    files: list[str] = []
    for item in items:
        literal = os.path.isfile(str(item)) or not any(c in str(item) for c in "*?[")
        hits = [str(item)] if literal else sorted(glob.glob(str(item)))
        files += hits
    if not files:
        raise InputDataError(f"no file matches {pattern!r}")
    missing = [f for f in files if not os.path.isfile(f)]
    if missing:
        raise InputDataError(f"file not found: {missing[0]}")
    kinds = {file_kind(f) for f in files}
    if len(kinds) > 1:
        raise InputDataError("mix of Parquet and CSV files: give one kind at a time")
    return files


def literal(path: str) -> str:
    """``path`` as a pattern that DuckDB, Dask (fsspec) and Spark (Hadoop) match to that one file only:
    their readers glob every path they are given, so a file named ``trips*.csv`` or ``cell[12].csv``
    would read its neighbours (or another file) instead. Glob characters become one-character classes
    (``glob.escape``: ``trips[*].csv``), which all three read literally; other paths are unchanged."""
    return glob.escape(path) if any(c in path for c in "*?[") else path


def file_kind(path: str) -> str:
    low = path.lower()
    if low.endswith(PARQUET):
        return "parquet"
    if low.endswith(CSV):
        return "csv"
    raise InputDataError(f"{path}: not a Parquet (.parquet) or CSV (.csv) file")


MAX_CSV_COLUMNS = 1_000    # DuckDB detects a CSV's dialect and types per column at every query that binds it
SHOWN_VALUE = 40            # a value of the file quoted in an error, at most this many characters
# a row holding text in a coordinate (fixed SQL over the projection's own columns: no user string in it)
TEXT_ROW = ("(raw_x IS NOT NULL AND TRY_CAST(raw_x AS DOUBLE) IS NULL OR raw_y IS NOT NULL "
            "AND TRY_CAST(raw_y AS DOUBLE) IS NULL)")
_HEADER_BYTES = 1 << 20


def check_csv_width(path: str) -> None:
    """Refuse, in one line and before DuckDB reads it, a CSV file whose header has more than
    :data:`MAX_CSV_COLUMNS` fields under any common delimiter (DuckDB's detection costs about 1.5 s per
    1,000 columns at every query, so a 20,000-column file took over two minutes); the header is read
    from the first MiB only. Compressed files are left to DuckDB."""
    if path.lower().endswith(".gz"):
        return
    try:
        with open(path, "rb") as f:
            block = f.read(_HEADER_BYTES)
        head = block.split(b"\n", 1)[0]
    except OSError:
        return                      # DuckDB names the problem when it opens the file
    fields = max(head.count(sep) for sep in (b",", b";", b"\t", b"|")) + 1
    if fields > MAX_CSV_COLUMNS:
        more = " or more" if len(head) == len(block) == _HEADER_BYTES else ""
        raise InputDataError(f"{path} has {fields:,} columns{more}; psdviz reads CSV files of at most "
                             f"{MAX_CSV_COLUMNS:,} columns: keep the coordinate (and user) columns, or convert it to "
                             "Parquet, which has no such limit")


def check_not_empty(path: str) -> None:
    """Refuse a CSV file with nothing in it (0 bytes, or only blank lines) in one line saying so: DuckDB
    would read it as one column named 'column0'. Compressed files are left to DuckDB."""
    if path.lower().endswith(".gz"):
        return
    try:
        with open(path, "rb") as f:
            block = f.read(_HEADER_BYTES)
            rest = f.read(1)
    except OSError:
        return                      # DuckDB names the problem when it opens the file
    if not block.strip() and not rest:
        what = f"{len(block)} bytes, all blank" if block else "0 bytes"
        raise InputDataError(f"{path} is empty ({what}): give a CSV file with a header row naming the columns and at "
                             "least one row of points")


def _settings(memory_limit, threads) -> dict:
    """DuckDB settings passed as connection configuration (values, never SQL text), checked first so
    a bad value is a ValueError saying what DuckDB accepts."""
    config: dict = {}
    if memory_limit is not None:
        config["memory_limit"] = duckdb_limit(check_memory_limit(memory_limit))
    if threads is not None:
        if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or not 1 <= threads <= 1024:
            raise ParameterError(f"threads must be a whole number from 1 to 1024 (got {threads!r})")
        config["threads"] = int(threads)
    return config


NUMERIC_TYPES = frozenset({"DOUBLE", "FLOAT", "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT",
                           "USMALLINT", "UINTEGER", "UBIGINT"})    # column types whose cast to DOUBLE never fails


class DuckDBSource(KeySource):
    """Points in Parquet / CSV files, columns ``lon`` and ``lat``, counted by DuckDB."""

    def __init__(self, pattern, domain: Domain, *, lon: str, lat: str, outside: str = "drop",
                 nonfinite: str = "error", resolution: int = DEFAULT_RESOLUTION,
                 memory_limit: str | None = None, threads: int | None = None):
        import duckdb  # imported here: in-memory builds never load it
        check_modes(domain, outside, nonfinite)
        self.grid = Grid(domain, check_resolution(resolution))
        self.files = expand_paths(pattern)
        self.outside, self.nonfinite = outside, nonfinite
        try:
            self.con = duckdb.connect(config=_settings(memory_limit, threads))
        except duckdb.Error as exc:      # a limit DuckDB cannot parse or hold (e.g. 999999999TB)
            first = str(exc).strip().splitlines()[0][:200]
            raise ParameterError(f"memory_limit {memory_limit!r} is not one DuckDB accepts ({first}); give a size "
                                 'such as "2GB" or "500MB"') from None
        self._relation(lon, lat)
        self._counts: tuple[int, int, int, int] | None = None   # rows, not numbers, non-finite, outside

    # validation runs once, before the first pass; the pass into the cells does it in the same scan
    @property
    def n_input(self) -> int:  # type: ignore[override]  # read-only here: counted by the validating scan
        return self._validated()[0]

    @property
    def n_nonfinite(self) -> int:  # type: ignore[override]
        return self._validated()[2]

    @property
    def n_outside(self) -> int:  # type: ignore[override]
        return self._validated()[3]

    def _validated(self) -> tuple[int, int, int, int]:
        if self._counts is None:
            self._validate()
        assert self._counts is not None   # _validate sets them
        return self._counts

    def _relation(self, lon: str, lat: str) -> None:
        """The view ``pts`` (x, y, text) over the files. Paths and column names go through DuckDB's
        relational API as values (``read_parquet``/``read_csv`` of a list, ``ColumnExpression``), never
        into SQL text; the SQL written here names only the fixed columns of that projection."""
        import duckdb
        parquet = file_kind(self.files[0]) == "parquet"
        # CSV as RFC 4180 writes it: DuckDB's sniffer reads a sample of the rows, and a file whose first quoted
        # field comes after the sample (a name holding a comma) was read as unquoted and failed at that row
        reader = self.con.read_parquet if parquet else functools.partial(self.con.read_csv, quotechar='"',
                                                                          escapechar='"')
        for f in [] if parquet else self.files:
            check_not_empty(f)
            check_csv_width(f)
        try:
            raw = reader([literal(f) for f in self.files])
            cols = list(raw.columns)
        except duckdb.Error as exc:
            raise InputDataError(f"cannot read {self.files[0]}: {exc}") from None
        for name, what in ((lon, "lon"), (lat, "lat")):
            if name not in cols:
                raise InputDataError(f"column {name!r} (given as {what}) is not in {self.files[0]}; its columns are "
                                     f"{cols}")
        xy = raw.project(duckdb.ColumnExpression(lon).alias("raw_x"), duckdb.ColumnExpression(lat).alias("raw_y"))
        xy.create_view("raw_xy")
        if all(str(t) in NUMERIC_TYPES for t in xy.types):      # numbers already: a cast cannot fail
            self.con.execute("CREATE VIEW pts AS SELECT CAST(raw_x AS DOUBLE) AS x, CAST(raw_y AS DOUBLE) AS y, "
                             "false AS text FROM raw_xy").fetchall()
        else:
            self.con.execute("CREATE VIEW pts AS SELECT TRY_CAST(raw_x AS DOUBLE) AS x, TRY_CAST(raw_y AS DOUBLE) "
                             f"AS y, {TEXT_ROW} AS text FROM raw_xy").fetchall()
        self.columns = (lon, lat)

    def _validate(self) -> None:
        """One scan for the validation counts the release reports (rows in, non-finite, outside)."""
        d = self.grid.domain
        finite = "coalesce(isfinite(x) AND isfinite(y), false)"
        inside = f"(x BETWEEN {d.xmin!r} AND {d.xmax!r} AND y BETWEEN {d.ymin!r} AND {d.ymax!r})"
        n_in, n_text, n_bad, n_out = self._fetch(
            f"SELECT count(*), count(*) FILTER (WHERE text), count(*) FILTER (WHERE NOT {finite}), "
            f"count(*) FILTER (WHERE {finite} AND NOT {inside}) FROM pts", numpy=False)[0]
        self._set_counts(int(n_in), int(n_text), int(n_bad), int(n_out))

    def _text_example(self) -> str:
        """The first row holding text in a coordinate, as the file has it: "'12.5', 'north'" (for the one-line
        error; the file's own words, shown as values, never run)."""
        row = self._fetch(f"SELECT raw_x::VARCHAR, raw_y::VARCHAR FROM raw_xy WHERE {TEXT_ROW} LIMIT 1", numpy=False)
        if not row:
            return ""
        return ", ".join("(empty)" if v is None else repr(v if len(v) <= SHOWN_VALUE else v[:SHOWN_VALUE] + "...")
                         for v in row[0])

    def _set_counts(self, n_in: int, n_text: int, n_bad: int, n_out: int) -> None:
        """Keep the validation counts; text coordinates (named by the first such row), and non-finite rows under
        "error", are refused."""
        if n_text:
            example, one = self._text_example(), n_text == 1
            raise InputDataError(f"{n_text:,} row{'' if one else 's'} of {self.columns[0]!r} / {self.columns[1]!r} "
                                 f"{'holds' if one else 'hold'} text, not numbers"
                                 + (f" (the first: {example})" if example else "")
                                 + "; fix or remove them (an empty cell is a missing point, dropped and counted)")
        if n_bad and self.nonfinite == "error":
            raise nonfinite_error(n_bad, n_in)
        self._counts = (n_in, n_text, n_bad, n_out)

    def _fetch(self, sql: str, numpy: bool = True):
        """Run one of this module's queries; DuckDB running out of memory is a ValueError naming the limit."""
        import duckdb
        try:
            cur = self.con.execute(sql)
            return cur.fetchnumpy() if numpy else cur.fetchall()
        except duckdb.OutOfMemoryException:
            limit = self.con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
            raise ParameterError(f"DuckDB ran out of memory under its cap of {limit} (its share of memory_limit): "
                                 'raise memory_limit (e.g. "4GB") or lower the resolution') from None
        except duckdb.Error as exc:       # a value DuckDB cannot read (e.g. 0x10 in a number column)
            first = str(exc).strip().splitlines()[0][:300]
            raise InputDataError(f"the files cannot be read as points ({type(exc).__name__}: {first}); check that "
                                 f"the columns {list(self.columns)} hold plain numbers") from None

    def _key_exprs(self) -> tuple[str, str, str, str]:
        """SQL of (kx, ky, finite, inside): the grid keys with the same float operations as
        :meth:`Grid.keys` ((x - xmin) / width * 2^k, floor, clamp to the last cell; with "clip" the
        coordinates are clamped onto the domain first), so a point lands in the same cell as in memory
        (the identical-release tests check it)."""
        g, d = self.grid, self.grid.domain
        s = g.size
        x, y = "x", "y"
        if self.outside == "clip":
            x, y = f"least(greatest(x, {d.xmin!r}), {d.xmax!r})", f"least(greatest(y, {d.ymin!r}), {d.ymax!r})"
        kx = f"CAST(least(floor(({x} - {d.xmin!r}) / {d.width!r} * {s}.0), {s - 1}) AS BIGINT)"   # x >= xmin here
        ky = f"CAST(least(floor(({y} - {d.ymin!r}) / {d.height!r} * {s}.0), {s - 1}) AS BIGINT)"
        inside = f"(x BETWEEN {d.xmin!r} AND {d.xmax!r} AND y BETWEEN {d.ymin!r} AND {d.ymax!r})"
        return kx, ky, "coalesce(isfinite(x) AND isfinite(y), false)", inside

    def _key_sql(self) -> str:
        """The grid keys of the rows used (non-finite rows, and outside rows under "drop", filtered out)."""
        kx, ky, finite, inside = self._key_exprs()
        where = finite if self.outside == "clip" else f"{finite} AND {inside}"
        return f"SELECT {kx} AS kx, {ky} AS ky FROM pts WHERE {where}"

    def grouped(self, keyer: Keyer) -> tuple[np.ndarray, np.ndarray]:
        self._validated()   # the input is checked before the first pass
        return self._grouped(keyer)

    def _grouped(self, keyer: Keyer) -> tuple[np.ndarray, np.ndarray]:
        """One pass: a keyer with a SQL form (:class:`psdviz.splits.keyers.CoarseKeyer`) is grouped by
        DuckDB alone, its ``post`` map applied to the distinct groups (and, if it has ``sql_keep``, only
        rows whose key expression is among the given values are read: a semi-join); any other keyer
        runs as a vectorised Arrow UDF inside the GROUP BY."""
        sql = getattr(keyer, "sql", None)
        if sql is None:
            return self._grouped_udf(keyer)
        keep, where = getattr(keyer, "sql_keep", None), ""
        if keep is not None:        # (expression, allowed values): a semi-join on a registered table
            import pyarrow as pa
            table = f"psdviz_keep_{next(_ids)}"
            self.con.register(table, pa.table({"v": np.asarray(keep[1], np.int64)}))
            where = f" WHERE {keep[0]} IN (SELECT v FROM {table})"
        try:
            res = self._fetch(f"SELECT {sql} AS g, count(*) AS c FROM ({self._key_sql()}){where} GROUP BY g")
        finally:
            if keep is not None:
                self.con.unregister(table)
        ids = keyer.apply_post(np.asarray(res["g"], np.int64))  # type: ignore[attr-defined]  # a SQL keyer's
        return weighted_groups(ids, np.asarray(res["c"], np.int64))

    def _grouped_udf(self, keyer: Keyer) -> tuple[np.ndarray, np.ndarray]:
        import pyarrow as pa
        from duckdb import sqltypes as t

        def udf(kx, ky):
            return pa.array(dense_ids(keyer(kx.to_numpy(), ky.to_numpy(), {})))

        name = f"psdviz_key_{next(_ids)}"
        self.con.create_function(name, udf, [t.BIGINT, t.BIGINT], t.BIGINT, type="arrow",  # type: ignore[call-overload]
                                 side_effects=False)
        try:
            res = self._fetch(f"SELECT {name}(kx, ky) AS g, count(*) AS c FROM ({self._key_sql()}) GROUP BY g")
        finally:
            self.con.remove_function(name)
        return weighted_groups(np.asarray(res["g"], np.int64), np.asarray(res["c"], np.int64))

    def cells_at_most(self, cap: int | None) -> tuple[np.ndarray, np.ndarray] | None:
        """The occupied cells and their counts (one grouped pass), or None when there are more than
        ``cap``: DuckDB returns at most cap + 1 groups, so the memory held stays bounded. Before the
        source is validated, the same scan also gives the validation counts (one scan, not two)."""
        if self._counts is None:
            return self._cells_and_counts(cap)
        bits = self.grid.bits
        limit = "" if cap is None else f" LIMIT {int(cap) + 1}"
        res = self._fetch(f"SELECT (ky << {bits}) | kx AS g, count(*) AS c FROM ({self._key_sql()}) GROUP BY g{limit}")
        ids = np.asarray(res["g"], np.int64)
        if cap is not None and ids.size > cap:
            return None
        ids, cnt = weighted_groups(ids, np.asarray(res["c"], np.int64))
        return cell_keys(ids, bits), cnt

    def _cells_and_counts(self, cap: int | None) -> tuple[np.ndarray, np.ndarray] | None:
        """One scan for the occupied cells and the validation counts, grouped by one code per row: a used
        row's cell times 2 plus 1 when it lies outside the domain (clipped), and -3 / -2 / -1 for rows that
        are not numbers / not finite / outside and dropped. At most 2 cap + 3 groups come back; a cut
        result is None (the validation scan then runs before the first per-level pass)."""
        bits = self.grid.bits
        kx, ky, finite, inside = self._key_exprs()
        limit = "" if cap is None else f" LIMIT {2 * int(cap) + 3}"
        cell = f"((({ky} << {bits}) | {kx}) << 1)"
        outside = f"{cell} | 1" if self.outside == "clip" else "-1"
        res = self._fetch(f"SELECT CASE WHEN {inside} THEN {cell} WHEN text THEN -3 WHEN NOT {finite} THEN -2 "
                          f"ELSE {outside} END AS g, count(*) AS c FROM pts GROUP BY g{limit}")   # most rows: the first
        code, c = np.asarray(res["g"], np.int64), np.asarray(res["c"], np.int64)
        if cap is not None and code.size == 2 * int(cap) + 3:
            return None
        flagged = np.flatnonzero(code < 0)          # at most three groups: rows not used, by why
        neg = {v: int(c[flagged][code[flagged] == v].sum()) for v in (-3, -2, -1)}
        clipped = int(c[(code & 1) == 1].sum()) if self.outside == "clip" else 0
        self._set_counts(int(c.sum()), neg[-3], neg[-3] + neg[-2], neg[-1] + clipped)
        if flagged.size:
            used = code >= 0
            code, c = code[used], c[used]
        ids, cnt = merge_counts([(code >> 1, c)], distinct=self.outside == "drop")
        if cap is not None and ids.size > cap:
            return None
        return cell_keys(ids, bits), cnt

    def close(self) -> None:
        self.con.close()

    def report(self) -> dict:
        """The owner's input account, with the files read (paths are the owner's, never in a release file)."""
        return {**super().report(), "files_read": list(self.files)}
