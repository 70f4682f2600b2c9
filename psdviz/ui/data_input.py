"""Choosing the data: a bundled sample or an upload, the lon/lat columns, and the public domain.

Reading files (CSV/TSV, Parquet, GeoJSON, GeoPackage) is pure pandas/geopandas and testable without
Streamlit (:func:`read_table`, :func:`pick_points`); :func:`choose_data` draws the sidebar widgets.
The uploaded bytes are never altered: columns are converted into a new array.
"""
from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from psdviz import Domain
from psdviz.errors import InputDataError, PsdvizError
from psdviz.present import SAMPLES, get_sample, load_sample

from . import words
from .domain_presets import LOWER_48, preset_domain, presets
from .session_memo import remembered
from .state import MIRROR
from .uploads import open_upload

MAX_UPLOAD_MB = 50          # also set as server.maxUploadSize in .streamlit/config.toml
MAX_ROWS = 2_000_000
UPLOAD_KEPT = "psdviz_uploaded_points"   # (name, bytes) of the points file uploaded in this session
UPLOAD_ID = "psdviz_uploaded_id"         # the uploader's id of that file (a new upload replaces it)
UPLOAD_TABLE, UPLOAD_POINTS = "psdviz_upload_table", "psdviz_upload_points"   # read from it once (session_memo)
UPLOAD_TYPES = ["csv", "tsv", "txt", "parquet", "geojson", "json", "gpkg"]
X_NAMES = ("lon", "lng", "long", "longitude", "x")
Y_NAMES = ("lat", "latitude", "y")


@dataclass(frozen=True)
class Dataset:
    """Points chosen for a build: (n, 2) [x, y] floats (NaN kept, counted) and the public domain."""

    name: str
    xy: np.ndarray
    domain: Domain
    domain_source: str
    n_nonnumeric: int
    fingerprint: str
    user: np.ndarray | None = None          # one id per row: user-level privacy
    max_points_per_user: int | None = None
    bundled: bool = False                   # a bundled sample: public, the same points for every session

    @property
    def privacy_unit(self) -> str:
        return "one point" if self.user is None else f"one user, at most {self.max_points_per_user} points"

    @property
    def n_outside(self) -> int:
        ok = np.isfinite(self.xy).all(axis=1)
        return int(ok.sum() - self.domain.contains(self.xy[ok]).sum())


def fingerprint(xy: np.ndarray) -> str:
    return hashlib.sha1(np.ascontiguousarray(xy).tobytes()).hexdigest()[:16]


def read_table(name: str, data: bytes) -> pd.DataFrame:
    """Read an uploaded file by its extension; point geometries become ``lon``/``lat`` columns."""
    ext = name.lower().rsplit(".", 1)[-1] if "." in name else ""
    if len(data) > MAX_UPLOAD_MB * 1024 * 1024:
        raise InputDataError(f"the file is larger than the limit of {MAX_UPLOAD_MB} MB")
    readers = {"csv": _read_csv, "txt": _read_csv, "tsv": _read_tsv, "parquet": _read_parquet,
               "geojson": _read_geo, "json": _read_geo, "gpkg": _read_geo}
    if ext not in readers:
        raise InputDataError(f"unsupported file type {ext!r}; use one of {UPLOAD_TYPES}")
    if not data.strip():
        raise InputDataError(f"{name!r} is empty: upload a table with a header row and at least one data row")
    if ext in ("csv", "txt", "tsv"):
        try:
            data[:65536].decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            if exc.end < min(len(data), 65536) - 4:   # not merely a character cut at the sample's end
                raise InputDataError(f"{name!r} is not UTF-8 text (binary data?): upload a CSV/TSV text file, or "
                                     "Parquet, GeoJSON or GeoPackage under their own extension") from None
    try:
        df = readers[ext](data)
    except Exception as exc:  # parser errors of all kinds -> one message saying what to fix
        raise InputDataError(f"could not read {name!r} as {ext}: {exc}") from None
    if len(df) == 0:
        raise InputDataError(f"{name!r} has no rows")
    if len(df) > MAX_ROWS:
        raise InputDataError(f"{name!r} has {len(df):,} rows, above the limit of {MAX_ROWS:,}")
    return df


