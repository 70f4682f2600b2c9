"""The privacy statement a publisher can hand on: any release's report as Markdown a person reads.

One function for every release kind (spatial, regions, count-of-counts, sparse): what was released,
the privacy unit and epsilon in words, the ledger, the expected error at typical query sizes (from the
release's own variances: post-processing, no privacy cost), and what in it is not private. It reads only
``report()`` and released values, never the owner's audit.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.errors import ParameterError

REPORT_FORMATS = ("json", "markdown")


def check_format(fmt: str) -> str:
    """``format=`` of ``report``: "json" (a dict) or "markdown" (a str)."""
    if fmt not in REPORT_FORMATS:
        raise ParameterError(f"format must be one of {REPORT_FORMATS} (got {fmt!r})")
    return fmt


def rounded(v: float) -> str:
    """A number rounded for people: counts with separators, small values to 3 significant digits."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "not known"
    if v == 0:
        return "0"
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"


def markdown(rel) -> str:
    """The release's privacy statement in Markdown (see the module docstring)."""
    rep = rel.report()
    title = _method(rep)
    lines = [f"# Privacy statement: {title}", ""]
    if "warning" in rep or rep.get("private") is False or "NOT PRIVATE" in str(rep.get("structure", "")):
        lines += [f"> **NOT PRIVATE.** {_not_private(rep)}", ""]
    lines += ["## What was released", "", *_what(rel, rep), "", "## Privacy", "", *_privacy(rel, rep), "",
              "## Ledger", "", "Every use of the data and the epsilon it spent; epsilons add up (sequential "
              "composition), and disjoint cells measured at one level share one epsilon (parallel composition).", "",
              "| step | epsilon | mechanism | level | nodes |", "|---|---:|---|---:|---:|"]
    for s in rep.get("ledger", []):
        level = "" if s.get("level") is None else str(s["level"])
        lines.append(f"| {_cell(s.get('what'))} | {float(s['epsilon']):.4g} | {_cell(s.get('mechanism'))} | {level} | "
                     f"{int(s.get('nodes', 0)):,} |")
    lines += ["", "## Expected error", "", *_errors(rel), "", "## What is not private", "", _not_private(rep), ""]
    notes = rep.get("notes") or []
    if notes:
        lines += ["## Notes", ""] + [f"- {_cell(n)}" for n in notes] + [""]
    return "\n".join(lines)


def _cell(v) -> str:
    return " ".join(str(v).split()).replace("|", "/")


SAID_ELSEWHERE = ("why", "rule", "chosen")     # auto's choice and its reason: said in their own sentence
LISTED_UP_TO = 4                               # a longer list (a workload's rectangles) is given by its length


def parameters_text(params: dict) -> str:
    """A release's parameters as "name = value" pairs for people: numbers rounded (:func:`rounded`), None as
    "none" (a step switched off, a fact not read), a long list by its length, auto's choice and its reason left to
    their own sentence. The statement, ``psdviz info`` and the app's pages all say the parameters this way."""
    parts = []
    for k, v in params.items():
        if k in SAID_ELSEWHERE:
            continue
        if v is None:
            v = "none"
        elif isinstance(v, (list, tuple)) and len(v) > LISTED_UP_TO:
            v = f"{len(v):,} items"
        elif isinstance(v, float):
            v = rounded(v)
        parts.append(f"{k} = {v}")
    return ", ".join(parts)


def _method(rep: dict) -> str:
    params = rep["parameters"]
    if "methods" in rep:
        return "count of counts (" + ", ".join(rep["methods"]) + ")"
    m = str(rep.get("method", "release"))
    return f"{m} (chose {params['chosen']})" if "chosen" in params else m


