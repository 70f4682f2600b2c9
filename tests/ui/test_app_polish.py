"""Map-page polish: parameter widgets typed by the engine, explanations, the kept query rectangle."""
import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest
from test_app_page import RECT, SCRIPT, _drawing

import psdviz as pv
from psdviz.core.budget import PLANS
from psdviz.methods.early_stop import PRUNINGS
from psdviz.methods.htree import VARIANTS
from psdviz.methods.param_info import parameter_info, suggested_value
from psdviz.splits.medians import MEDIAN_METHODS
from psdviz.ui import controls

ALL = list(pv.METHODS) + list(pv.REFERENCES)


def _app(method: str) -> AppTest:
    at = AppTest.from_string(SCRIPT, default_timeout=120)
    at.run()
    at.radio(key="rand_mode").set_value("seed")
    at.selectbox(key="method").set_value(method)
    return at.run()


def _params_caption(at) -> str:
    return next(c.value for c in at.caption if c.value.startswith("Parameters used"))


def test_every_parameter_has_its_own_explanation():
    for m in ALL:
        for name in pv.method_parameters(m):
            text = controls.explain(m, name)
            assert text != "method parameter" and len(text) > 30, (m, name)


def test_choices_come_from_the_engine_and_the_engine_accepts_each():
    assert parameter_choices("quadtree") == {"budget": PLANS, "pruning": PRUNINGS}
    assert parameter_choices("kdtree") == {"budget": PLANS, "median": MEDIAN_METHODS, "pruning": PRUNINGS}
    assert parameter_choices("htree") == {"variant": VARIANTS}
    xy = np.random.default_rng(0).uniform(0, 1, (3000, 2))
    dom = pv.Domain(0, 0, 1, 1)
    for m, name in (("quadtree", "budget"), ("quadtree", "pruning"), ("kdtree", "median"), ("kdtree", "pruning"),
                    ("htree", "variant")):
        for value in parameter_choices(m)[name]:
            extra = {"height": 4} if m != "htree" else {}
            pv.build(xy, dom, method=m, epsilon=0.9, seed=1, **extra, **{name: value})
        with pytest.raises(ValueError, match=name):
            pv.build(xy, dom, method=m, epsilon=0.9, seed=1, **{name: "no-such-choice"})


def test_integer_parameters_are_typed_int_even_with_a_none_default():
    ints = {(m, n) for m in ALL for n, i in parameter_info(m).items() if i.kind == "int"}
    assert {("hybrid", "switch"), ("ug", "grid_size"), ("ag", "m1"), ("htree", "size"), ("hilbert", "order"),
            ("kd-cell", "grid"), ("privtree", "max_depth"), ("ug", "n_public")} <= ints
    assert parameter_info("kdtree")["prune"].optional and parameter_info("kdtree")["prune"].default == 32.0
    assert suggested_value("hybrid", "switch", {"height": 8}) == 2
    assert suggested_value("hybrid", "switch", {"height": 5}) == 1


def test_string_parameters_are_select_boxes_with_the_engine_values():
    at = _app("kdtree")
    assert at.selectbox(key="p_kdtree_median").options == list(MEDIAN_METHODS)
    assert at.selectbox(key="p_kdtree_budget").options == list(PLANS)
    at.selectbox(key="p_kdtree_median").set_value("noisymean").run()
    assert not at.exception and not at.error
    assert "median = noisymean" in _params_caption(at)