DELIMITERS = ",;\t|"


def _read_csv(data: bytes) -> pd.DataFrame:
    """Comma, semicolon, tab or pipe separated (sniffed among those only: a one-column file is never
    split on a letter); a UTF-8 byte-order mark is dropped so the first header stays readable."""
    head = data[:65536].decode("utf-8-sig", errors="replace")
    try:
        sep = csv.Sniffer().sniff(head, delimiters=DELIMITERS).delimiter
    except csv.Error:
        sep = ","
    return _read_delimited(data, sep)


def _read_tsv(data: bytes) -> pd.DataFrame:
    return _read_delimited(data, "\t")


def _read_delimited(data: bytes, sep: str) -> pd.DataFrame:
    """Only an empty field is missing: "NA" (Namibia), "null" or "None" are values like any other."""
    _check_ragged(data, sep)
    return pd.read_csv(io.BytesIO(data), sep=sep, encoding="utf-8-sig", keep_default_na=False, na_values=[""])


def _check_ragged(data: bytes, sep: str) -> None:
    """Every non-empty line has the header's number of fields (vectorised count of separators;
    files with quoted fields are left to the parser, whose quoting rules apply)."""
    if b'"' in data:
        return
    arr = np.frombuffer(data.replace(b"\r\n", b"\n"), dtype=np.uint8)
    line = np.cumsum(arr == ord("\n")) - (arr == ord("\n"))       # line number of every byte
    n_lines = int(line[-1]) + 1 if arr.size else 0
    fields = np.bincount(line[arr == ord(sep)], minlength=n_lines) + 1
    nonempty = np.bincount(line[arr != ord("\n")], minlength=n_lines) > 0
    bad = np.flatnonzero(nonempty & (fields != fields[0]))
    if bad.size:
        rows = ", ".join(str(b + 1) for b in bad[:5])
        raise InputDataError(f"{bad.size} line(s) (e.g. line {rows}) do not have the header's {fields[0]} fields: "
                             "fix the ragged rows")


def _read_parquet(data: bytes) -> pd.DataFrame:
    return pd.read_parquet(io.BytesIO(data))


def _read_geo(data: bytes) -> pd.DataFrame:
    """Attributes plus ``lon``/``lat`` of Point geometries (NaN for other geometry types). Projected
    files are reprojected to lon/lat (EPSG:4326); MultiPoints are exploded into their points."""
    import geopandas as gpd
    import shapely
    gdf = gpd.read_file(io.BytesIO(data))
    if gdf.crs is not None and not gdf.crs.is_geographic:
        gdf = gdf.to_crs(4326)                 # e.g. EPSG:3857 metres -> lon/lat degrees
    if (gdf.geometry.geom_type == "MultiPoint").any():
        gdf = gdf.explode(index_parts=False)   # one row per point of a MultiPoint
    df = pd.DataFrame(gdf.drop(columns=gdf.geometry.name))
    geoms = np.asarray(gdf.geometry.values, dtype=object)
    if not (shapely.get_type_id(geoms) == 0).any():
        raise InputDataError("the file has no Point geometries; upload points (or a table with lon/lat columns)")
    df["lon"], df["lat"] = shapely.get_x(geoms), shapely.get_y(geoms)
    return df


def guess_column(columns: list[str], names: tuple[str, ...]) -> int | None:
    """Index of the first column named like ``names`` (case-insensitive), or None: then the user picks."""
    low = [c.lower().strip() for c in columns]
    for n in names:
        if n in low:
            return low.index(n)
    return None


