"""Optional packages: imported where they are used, with an error that says which extra installs them.

The engine's core needs numpy, pandas, pyarrow, DuckDB, rich and PyYAML only (``pip install psdviz``). Region
layers, the app, Dask and Spark each bring heavy packages, installed by an extra of their own
(``pyproject.toml``; docs/decisions/optional-dependencies.md). A function that needs one of them calls
:func:`require` at the moment it needs it, so ``import psdviz`` and every core route work without them.
"""
from __future__ import annotations

import importlib
from types import ModuleType

# import name -> the extra that installs it (pyproject.toml's optional-dependencies)
EXTRAS: dict[str, str] = {
    "geopandas": "geo",
    "shapely": "geo",
    "pyproj": "geo",
    "dask": "dask",
    "distributed": "dask",
    "pyspark": "spark",
    "streamlit": "app",
    "streamlit_folium": "app",
    "folium": "app",
    "branca": "app",
    "plotly": "app",
    "PIL": "app",
}


class MissingExtraError(ImportError):
    """An optional package is not installed; the message names the extra that installs it."""


def install_hint(module: str) -> str:
    """The pip command that installs ``module``'s extra."""
    extra = EXTRAS.get(module.split(".")[0], "all")
    return f"pip install 'psdviz[{extra}]'"


def require(module: str, what: str = "") -> ModuleType:
    """Import ``module`` (e.g. ``"shapely"``, ``"scipy.ndimage"``) or raise :class:`MissingExtraError`.

    Parameters
    ----------
    module : str
        The dotted module name.
    what : str
        What needs it, for the message ("region layers", "--scheduler").

    Returns
    -------
    module
        The imported module.
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        root = module.split(".")[0]
        if exc.name is not None and exc.name.split(".")[0] != root:
            raise                         # the package is there but broken: not a missing extra
        need = f" for {what}" if what else ""
        raise MissingExtraError(f"{root} is needed{need} but is not installed: {install_hint(root)}") from None
