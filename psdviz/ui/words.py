"""Numbers and ledgers in words for people: rounded, with levels named (one place for every page)."""
from __future__ import annotations

import re

import pandas as pd

_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")

# How the pages speak of the modelled error of the cells a query's border cuts (psdviz.query.uniformity)
CUT_MODEL = ("a model, not a bound: the points of each cut cell taken to be as unevenly spread as the release's "
             "leaves are inside their parents, or as one clump whose error moves with its neighbours' where the "
             "data placed the cells' edges (a kd-tree's medians); points clumped more finely make the error larger")


def file_text(text: object) -> str:
    """Text from a file someone else made (a release's method, notes, parameters), for Streamlit's markdown:
    every markdown, LaTeX and colour-directive character backslash-escaped, so the reader sees the text as
    written, never an image fetched from an address in it, a link, a formula or a coloured span."""
    return _MARKDOWN.sub(r"\\\1", str(text))


def short(v) -> str:
    """Floats to 4 significant digits (0.013571428571428571 -> 0.01357); other values as they are."""
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def ledger_frame(records: list[dict]) -> pd.DataFrame:
    """The ledger for a table: a step without a tree level reads "whole release" (epsilons stay exact:
    a reader adds them up)."""
    df = pd.DataFrame(records)
    if df.empty:
        return df
    df["level"] = df["level"].map(lambda v: "whole release" if pd.isna(v) else str(int(v)))
    return df