def pick_points(df: pd.DataFrame, xcol: str, ycol: str) -> tuple[np.ndarray, int]:
    """New (n, 2) float array from two columns, and how many cells are text (always 0: the bad-rows rule of
    docs/decisions/newcomer-steps.md, the command line's too, refuses text in a coordinate in words naming rows;
    an empty cell is a missing coordinate, NaN, dropped and counted by the build)."""
    for c, role in ((xcol, "longitude / x"), (ycol, "latitude / y")):
        if c not in df.columns:
            raise InputDataError(f"column {c!r} ({role}) is not in the table; columns are {list(df.columns)}")
    if xcol == ycol:
        raise InputDataError(f"the same column {xcol!r} was picked for x and y: pick two different columns")
    for c in (xcol, ycol):
        if pd.api.types.is_bool_dtype(df[c]):
            raise InputDataError(f"column {c!r} holds true/false values, not coordinates")
    cols = [pd.to_numeric(df[c], errors="coerce") for c in (xcol, ycol)]
    for v, c in zip(cols, (xcol, ycol)):
        if v.notna().sum() == 0:
            raise InputDataError(f"column {c!r} has no numeric values; pick the longitude/latitude columns")
    text = np.zeros(len(df), dtype=bool)
    for v, c in zip(cols, (xcol, ycol)):
        text |= (v.isna() & df[c].notna()).to_numpy()
    if text.any():
        rows = np.flatnonzero(text)
        first = int(rows[0])
        shown = ", ".join(f"{df[c].iloc[first]!r}" for c, v in zip((xcol, ycol), cols) if pd.isna(v.iloc[first]))
        raise InputDataError(f"{rows.size:,} row{'s' * (rows.size != 1)} of {xcol!r} / {ycol!r} "
                             f"{'holds' if rows.size == 1 else 'hold'} text, not numbers "
                             f"(data row {', '.join(str(r + 1) for r in rows[:5])}{' ...' if rows.size > 5 else ''}; "
                             f"row {first + 1} holds {shown}); fix or remove them (an empty cell is a missing point, "
                             "dropped and counted)")
    return np.column_stack([v.to_numpy(dtype=float) for v in cols]), 0


@st.cache_resource(show_spinner="Loading the sample...", max_entries=4)
def _sample(name: str) -> tuple[np.ndarray, str]:
    """A bundled sample's (n, 2) points, read-only, and their fingerprint: one copy per process, shared by every
    session (public, the same for all; a cached copy per session held 34 copies of the GeoNames sample)."""
    s = get_sample(name)
    xy = load_sample(name)[[s.x, s.y]].to_numpy(dtype=float)
    xy.setflags(write=False)
    return xy, fingerprint(xy)


NO_USER = "none: each point is the privacy unit"


def user_fingerprint(user: np.ndarray) -> str:
    return hashlib.sha1(pd.util.hash_array(np.asarray(user, dtype=object)).tobytes()).hexdigest()[:16]


def _points(df: pd.DataFrame, xcol: str, ycol: str) -> tuple[np.ndarray, int, str]:
    """:func:`pick_points` (the array made read-only: the session's builds read it, none may change it) and
    the points' fingerprint."""
    xy, bad = pick_points(df, xcol, ycol)
    xy.setflags(write=False)
    return xy, bad, fingerprint(xy)


def choose_user(df: pd.DataFrame, cols: list[str], taken: tuple[str, str]) -> tuple[np.ndarray | None, int | None]:
    """Optional user id column and the bound k: user-level privacy (one user, at most k points)."""
    options = [NO_USER] + [c for c in cols if c not in taken]
    pick = st.selectbox("User id column (optional)", options, key="user_col",
                        help="When one person has many rows (check-ins, GPS traces), protect the person: "
                             "at most k rows per user are kept (chosen at random) and the release is "
                             "epsilon-DP for adding or removing one user.")
    if pick == NO_USER:
        return None, None
    k = st.number_input("At most k points per user", min_value=1, max_value=10_000, value=10, step=1, key="user_k",
                        help="Each user's rows beyond k are dropped at random; every count is then noised "
                             "for k points (group privacy), so a larger k keeps more data but adds more noise.")
    ids = df[df.columns[cols.index(pick)]]
    if ids.isna().any():
        raise InputDataError(f"user id column {pick!r} has {int(ids.isna().sum()):,} empty values: give every row a "
                             "user id, or pick another column")
    return ids.to_numpy(), int(k)


