"""Sparse-summary views without Streamlit: the block heatmap of summary next to truth, and the
error-against-query-size chart. A table of R x C cells (contingency rows x columns, or grid rows
y x columns x) is shown as at most ``side`` x ``side`` blocks, each the sum of its cells.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
from plotly.subplots import make_subplots


def table_shape(layout: dict, m: int) -> tuple[int, int]:
    """(rows, columns) of the table's cell order (row-major)."""
    if layout.get("kind") == "contingency":
        rows, cols = (int(v) for v in layout["shape"])
        return rows, cols
    if layout.get("kind") == "grid":
        return int(layout["ny"]), int(layout["nx"])
    side = int(np.ceil(np.sqrt(m)))
    return int(np.ceil(m / side)), side


def block_sums(indices, values, shape: tuple[int, int], side: int = 120) -> np.ndarray:
    """(br, bc) matrix of block sums of the cells ``indices`` with ``values`` (vectorised)."""
    R, C = shape
    fr, fc = max(1, -(-R // side)), max(1, -(-C // side))
    br, bc = -(-R // fr), -(-C // fc)
    idx = np.asarray(indices, dtype=np.int64)
    blk = (idx // C) // fr * bc + (idx % C) // fc
    return np.bincount(blk, weights=np.asarray(values, dtype=float), minlength=br * bc).reshape(br, bc)


def _signed_log(a: np.ndarray) -> np.ndarray:
    return np.sign(a) * np.log10(1.0 + np.abs(a))


def heatmaps(truth: np.ndarray, summary: np.ndarray, titles=("truth (not private)", "private summary")) -> go.Figure:
    """Two heatmaps on one colour scale: sign(v) log10(1 + |v|) of the block sums."""
    t, s = _signed_log(truth), _signed_log(summary)
    top = float(max(np.abs(t).max(initial=0), np.abs(s).max(initial=0), 1e-9))
    fig = make_subplots(1, 2, subplot_titles=titles, horizontal_spacing=0.06)
    for k, (z, raw) in enumerate(((t, truth), (s, summary)), 1):
        fig.add_trace(go.Heatmap(z=z, customdata=raw, coloraxis="coloraxis",
                                 hovertemplate="block row %{y}, col %{x}<br>sum %{customdata:.0f}<extra></extra>"),
                      1, k)
    fig.update_layout(coloraxis=dict(colorscale="Viridis", cmin=-top if (t.min() < 0 or s.min() < 0) else 0, cmax=top,
                                     colorbar=dict(title="log10(1+sum)")),
                      height=430, margin=dict(t=50, b=30), title="Block sums: truth and private summary")
    fig.update_xaxes(title_text="block column")
    fig.update_yaxes(title_text="block row", row=1, col=1)
    return fig


def error_chart(errors: pd.DataFrame, measure: str = "abs_error") -> go.Figure:
    """Median error against query size, one line per query kind (log-log)."""
    g = errors.groupby(["kind", "size"])[measure].median().reset_index()
    label = "median absolute error" if measure == "abs_error" else "median relative error"
    zero = g[measure] <= 0
    g[measure] = g[measure].where(~zero)          # a log axis cannot show 0: leave those points out
    title = "Error against query size" + (" (sizes with median error 0 are not drawn)" if zero.any() else "")
    fig = px.line(g, x="size", y=measure, color="kind", markers=True, log_x=True, log_y=True,
                  labels={"size": "query size (cells)", measure: label, "kind": "query"}, title=title)
    fig.update_layout(height=380, margin=dict(t=50, b=40))
    fig.update_xaxes(dtick=1)
    fig.update_yaxes(dtick=1, exponentformat="power")
    return fig
