"""One privacy budget for a data set across releases: refused before any data is read, recorded after,
never overspent by two processes at once, units that must match, every release kind, the CLI."""
from __future__ import annotations

import json
import multiprocessing as mp

import numpy as np
import pandas as pd
import pytest

import psdviz as pv
from psdviz.cli import main

PTS = np.random.default_rng(0).random((2000, 2))
DOM = pv.Domain(0, 0, 1, 1)


def test_a_build_that_does_not_fit_is_refused_before_any_data_is_read(tmp_path):
    b = pv.Budget(tmp_path / "b.json", total_epsilon=1.0)
    pv.build(PTS, DOM, "quadtree", 0.7, privacy_budget=b)
    before = (tmp_path / "b.json").read_text()
    missing = str(tmp_path / "no_such_file.parquet")       # reading it would fail: the budget speaks first
    with pytest.raises(pv.BudgetError, match=r"has epsilon 0\.3 left of 1; this release asks for 0\.5"):
        pv.build(missing, DOM, "quadtree", 0.5, lon="x", lat="y", privacy_budget=b)
    assert (tmp_path / "b.json").read_text() == before       # the ledger unchanged
    assert [e.kind for e in b.entries] == ["spatial"] and b.remaining == pytest.approx(0.3)


def test_every_kind_draws_from_one_budget_and_it_reads_in_words(tmp_path):
    from psdviz import coco as cc
    from psdviz import regions as rg
    from psdviz.sparse import make_table, summarize
    pts = np.column_stack([-100 + PTS[:, 0] * 10, 35 + PTS[:, 1] * 5])
    b = pv.Budget(tmp_path / "b.json", total_epsilon=2.0)
    pv.build(pts, pv.Domain(-100, 35, -90, 40), "ug", 0.5, privacy_budget=b)
    pv.build_regions(pts, rg.us_states(), epsilon=0.5, privacy_budget=b)
    rb = pv.Budget(tmp_path / "records.json", total_epsilon=1.0, unit="one record")
    h = cc.Hierarchy.from_paths([("a",), ("b",)], root="root")
    cc.publish(cc.group_records([1, 1, 2], ["a", "a", "b"], h, max_size=4, group_list=([1, 2], ["a", "b"])),
               method="hc", epsilon=0.25, privacy_budget=rb)
    sb = pv.Budget(tmp_path / "cells.json", total_epsilon=1.0, unit="one individual (changes the table's counts "
                   "by at most 1 in total)")
    summarize(make_table(np.array([1, 5]), np.array([3, 4]), 64), "filter-priority", 0.5, privacy_budget=sb)
    assert [e.kind for e in b.entries] == ["spatial", "regions"] and b.remaining == pytest.approx(1.0)
    assert rb.entries[0].kind == "count-of-counts" and sb.entries[0].kind == "sparse"
    text = b.report()
    assert "compose sequentially" in text and "remaining: epsilon 1" in text


def test_units_must_match_and_the_refusal_states_the_group_privacy_rule(tmp_path):
    b = pv.Budget(tmp_path / "u.json", total_epsilon=4.0, unit="one user, at most 3 points")
    with pytest.raises(pv.BudgetError, match=r"protects a user of at most 3 points at 1\.5"):
        pv.build(PTS, DOM, "ug", 0.5, privacy_budget=b)
    users = np.arange(len(PTS)) % 500
    pv.build(PTS, DOM, "ug", 0.5, user=users, max_points_per_user=3, privacy_budget=b)
    p = pv.Budget(tmp_path / "p.json", total_epsilon=4.0)
    with pytest.raises(pv.BudgetError, match="keep a user-level budget for user-level releases"):
        pv.build(PTS, DOM, "ug", 0.5, user=users, max_points_per_user=3, privacy_budget=p)


def _draw(path: str, eps: float, out) -> None:
    b = pv.Budget(path)
    try:
        b.record("spatial", "ug", eps, 0.0, "one point")
        out.put("ok")
    except pv.BudgetError:
        out.put("refused")


def test_two_processes_drawing_at_once_never_overspend(tmp_path):
    path = str(tmp_path / "b.json")
    pv.Budget(path, total_epsilon=1.0)
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    procs = [ctx.Process(target=_draw, args=(path, 0.6, q)) for _ in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    results = sorted(q.get(timeout=10) for _ in procs)
    assert results == ["ok", "refused", "refused", "refused"]
    assert json.loads((tmp_path / "b.json").read_text())["releases"][0]["epsilon"] == 0.6


def test_a_damaged_budget_file_is_refused_in_words(tmp_path):
    (tmp_path / "b.json").write_text('{"format": "psdviz-budget", "format_version": 1, "total_epsilon": -1}')
    with pytest.raises(pv.BudgetError, match="is not a psdviz budget file"):
        pv.Budget(tmp_path / "b.json")
    with pytest.raises(pv.BudgetError, match="give total_epsilon= to create one"):
        pv.Budget(tmp_path / "none.json")


def test_the_cli_keeps_a_budget(tmp_path, capsys):
    csv = tmp_path / "p.csv"
    pd.DataFrame({"lon": PTS[:, 0], "lat": PTS[:, 1]}).to_csv(csv, index=False)
    budget = str(tmp_path / "b.json")
    assert main(["budget", "init", budget, "--epsilon", "1"]) == 0
    base = ["build", str(csv), "--lon", "lon", "--lat", "lat", "--domain", "0", "0", "1", "1", "--budget", budget]
    assert main([*base, "--epsilon", "0.6", "--out", str(tmp_path / "a.parquet")]) == 0
    capsys.readouterr()
    assert main([*base, "--epsilon", "0.6", "--out", str(tmp_path / "b.parquet")]) == 2
    assert "has epsilon 0.4 left of 1" in capsys.readouterr().err and not (tmp_path / "b.parquet").exists()
    assert not list(tmp_path.glob("*.partial*"))
    assert main(["budget", "show", budget]) == 0
    out = capsys.readouterr().out
    assert "spatial (auto), epsilon 0.6" in out and str(tmp_path / "a.parquet") in out
    assert main(["budget", "init", budget, "--epsilon", "1"]) == 2       # created once