PRESET = "a country or US state (public outline)"


def _kept(key: str, default):
    """Start a widget's value from what the user last chose, kept outside the widget: a widget that a
    run does not draw (after a failed upload) loses its own state, the user's choice must not. The copy is
    the one :func:`psdviz.ui.state.keep_widget_state` keeps of every input, written here at once because
    this page's run may not reach that mirror before the next one."""
    st.session_state.setdefault(key, st.session_state.get(MIRROR + key, default))
    return key


def _keep(key: str, value):
    st.session_state[MIRROR + key] = value
    return value


def _choose_domain(declared: Domain | None, key: str) -> tuple[Domain, str]:
    options = (["the sample's declared domain"] if declared is not None else []) + ["the world", PRESET,
                                                                                    "typed bounds"]
    pick = _keep(f"{key}_domain", st.radio(
        "Domain (public bounds)", options, key=_kept(f"{key}_domain", options[0]),
        help="The domain is public input, never read from the data: the cells split it, and points outside it "
             "are dropped (the app says how many). Presets come from public outlines, never from the data."))
    return _domain_of(pick, declared, key)


def _domain_of(pick: str, declared: Domain | None, key: str) -> tuple[Domain, str]:
    """The domain of a choice of :func:`_choose_domain`, with the widgets it needs (place, typed bounds)."""
    if pick.startswith("the sample") and declared is not None:
        return declared, "sample's declared domain"
    if pick == "the world":
        return Domain.world(), "world"
    if pick == PRESET:
        names = list(presets())
        name = _keep(f"{key}_preset", st.selectbox("Place", names, key=_kept(f"{key}_preset", LOWER_48)))
        d = preset_domain(name)
        st.caption(f"x [{d.xmin:g}, {d.xmax:g}], y [{d.ymin:g}, {d.ymax:g}] (bounds of the public outline)")
        return d, name
    c1, c2 = st.columns(2)
    bounds = [_keep(k, col.number_input(label, key=_kept(k, default)))
              for col, label, k, default in ((c1, "x min (lon)", f"{key}_xmin", -180.0),
                                             (c2, "x max (lon)", f"{key}_xmax", 180.0),
                                             (c1, "y min (lat)", f"{key}_ymin", -90.0),
                                             (c2, "y max (lat)", f"{key}_ymax", 90.0))]
    return Domain(bounds[0], bounds[2], bounds[1], bounds[3]), "typed bounds"


def sample_dataset(name: str) -> Dataset:
    """A bundled sample with its declared domain (the Teach page's data when the map page has none)."""
    s = get_sample(name)
    xy, fp = _sample(name)
    return Dataset(name, xy, s.domain or Domain.world(), "sample's declared domain", 0, fp, bundled=True)


@dataclass(frozen=True)
class Step:
    """What an upload still needs before anything is built, said where the map would be (the main area)."""

    title: str
    text: str
    bounds: bool = False          # the public bounds step: its choices are drawn with it (:func:`bounds_step`)
    problem: bool = False         # the data cannot be used as given: said as an error, beside the sidebar's


ASKED_FILE = "psdviz_asked_file"      # the file a page address names (a reload or a link): asked for by name
UPLOAD_DOMAIN = "upload_domain"       # the upload's public bounds choice (None until chosen: no silent default)
WHY_BOUNDS = ("The bounds must not come from the data: its own extent would publish where its outermost points "
              "lie (a person at the edge of the map would be given away), so they are public input, chosen here.")
BOUND_CHOICES = (PRESET, "typed bounds", "the world")