def _what(rel, rep: dict) -> list[str]:
    out = [f"- method: {_method(rep)}"]
    if "cells" in rep:
        d = rep["domain"]
        out.append(f"- {rep['cells']:,} cells ({rep['nodes']:,} nodes in the tree) over the domain "
                   f"x [{d[0]:g}, {d[2]:g}], y [{d[1]:g}, {d[3]:g}]")
        res = rep.get("resolution") or {}
        if isinstance(res, dict) and "bits" in res:
            out.append(f"- resolution: {res['bits']} bits ({res['positions_per_axis']:,} grid positions per axis); "
                       "every released coordinate lies on that public grid")
    elif "regions" in rep:
        out.append(f"- counts of {rep['regions']:,} regions in {rep['levels']} levels")
    elif "max_size" in rep:
        out.append(f"- count-of-counts histograms of {rep['nodes']:,} nodes in {rep['levels']} levels (group sizes "
                   f"0 to {rep['max_size']:,})")
    elif "windows" in rep:
        out.append(f"- counts of {rep['time_cells']:,} cells in each of {rep['windows']:,} windows of {rep['window']} "
                   f"from {rep['span'][0]} to {rep['span'][1]} (UTC)")
    elif "m" in rep:
        out.append(f"- a summary of {rep['size']:,} entries of a table of {rep['m']:,} cells")
    params = rep["parameters"]
    if params:
        text = parameters_text(params)
        if text:
            out.append(f"- parameters: {_cell(text)}")
    return out


def _factor(eps: float) -> str:
    """e^epsilon for people; beyond a double's range (epsilon above about 709) in words."""
    return rounded(math.exp(eps)) if eps < 700 else f"about 10^{eps / math.log(10):,.0f}"


def _privacy(rel, rep: dict) -> list[str]:
    eps = float(rep["epsilon"])
    delta = float(rep.get("delta") or 0.0)
    unit = str(rep.get("privacy_unit", "one record"))
    dp = f"({rounded(eps)}, {delta:.3g})-differential privacy" if delta else f"{rounded(eps)}-differential privacy"
    return [f"- {dp} per {unit}: whatever {unit.split(',')[0]} contributes, every output of this release is at "
            f"most e^{rounded(eps)} = {_factor(eps)} times more (or less) likely than without it"
            + (f", except with probability at most {delta:.3g}" if delta else "") + ".",
            f"- epsilon spent: {float(rep.get('epsilon_spent', eps)):.6g} of {eps:g}.",
            f"- randomness: {rep.get('randomness')}."]


def _errors(rel) -> list[str]:
    """Typical errors from the release's own variances (spatial: centred squares; regions: per level;
    others: each measured count's noise from the ledger)."""
    if hasattr(rel, "answer_interval") and getattr(rel, "grid", None) is not None:
        d = rel.domain
        rows = ["| query | estimate | 95 % interval (noise and the cells the edges cut) | noise standard error |",
                "|---|---:|---|---:|"]
        for share in (0.01, 0.1, 0.5):
            r = d.centred_rect(share)
            est, (lo, hi) = float(rel.answer(r)[0]), rel.answer_interval(r)[0]
            se = math.sqrt(max(float(rel.answer_variance(r)[0]), 0.0))
            rows.append(f"| a centred rectangle of {share:.0%} of the domain | {rounded(max(est, 0.0))} | "
                        f"{rounded(lo)} to {rounded(hi)} | {rounded(se)} |")
        return rows
    if hasattr(rel, "counts"):
        c = rel.counts()
        rows = ["| level | regions | median standard error |", "|---:|---:|---:|"]
        for lvl, g in c.groupby("level"):
            rows.append(f"| {lvl} | {len(g):,} | {rounded(float(np.median(g['standard_error'])))} |")
        return rows
    rows = ["| step | noise standard deviation of each measured count |", "|---|---:|"]
    for s in rel.ledger.records():
        counted = str(s["mechanism"]).startswith(("geometric", "laplace"))      # a choice measures no count
        if float(s["epsilon"]) > 0 and counted and not str(s["what"]).startswith("partition:"):
            sd = math.sqrt(2) * float(s.get("sensitivity") or 1.0) / float(s["epsilon"])
            rows.append(f"| {_cell(s['what'])} | about {rounded(sd)} |")
    return rows


def _not_private(rep: dict) -> str:
    if rep.get("private") is False:
        return "This is a non-private reference, built for comparison only: it is not a release."
    if "warning" in rep:
        return str(rep["warning"])
    if "NOT PRIVATE" in str(rep.get("structure", "")):
        return f"The structure: {rep['structure']}."
    return ("Nothing: every released number is a function of noisy measurements recorded in the ledger and of "
            "public inputs (the domain, the resolution, the parameters); no exact count of the input and no seed "
            "are in the release.")