def test_hybrid_switch_is_prefilled_with_a_quarter_of_the_height_and_builds():
    at = _app("hybrid")
    published = re.search(r"height = (\d+), switch = (\d+)", _params_caption(at))
    height, switch = int(published.group(1)), int(published.group(2))
    assert switch == max(1, height // 4)            # the height came from N: its switch is published
    at.checkbox(key="p_hybrid_switch_on").check().run()
    box = at.number_input(key="p_hybrid_switch")
    assert box.value == switch and isinstance(box.value, int)   # the published value, not 10.0
    assert not at.exception and not at.error
    at.checkbox(key="p_hybrid_height_on").check().run()         # a typed height: switch = height // 4
    assert suggested_value("hybrid", "switch", {"height": 8}) == 2
    assert not at.exception and not at.error


def test_prune_can_be_switched_off_for_the_kd_family():
    at = _app("kdtree")
    assert "prune = 32," in _params_caption(at) + ","
    at.checkbox(key="p_kdtree_prune_on").uncheck().run()
    assert not at.exception and not at.error
    assert "prune = none" in _params_caption(at)


def test_data_dependent_size_is_prefilled_with_the_published_value():
    at = _app("ug")
    published = int(_params_caption(at).split("grid_size = ")[1].split(",")[0])
    at.checkbox(key="p_ug_grid_size_on").check().run()
    box = at.number_input(key="p_ug_grid_size")
    assert box.value == published and isinstance(box.value, int)
    assert not at.error


def test_the_kept_query_rectangle_is_drawn_after_a_remount():
    at = _app("quadtree")
    at.checkbox(key="p_quadtree_height_on").check().run()
    at.number_input(key="p_quadtree_height").set_value(5).run()
    at.session_state["fake_map_value"] = {"all_drawings": [_drawing(RECT)], "last_object_clicked": None}
    at.run()
    # the map remounts (new method, depth): Leaflet.draw's shape is gone, the kept query is a layer
    at.session_state["fake_map_value"] = {"all_drawings": [], "last_object_clicked": None}
    at.selectbox(key="method").set_value("ug").run()
    x0, y0, x1, y1 = RECT
    assert at.session_state["overlay"] == [[[y0, x0], [y1, x1]]]
    assert any(m.label == "True answer (not private)" for m in at.metric)


def test_a_typed_query_is_not_overwritten_by_the_old_drawing():
    at = _app("quadtree")
    at.checkbox(key="p_quadtree_height_on").check().run()
    at.number_input(key="p_quadtree_height").set_value(5).run()
    at.session_state["fake_map_value"] = {"all_drawings": [_drawing(RECT)], "last_object_clicked": None}
    at.run()
    at.number_input(key="qx0").set_value(0.0)
    at.number_input(key="qx1").set_value(10.0)
    at.number_input(key="qy0").set_value(40.0)
    at.number_input(key="qy1").set_value(50.0)
    at.button(key="qtyped").click().run()
    at.run()                                   # the component still returns the old drawing
    assert at.session_state["query_rect"] == [0.0, 40.0, 10.0, 50.0]
    assert at.session_state["overlay"] == [[[40.0, 0.0], [50.0, 10.0]]]


def test_compare_page_offers_fresh_randomness_by_default():
    from test_ui_compare import SYNTH, _small_custom
    at = AppTest.from_string("from psdviz.ui.compare_page import render\nrender()", default_timeout=120)
    at.run()
    at.selectbox(key="cmp_source").select(SYNTH).run()
    assert at.radio(key="cmp_rand").value == "fresh" and at.radio(key="cmp_rand").options == ["fresh", "seed"]
    _small_custom(at).button(key="cmp_run_btn").click().run()
    assert not at.exception and not at.error
    first = at.dataframe[0].value["median_rel_error"].to_numpy()
    at.run()                                    # a rerun without pressing Run keeps the same release
    np.testing.assert_array_equal(at.dataframe[0].value["median_rel_error"].to_numpy(), first)
    at.button(key="cmp_run_btn").click().run()  # pressing Run again draws new noise (and queries)
    assert not np.array_equal(at.dataframe[0].value["median_rel_error"].to_numpy(), first)
    at.radio(key="cmp_rand").set_value("seed").run()
    assert at.number_input(key="cmp_seed").value == 0


SPARSE = "from psdviz.ui.sparse_page import render\nrender()"


def test_sparse_page_defaults_to_points_on_a_grid_without_a_caveat():
    at = AppTest.from_string(SPARSE, default_timeout=120)
    at.run()
    assert not at.exception and not at.error
    assert at.radio(key="sp_source").value == "Points on a fine grid"
    assert not at.warning                               # a grid over a public domain: nothing data-derived
    assert any("65,536 cells" in c.value for c in at.caption)
    at.radio(key="sp_source").set_value("Flights sample: tail number x scheduled service").run()
    text = " ".join(c.value for c in at.caption)
    assert "looks like pure noise" in text and "are really non-zero" in text
    assert "read from the data itself" in at.warning[0].value


def test_declared_category_lists_are_parsed_and_make_a_public_layout():
    from psdviz import sparse
    from psdviz.ui import sparse_page
    assert sparse_page._split("a, b\nc\n\n a ") == ["a", "b", "c"]
    t = sparse.contingency_table(["a", "b"], ["x", "x"], sparse_page._split("a,b,c"), sparse_page._split("x\ny"))
    assert t.m == 6 and t.layout["categories"] == "declared public"


def test_data_loaded_on_the_map_page_is_offered_on_compare_and_sparse():
    script = """
import streamlit as st
from psdviz.ui import compare_page, map_page, mapview, sparse_page
mapview.show_map = lambda fmap, key, height=560, overlay=None: {}
{"map": map_page.render, "compare": compare_page.render, "sparse": sparse_page.render}[st.session_state.page]()
"""
    at = AppTest.from_string(script, default_timeout=120)
    at.session_state["page"] = "map"
    at.run()
    at.radio(key="data_source").set_value("sample: flight_airports").run()
    assert not at.exception and not at.error
    n = at.session_state["psdviz_data"].xy.shape[0]
    at.session_state["page"] = "compare"
    at.run()
    assert at.selectbox(key="cmp_source").value == "Data loaded on the map page: flight_airports"
    assert f"{n:,} points" in " ".join(c.value for c in at.caption)
    at.session_state["page"] = "sparse"
    at.run()
    assert not at.exception and not at.error
    assert at.selectbox(key="sp_points").value == "data loaded on the map page"
    assert any(f"{n:,} individuals" in c.value for c in at.caption)


def test_noise_level_against_a_slow_loop():
    from psdviz.publish.cells import frontier, noise_level
    xy = np.random.default_rng(3).uniform(0, 1, (5000, 2))
    rel = pv.build(xy, pv.Domain(0, 0, 1, 1), method="quadtree", epsilon=0.5, seed=2, height=5, prune=None)
    t = rel.tree
    nodes = frontier(t, 4)
    sds, below = [], []
    for n in nodes:                                   # slow obvious version
        sd = float(np.sqrt(t.noise_var[n]))
        sds.append(sd)
        below.append(t.est[n] < 2 * sd)
    got = noise_level(t, nodes)
    assert got == pytest.approx((float(np.median(sds)), float(np.mean(below))))
    leaf_only = pv.build(xy, pv.Domain(0, 0, 1, 1), method="quadtree", epsilon=0.5, seed=2, height=3, budget="leaf",
                         prune=None)
    assert noise_level(leaf_only.tree, frontier(leaf_only.tree, 1)) is None   # unmeasured level: nothing to say


def test_charts_label_decades_and_skip_zero_medians_on_log_axes():
    import pandas as pd

    from psdviz.ui import sparse_view
    errors = pd.DataFrame({"kind": ["range"] * 4, "size": [1, 1, 10, 10], "abs_error": [0.0, 0.0, 3.0, 5.0],
                           "rel_error": [0.0, 0.0, 0.1, 0.2]})
    fig = sparse_view.error_chart(errors)
    y = list(fig.data[0].y)
    assert np.isnan(y[0]) and y[1] == 4.0 and "not drawn" in fig.layout.title.text
    assert fig.layout.yaxis.dtick == 1


def test_cells_within_noise_take_the_palest_colour_and_do_not_stretch_the_scale():
    from psdviz.publish.cells import frontier, within_noise
    from psdviz.ui.map_layers import colour_bins
    xy = np.random.default_rng(4).uniform(0, 0.3, (4000, 2))     # data in one corner: the rest is empty
    rel = pv.build(xy, pv.Domain(0, 0, 1, 1), method="quadtree", epsilon=0.5, seed=5, height=5, prune=None)
    t = rel.tree
    nodes = frontier(t, 4)
    faint = within_noise(t, nodes)
    slow = np.array([t.est[n] < 2 * np.sqrt(t.noise_var[n]) for n in nodes])
    np.testing.assert_array_equal(faint, slow)
    assert 0 < faint.sum() < nodes.size
    density = np.where(faint, 1e-3, 50.0 * (1 + np.arange(nodes.size)))
    c = colour_bins(density, faint)
    assert (c.index[faint] == 0).all()
    assert c.lo >= np.log10(50.0) - 1e-9                         # the scale ignores the faint cells


def test_the_click_ending_a_rectangle_drag_is_not_a_cell_click():
    from psdviz.ui.query_panel import at_rect_corner
    rect = [-21.796875, 19.311143, 51.328125, 69.657086]
    assert at_rect_corner((51.32812512345, 19.3111432), rect)      # GeoJSON keeps 6 decimals
    assert not at_rect_corner((51.3, 19.3), rect) and not at_rect_corner((0.0, 40.0), rect)
    assert not at_rect_corner((51.3, 19.3), None)
    at = _app("quadtree")
    at.checkbox(key="p_quadtree_height_on").check().run()
    at.number_input(key="p_quadtree_height").set_value(5).run()
    corner = {"lat": RECT[3], "lng": RECT[2]}
    at.session_state["fake_map_value"] = {"all_drawings": [_drawing(RECT)], "last_object_clicked": corner}
    at.run()
    assert "clicked" not in at.session_state and not any(s.value == "Clicked cell" for s in at.subheader)
    at.session_state["fake_map_value"] = {"all_drawings": [_drawing(RECT)], "last_object_clicked": {"lat": 48.8,
                                                                                                     "lng": 2.3}}
    at.run()
    assert any(s.value == "Clicked cell" for s in at.subheader)


@pytest.mark.parametrize("script, prefix, label", [(SPARSE, "sp", "Summary size"),
                                                    ("from psdviz.ui.coco_page import render\nrender()", "coco",
                                                     "Earthmover's error")])
def test_lab_pages_default_to_fresh_randomness_kept_until_new_noise(script, prefix, label):
    at = AppTest.from_string(script, default_timeout=120)
    at.run()
    assert at.radio(key=f"{prefix}_rand").value == "fresh" and not at.exception and not at.error

    def shown():
        return next(m.value for m in at.metric if m.label == label)
    first = shown()
    at.run()
    assert shown() == first                       # a rerun keeps the release (cached with its nonce)
    values = {first}
    for _ in range(3):                            # new noise: a different release (3 tries: ties are possible)
        at.button(key=f"{prefix}_renoise").click().run()
        values.add(shown())
    assert len(values) > 1


def test_declaring_n_public_asks_for_a_typed_value_and_says_it_publishes_n():
    """Nothing pre-fills the exact (private) row count; the user types N."""
    at = _app("ug")
    at.checkbox(key="p_ug_n_public_on").check().run()
    assert at.number_input(key="p_ug_n_public").value is None          # empty, not the row count
    assert any("This publishes N" in c.value for c in at.caption)
    assert "N = estimated" in _params_caption(at)                      # still private until typed
    at.number_input(key="p_ug_n_public").set_value(5000).run()
    assert not at.exception and "N = declared public" in _params_caption(at)


def test_epsilon_panel_plans_for_the_drawn_query_and_never_prefills_n():
    at = _app("ug")
    at.session_state["fake_map_value"] = {"all_drawings": [_drawing(RECT)], "last_object_clicked": None}
    at.run()
    assert at.number_input(key="plan_n").value is None          # N is typed by the user, never prefilled
    at.button(key="plan_go").click().run()
    assert any("Type a public N" in e.value for e in at.error)
    at.number_input(key="plan_n").set_value(50_000)
    at.number_input(key="plan_target").set_value(10.0)
    at.button(key="plan_go").click().run()
    plan = at.session_state["epsilon_plan"]
    want = pv.plan_epsilon("ug", plan_domain(), RECT, n=50_000, relative=0.10, points=15, c=10.0)
    assert plan.method == "ug" and plan.epsilon == pytest.approx(want.epsilon)
    assert any(m.label.startswith("Smallest epsilon (ug)") for m in at.metric)


def plan_domain() -> pv.Domain:
    from psdviz.io.samples import get_sample
    return get_sample("geonames").domain

# test oracle (was psdviz/methods/param_info.py): a slow, obvious version the fast code is checked against
def parameter_choices(method: str) -> dict[str, tuple[str, ...]]:
    """The fixed value sets of ``method``'s string parameters (e.g. {"budget": PLANS, ...})."""
    return {n: i.choices for n, i in parameter_info(method).items() if i.choices}


def test_the_planner_plans_for_what_was_built_and_says_so():
    from psdviz.ui.epsilon_panel import built_method, default_plan, plan_caption
    assert built_method("auto", {"chosen": "ag"}) == "ag" and default_plan("ag") == "ag"
    assert plan_caption("auto", "ag", "ag") == "Plans for ag (auto's pick), the method this release used."
    assert built_method("auto", {"chosen": "privtree"}) == "privtree" and default_plan("privtree") == "ug"
    text = plan_caption("auto", "privtree", "ug")
    assert "privtree (auto's pick)" in text and "cannot be planned" in text and "the plan is for ug" in text
    assert plan_caption("quadtree", "quadtree", "ug") == ("The plan is for ug, not for quadtree, the method this "
                                                          "release used.")


def test_words_round_numbers_and_name_ledger_levels():
    from psdviz.present import parameters_text as params_text
    from psdviz.ui.words import ledger_frame
    assert params_text({"lambda": 11.904761904761903, "height": 8, "budget": "geometric"}) == (
        "lambda = 11.9, height = 8, budget = geometric")
    auto = {"chosen": "privtree", "why": "The points crowd ...", "rule": "any other data", "lambda": 6.014}
    assert params_text(auto) == "lambda = 6.01"                    # auto's choice is said in its own sentence
    from psdviz.ui.regions_page import region_label
    assert region_label("Afghanistan", "Afghanistan") == "Afghanistan"
    assert region_label("Autauga", "01001") == "Autauga (01001)"
    df = ledger_frame([{"what": "N estimate", "epsilon": 0.025, "level": None},
                       {"what": "count", "epsilon": 0.475, "level": 3}])
    assert df["level"].tolist() == ["whole release", "3"] and df["epsilon"].sum() == 0.5


def test_a_rectangle_outside_the_release_is_not_answered_as_zero():
    from psdviz.ui.release_page import overlaps_domain
    dom = pv.Domain(0, 0, 1, 1)
    assert overlaps_domain(dom, [0.5, 0.5, 2.0, 2.0]) and not overlaps_domain(dom, [2.0, 2.0, 3.0, 3.0])
    assert not overlaps_domain(dom, [1.0, 0.0, 2.0, 1.0])          # touching the edge only: no area