def choose_data() -> Dataset | Step:
    """Sidebar: sample or upload. A :class:`Dataset` to build from; a :class:`Step` the upload still needs (a
    file, its coordinate columns, its public bounds, or a fix of its data after an st.error saying what to fix),
    for the page to say where the map would be."""
    spatial = [n for n, s in SAMPLES.items() if s.spatial]
    source = st.radio("Data", [f"sample: {n}" for n in spatial] + ["upload a file"], key="data_source",
                      help="A bundled public sample, or your own points (lon/lat columns).")
    try:
        if source.startswith("sample: "):
            name = source.removeprefix("sample: ")
            s = get_sample(name)
            st.caption(f"{s.description}. {s.attribution}")
            xy, fp = _sample(name)
            domain, dsrc = _choose_domain(s.domain, "sample")
            return Dataset(name, xy, domain, dsrc, 0, fp, bundled=True)
        return _uploaded_data()
    except (PsdvizError, OSError) as exc:
        st.error(f"Data problem: {words.file_text(exc)}")
        return Step("Data problem", f"{words.file_text(exc)} (1. Data, in the sidebar)", problem=True)


def _uploaded_data() -> Dataset | Step:
    up = st.file_uploader(f"Points file (CSV/TSV, Parquet, GeoJSON, GeoPackage; at most {MAX_UPLOAD_MB} MB "
                          f"and {MAX_ROWS:,} rows)", type=UPLOAD_TYPES, key="upload")
    if up is not None and st.session_state.get(UPLOAD_ID) != up.file_id:
        # kept for the session: the uploader forgets it on another page (taken once: the same bytes on
        # every run, so what is read from them is read once, psdviz.ui.session_memo)
        before = st.session_state.get(UPLOAD_KEPT)
        if before is not None and before[0] != up.name:        # another file: its own public bounds
            for gone in (UPLOAD_DOMAIN, MIRROR + UPLOAD_DOMAIN):
                st.session_state.pop(gone, None)
        st.session_state[UPLOAD_KEPT] = (up.name, up.getvalue())
        st.session_state[UPLOAD_ID] = up.file_id
        st.session_state.pop(ASKED_FILE, None)
    kept = st.session_state.get(UPLOAD_KEPT)
    asked = st.session_state.get(ASKED_FILE)
    if kept is None:
        if asked:
            return Step(f"Upload {asked} again",
                        f"This view was made with the file {words.file_text(asked)}. A page address never holds "
                        "the data: upload the file again in the sidebar (1. Data) to see the same view with fresh "
                        "noise.")
        return Step("Upload a points file",
                    "Pick a file in the sidebar (1. Data): CSV/TSV, Parquet, GeoJSON or GeoPackage with a longitude "
                    "and a latitude column, or pick a bundled sample.")
    name, raw = kept
    if up is None:
        st.caption(f"Using `{name}`, uploaded earlier in this session (Start over forgets it).")
    df = remembered(UPLOAD_TABLE, name, lambda: read_table(name, raw), owner=raw, keep=1)
    cols = [str(c) for c in df.columns]
    xcol = st.selectbox("Longitude / x column", cols, index=guess_column(cols, X_NAMES), key="xcol",
                        placeholder="pick the longitude / x column")
    ycol = st.selectbox("Latitude / y column", cols, index=guess_column(cols, Y_NAMES), key="ycol",
                        placeholder="pick the latitude / y column")
    if xcol is None or ycol is None:
        shown = ", ".join(words.file_text(c) for c in cols[:12]) + (" ..." if len(cols) > 12 else "")
        st.info("No column is named like a longitude or a latitude: pick the x and y columns.")
        return Step("Pick the coordinate columns",
                    f"No column of {words.file_text(name)} is named like a longitude or a latitude (lon, lng, "
                    f"longitude, x; lat, latitude, y). Its columns: {shown}. Pick the longitude / x column and the "
                    "latitude / y column in the sidebar, under 1. Data.")
    xy, bad, fp = remembered(UPLOAD_POINTS, (name, xcol, ycol), lambda: _points(df, xcol, ycol), owner=raw, keep=2)
    user, k = choose_user(df, cols, (xcol, ycol))
    if user is not None:     # the id column picked (choose_user's widget) names the ids' fingerprint
        fp = f"{fp}|u{k}|" + remembered(UPLOAD_POINTS, (name, "user", st.session_state.get("user_col")),
                                        lambda: user_fingerprint(user), owner=raw, keep=2)
    if st.session_state.get(UPLOAD_DOMAIN, st.session_state.get(MIRROR + UPLOAD_DOMAIN)) is None:
        st.info("Next: the public bounds of these points (in the main area).")
        return Step(f"Public bounds for {name}", WHY_BOUNDS, bounds=True)
    domain, dsrc = _choose_domain(None, "upload")
    return Dataset(name, xy, domain, dsrc, bad, fp, user, k)


