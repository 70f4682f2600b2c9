"""Data model, representations and sensitivities of psdviz.coco."""
import json

import numpy as np
import pandas as pd
import pytest

from psdviz import coco
from psdviz.coco import cumulative, naive, unattributed
from psdviz.coco.representations import segment_ids


def slides_example():
    """The slides' Persons table: groups 1..4 in locations a, b (root above them)."""
    h = coco.Hierarchy.from_paths([("a",), ("b",)], root="root")
    groups = [1, 1, 1, 1, 2, 2, 3, 4]
    locs = ["a", "a", "a", "a", "b", "b", "a", "b"]
    return h, coco.group_records(groups, locs, h, max_size=4)


def test_slides_example_views():
    h, t = slides_example()
    T = coco.true_histograms(t)
    np.testing.assert_array_equal(T[h.node_id("root")], [0, 2, 1, 0, 1])   # sizes 0..4
    np.testing.assert_array_equal(T[h.node_id("a")], [0, 1, 0, 0, 1])
    np.testing.assert_array_equal(coco.to_cumulative(T[0])[1:], [2, 3, 3, 4])
    np.testing.assert_array_equal(coco.to_unattributed(T[[0]]), [1, 1, 2, 4])
    np.testing.assert_array_equal(coco.to_unattributed(T[[h.node_id("a")]]), [1, 4])


def test_hierarchy_layout_and_errors():
    h = coco.Hierarchy.from_paths([("NY", "JFK"), ("FL", "MIA"), ("NY", "LGA"), ("FL", "TPA")], root="USA")
    assert h.n_levels == 3 and h.n_nodes == 7
    assert list(h.names[1:3]) == ["FL", "NY"]
    assert [h.names[i] for i in h.children("NY")] == ["JFK", "LGA"]
    assert h.parent[h.node_id("TPA")] == h.node_id("FL")
    with pytest.raises(ValueError, match="unique"):
        coco.Hierarchy.from_paths([("NY", "X"), ("FL", "X")])
    with pytest.raises(ValueError, match="same length"):
        coco.Hierarchy.from_paths([("NY", "JFK"), ("FL",)])
    with pytest.raises(ValueError, match="not in the hierarchy"):
        h.node_id("BOS")
    with pytest.raises(ValueError, match="deepest level"):
        coco.Hierarchy(("r", "a", "b", "c"), np.array([-1, 0, 0, 1]), np.array([0, 1, 1, 2]))


def test_grouping_span_truncation_and_input_untouched():
    h = coco.Hierarchy.from_paths([("a",), ("b",)])
    groups = np.array([1, 1, 1, 2, 2])
    locs = np.array(["a", "b", "a", "b", "b"])
    with pytest.raises(ValueError, match="1 groups have records in several leaves"):
        coco.group_records(groups, locs, h, max_size=5)
    t = coco.group_records(groups, locs, h, max_size=1, span="split")
    assert t.n_split == 1 and t.n_groups == 3 and t.span == "split"
    assert t.n_truncated == 2 and t.size.max() == 1
    np.testing.assert_array_equal(groups, [1, 1, 1, 2, 2])
    with pytest.raises(ValueError, match="max_size"):
        coco.group_records(groups, locs, h, max_size=0)
    with pytest.raises(ValueError, match="not a leaf"):
        coco.group_records([1], ["zz"], h, max_size=3)


def test_multi_column_keys():
    h = coco.Hierarchy.from_paths([("a",), ("b",)])
    df = pd.DataFrame({"c": ["x", "x", "y"], "n": [1, 1, 1]})
    t = coco.group_records(df, ["a", "a", "b"], h, max_size=9)
    assert sorted(t.size.tolist()) == [1, 2]


def random_table(rng, n_levels=3, K=6, n_groups=60):
    fan = [int(rng.integers(1, 4)) for _ in range(n_levels - 1)]
    paths = [tuple(f"n{d}_{'_'.join(map(str, idx[:d + 1]))}" for d in range(len(idx)))
             for idx in np.ndindex(*fan)]
    h = coco.Hierarchy.from_paths(paths, root="root")
    leaf = rng.choice(h.leaves, n_groups)
    size = rng.integers(0, K + 1, n_groups)
    return coco.from_sizes(h, leaf, size, K)


def test_representations_round_trip_and_truth_sums():
    rng = np.random.default_rng(0)
    t = random_table(rng)
    T = coco.true_histograms(t)
    np.testing.assert_array_equal(coco.from_cumulative(coco.to_cumulative(T)), T)
    hg = coco.to_unattributed(T)
    G = T.sum(axis=1)
    np.testing.assert_array_equal(coco.from_unattributed(hg, segment_ids(G), T.shape[0], t.max_size), T)
    np.testing.assert_array_equal(G, t.groups_per_node())
    h = t.hierarchy
    child = np.zeros_like(T)
    np.add.at(child, h.parent[1:], T[1:])
    internal = np.unique(h.parent[1:])
    np.testing.assert_array_equal(child[internal], T[internal])


