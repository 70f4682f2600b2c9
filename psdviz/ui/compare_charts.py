"""Plotly figures and exports for the accuracy lab (no Streamlit here, so tests can build them).

Every number comes from :mod:`psdviz.lab.compare`'s tidy table; this module only draws and serialises.
"""
from __future__ import annotations

import json

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from ..lab.compare import summarize

ERROR_LABEL = "relative error |est - true| / max(true, 0.001 N)"
DECADES = dict(dtick=1, exponentformat="power")   # log axes: label powers of ten only (no 2, 5 clutter)


def _shape_order(results: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(results["shape"]))


def error_boxes(results: pd.DataFrame, epsilon: float, log_y: bool = True) -> go.Figure:
    """Box plots of the relative error per method, one group per query shape, at one epsilon."""
    sel = results[results["epsilon"] == epsilon]
    fig = px.box(sel, x="shape", y="rel_error", color="method", points=False, log_y=log_y,
                 category_orders={"shape": _shape_order(results)},
                 labels={"rel_error": "relative error", "shape": "query shape (width, height)"},
                 title=f"Relative error per query shape at epsilon = {epsilon:g}")
    fig.update_layout(legend_title_text="method", height=430, margin=dict(t=50, b=40))
    if log_y:
        fig.update_yaxes(**DECADES)
    return fig


def error_lines(results: pd.DataFrame, log_y: bool = True, auto_pick: str | None = None,
                target: float | None = None) -> go.Figure:
    """The privacy-accuracy frontier: median relative error against epsilon, one line per method, one
    panel per query shape; the method ``auto`` picks is drawn thicker with stars, ``target`` dashed."""
    s = summarize(results).sort_values("epsilon")
    shapes = _shape_order(results)
    fig = px.line(s, x="epsilon", y="median_rel_error", color="method", facet_col="shape", markers=True,
                  facet_col_wrap=min(len(shapes), 3), log_x=True, log_y=log_y,
                  category_orders={"shape": shapes},
                  labels={"median_rel_error": "median relative error", "epsilon": "epsilon"},
                  title="Privacy-accuracy frontier: median relative error against epsilon")
    fig.for_each_annotation(lambda a: a.update(text=a.text.replace("shape=", "")))
    for tr in fig.data:
        if auto_pick is not None and tr.name in (auto_pick, "auto"):
            tr.update(line_width=4, marker_symbol="star", marker_size=12, legendgroup=tr.name,
                      name=f"{tr.name} (auto's pick)")
    if target is not None:
        fig.add_hline(y=target, line_dash="dash", line_color="grey")
    rows = -(-len(shapes) // min(len(shapes), 3))
    fig.update_layout(height=300 + 220 * (rows - 1), margin=dict(t=60, b=40))
    fig.update_xaxes(tickvals=sorted(s["epsilon"].unique()), tickformat="~g")   # ticks at the epsilons run
    if log_y:
        fig.update_yaxes(**DECADES)
    return fig


def build_times(results: pd.DataFrame) -> go.Figure:
    """Median build time per method and epsilon (one value per trial)."""
    t = results.drop_duplicates(["method", "epsilon", "trial"])
    t = t.groupby(["method", "epsilon"], sort=False)["build_seconds"].median().reset_index()
    t["epsilon"] = t["epsilon"].map(lambda e: f"{e:g}")
    fig = px.bar(t, x="method", y="build_seconds", color="epsilon", barmode="group",
                 labels={"build_seconds": "median build time (s)"}, title="Build time per method")
    fig.update_layout(height=350, margin=dict(t=50, b=40))
    return fig


def summary_table(results: pd.DataFrame) -> pd.DataFrame:
    return summarize(results)


def results_csv(results: pd.DataFrame) -> bytes:
    """The tidy per-query table: estimates, true answers and errors; no query rectangles, no points."""
    return results.to_csv(index=False).encode()


def results_json(results: pd.DataFrame, experiment: dict, reports: dict[str, dict]) -> bytes:
    """Experiment settings, the error summary and each (method, epsilon) cell's privacy report."""
    doc = {
        "experiment": experiment,
        "summary": summarize(results).to_dict(orient="records"),
        "privacy_reports": reports,
        "contents": "Error summary and privacy reports (ledger per build). True answers appear only "
                    "inside the error figures; no query rectangles and no data points are exported.",
    }
    return json.dumps(doc, indent=2, default=float).encode()