def asked_name() -> str:
    """The uploaded file's name (the one kept, else the one a page address asks for), for the address."""
    kept = st.session_state.get(UPLOAD_KEPT)
    return str(kept[0]) if kept is not None else str(st.session_state.get(ASKED_FILE) or "")


def bounds_step(step: Step) -> None:
    """The upload's public bounds as a step of its own, in the main area: a country or US state from the
    bundled public outlines, typed bounds, or the whole world, each a choice (none is taken for the user);
    "Use these bounds" keeps the choice, which the sidebar then shows and changes."""
    st.subheader(words.file_text(step.title))
    st.markdown(step.text)
    pick = st.radio("Public bounds of the points", BOUND_CHOICES, index=None, key="upload_bounds_pick",
                    help="A country or US state: the bounds of its public outline (Natural Earth, US Census). "
                         "Typed bounds: any box you can state without reading the data. The world: every point "
                         "kept, in cells as large as a continent for a city's points.")
    if pick is None:
        st.info("Choose one of the three: the map is built once the bounds are chosen.")
        return
    try:
        domain, _ = _domain_of(pick, None, "upload")
    except PsdvizError as exc:
        st.error(f"Bounds problem: {words.file_text(exc)}")
        return
    if pick == "the world":
        st.caption("The whole world: x [-180, 180], y [-90, 90]. For points in one city, a country or typed "
                   "bounds give cells of a useful size.")
    if st.button("Use these bounds", key="upload_bounds_btn", type="primary"):
        st.session_state[UPLOAD_DOMAIN] = st.session_state[MIRROR + UPLOAD_DOMAIN] = pick
        st.rerun()


def layer_objects(name: str, data: bytes) -> list[str]:
    """The objects of an uploaded TopoJSON file or the layers of a GeoPackage (one of them is the region
    layer); [] for files that hold one layer."""
    import json
    from pathlib import Path
    if b'"Topology"' in data[:4096]:
        try:
            objects = json.loads(data).get("objects")
        except (ValueError, RecursionError, AttributeError):
            raise InputDataError(f"{name} is not a JSON file") from None
        return [str(k) for k in objects] if isinstance(objects, dict) else []
    if Path(name).suffix.lower() == ".gpkg":
        import geopandas as gpd
        return open_upload(data, name, lambda path: [str(n) for n in gpd.list_layers(path)["name"]], "layer")
    return []


def layer_columns(name: str, data: bytes, layer: str | None = None) -> list[str]:
    """The attribute columns of an uploaded region layer (GeoJSON, GeoPackage, zipped Shapefile,
    TopoJSON; ``layer``: the TopoJSON object or GeoPackage layer), to pick its id, parent and name columns
    from."""
    import json
    from pathlib import Path

    import geopandas as gpd
    if b'"Topology"' in data[:4096]:
        objects = json.loads(data).get("objects", {})
        chosen = objects.get(layer) if layer is not None else next(iter(objects.values()), {})
        geoms = (chosen or {}).get("geometries", []) if isinstance(chosen, dict) else []
        cols = {"id"} | {k for g in geoms[:50] if isinstance(g, dict) for k in (g.get("properties") or {})}
        return sorted(cols)

    def head(path: Path):
        try:
            return gpd.read_file(f"zip://{path}" if path.suffix.lower() == ".zip" else path, rows=5, layer=layer)
        except Exception as exc:   # pyogrio raises its own errors for unreadable files
            raise InputDataError(f"cannot read {name}: {exc}") from None
    frame = open_upload(data, name, head, "layer")
    return [c for c in frame.columns if c != "geometry"]