def neighbours(t, rng, n):
    """Tables differing from t by one record added to or removed from one group (sizes capped at K)."""
    for _ in range(n):
        size = t.size.copy()
        g = int(rng.integers(size.size))
        size[g] = size[g] + 1 if (rng.random() < 0.5 or size[g] == 0) else size[g] - 1
        yield coco.from_sizes(t.hierarchy, t.leaf, size, t.max_size)


@pytest.mark.parametrize("module", [naive, unattributed, cumulative])
def test_sensitivity_bounds_the_query_change(module):
    """A neighbouring table changes every node's query vector by at most SENSITIVITY in L1 (and
    some neighbour reaches it, so the stated value is not loose)."""
    rng = np.random.default_rng(1)
    worst = 0.0
    for _ in range(10):
        t = random_table(rng)
        T = coco.true_histograms(t)
        for t2 in neighbours(t, rng, 20):
            T2 = coco.true_histograms(t2)
            for i in range(T.shape[0]):   # one node at a time: each node's vector is one measurement
                change = np.abs(module.query(T2[[i]]) - module.query(T[[i]])).sum()
                worst = max(worst, float(change))
    assert worst == module.SENSITIVITY


def test_flights_sample_table():
    from psdviz.coco.sample import flights_table
    t, h = flights_table()
    assert h.n_levels == 3 and h.names[0] == "USA"
    assert t.n_records == 336_776 and t.n_truncated == 0 and t.n_split == 0
    G = t.groups_per_node()
    assert G[0] == t.n_groups and G[0] == G[h.level_nodes(1)].sum() == G[h.leaves].sum()


def test_declared_group_list_makes_g_and_hierarchy_public_inputs():
    """Removing the only record of a group must not change the
    released structure. With a declared group list the group stays (size 0) and G is unchanged; without
    one, the release is labelled as not private."""
    h = coco.Hierarchy.from_paths([("NY", "JFK"), ("NY", "LGA"), ("FL", "MIA"), ("FL", "TPA")], root="USA")
    public = (["a", "b", "c", "d"], ["JFK", "LGA", "MIA", "TPA"])
    groups, where = ["a", "a", "b", "c", "d"], ["JFK", "JFK", "LGA", "MIA", "TPA"]
    full = coco.group_records(groups, where, h, 5, group_list=public)
    less = coco.group_records(groups[:-1], where[:-1], h, 5, group_list=public)   # d's only record removed
    r1, r2 = (coco.publish(t, h, "hc", 1.0, seed=1) for t in (full, less))
    assert np.array_equal(r1.groups, r2.groups) and r1.structure_public and r2.structure_public
    assert r1.report()["structure"] == "public inputs"
    assert less.size.tolist() == [2, 1, 1, 0]
    # unlisted records are dropped and counted for the owner only
    extra = coco.group_records(groups + ["zz"], where + ["JFK"], h, 5, group_list=public)
    assert extra.n_unlisted == 1 and "unlisted" not in json.dumps(coco.publish(extra, h, "hc", 1.0, seed=1).report())
    # without a list: the groups seen in the records, labelled everywhere the release goes
    seen = coco.publish(coco.group_records(groups, where, h, 5), h, "hc", 1.0, seed=1)
    assert not seen.structure_public
    assert "NOT PRIVATE" in json.dumps(seen.report()) and "not private" in seen.notes[0]


def test_group_list_keys_match_by_value_and_kind():
    """Int ids listed, float ids in the records: one key (they were compared as text, "1" vs "1.0",
    and every record was silently dropped)."""
    h = coco.Hierarchy.from_paths([("a",), ("b",)], root="root")
    t = coco.group_records([1.0, 1.0, 2.0, 3.0], ["a", "a", "b", "b"], h, max_size=4,
                           group_list=([1, 2, 3], ["a", "b", "b"]))
    assert t.n_unlisted == 0 and list(t.size) == [2, 1, 1]
    with pytest.raises(ValueError, match="group_list keys are numbers but the records' group keys are text"):
        coco.group_records(["1", "2"], ["a", "b"], h, max_size=4, group_list=([1, 2, 3], ["a", "b", "b"]))


def test_group_list_with_several_key_columns():
    h = coco.Hierarchy.from_paths([("a",), ("b",)], root="root")
    g = pd.DataFrame({"k1": [1, 1, 2], "k2": ["x", "x", "y"]})
    listed = pd.DataFrame({"k1": [1, 2], "k2": ["x", "y"]})
    t = coco.group_records(g, ["a", "a", "b"], h, max_size=4, group_list=(listed, ["a", "b"]))
    assert list(t.size) == [2, 1] and t.n_unlisted == 0
    with pytest.raises(ValueError, match=r"2 columns \(k1: numbers, k2: text\)"):
        coco.group_records(g, ["a", "a", "b"], h, max_size=4, group_list=([1, 2], ["a", "b"]))


def test_most_records_unlisted_is_said():
    h = coco.Hierarchy.from_paths([("a",), ("b",)], root="root")
    with pytest.warns(UserWarning, match="3 of 3 records belong to no listed group"):
        coco.group_records([7, 8, 9], ["a", "a", "b"], h, max_size=4, group_list=([1, 2], ["a", "b"]))
