"""The excess variation across thin queries: its expectation table, its value on smooth and striped data, and the
sensitivity-2 bound auto's noise rests on (checked by brute force, and shown not to be loose); the same along the
edges through a corner (``edge_excess``)."""
from __future__ import annotations

import math

import numpy as np

import psdviz as pv
from psdviz.lab.synthetic import zero_inflated
from psdviz.methods.fine_structure import EXACT_UP_TO, SENSITIVITY, edge_excess, excess_variation, mean_abs_walk


def test_mean_abs_walk_is_e_abs_s_m_and_moves_by_p_s_m_zero():
    m = np.arange(0, 41)
    direct = [sum(math.comb(k, i) * abs(2 * i - k) for i in range(k + 1)) / 2 ** k for k in m]
    assert np.allclose(mean_abs_walk(m), direct, rtol=1e-12)
    steps = np.diff(mean_abs_walk(np.arange(0, 3 * EXACT_UP_TO)))        # across the switch to sqrt(2 m / pi)
    p_zero = [math.comb(k, k // 2) / 2 ** k if k % 2 == 0 else 0.0 for k in range(40)]
    assert np.allclose(steps[:40], p_zero) and steps.min() >= -1e-9 and steps.max() <= 1.0
    big = np.array([10 ** 6, 10 ** 8])
    assert np.allclose(mean_abs_walk(big), np.sqrt(2 * big / math.pi), rtol=1e-5)


def test_smooth_points_give_about_zero_and_points_on_every_other_row_nearly_n():
    """Uniform points: the expectation is 0 given each pair's total and the variance at most N (|a - b| has
    variance at most m), so |excess| <= 5 sqrt(N); the same points moved onto even rows give N less the pairs'
    own spread."""
    rng = np.random.default_rng(7)
    n = 200_000
    grid = np.bincount(rng.integers(0, 128 * 128, n), minlength=128 * 128).reshape(128, 128)
    assert abs(excess_variation(grid, 0)) <= 5 * math.sqrt(n) and abs(excess_variation(grid, 1)) <= 5 * math.sqrt(n)
    striped = np.zeros_like(grid)
    striped[0::2] = grid[0::2] + grid[1::2]
    expected = n - mean_abs_walk(striped[0::2] + striped[1::2]).sum()
    assert excess_variation(striped, 0) == expected and excess_variation(striped, 0) > 0.8 * n
    assert abs(excess_variation(striped, 1)) <= 5 * math.sqrt(n)       # along the stripes: smooth


def test_one_point_moves_it_by_at_most_the_sensitivity():
    rng = np.random.default_rng(3)
    worst = 0.0
    for _ in range(4000):
        grid = rng.integers(0, 4, (6, 5)) * (rng.random((6, 5)) < 0.6)
        i, j = rng.integers(0, 6), rng.integers(0, 5)
        more = grid.copy()
        more[i, j] += 1
        for axis in (0, 1):
            worst = max(worst, abs(excess_variation(more, axis) - excess_variation(grid, axis)))
    assert 1.0 < worst <= SENSITIVITY           # the bound holds and is not loose by more than its factor


def test_edge_excess_leaves_the_atom_out_and_reads_heaps_along_the_edges_from_any_corner():
    """An atom in a corner and its neighbours read 0; points on every other cell of an edge read their count less
    the pairs' own spread; the same heaps from another corner read the same (the largest of the four corners')."""
    grid = np.zeros((64, 64), np.int64)
    grid[0, 0], grid[0, 1], grid[1, 0], grid[1, 1] = 5000, 40, 30, 7
    assert edge_excess(grid) == 0.0
    grid[10:40:2, 0] = 25                               # heaps along the first column, every other cell
    grid[0, 20:30:2] = 11
    heaped = 15 * 25 + 5 * 11 - 15 * mean_abs_walk(np.array([25]))[0] - 5 * mean_abs_walk(np.array([11]))[0]
    assert edge_excess(grid) == heaped
    assert edge_excess(grid[::-1]) == heaped and edge_excess(grid[:, ::-1].T) == heaped
    grid[-2:, -2:] = 900                                # an atom at another corner, beside its edges' ends
    assert edge_excess(grid) == heaped


def test_edge_excess_is_about_zero_on_smooth_lines_and_near_their_share_on_heaped_ones():
    """The zero-inflated corner member: smooth lines (geometric distances) read within 5 sqrt(N) of 0 (variance at
    most the points on the edges), the same lines heaped on 5 values a line read most of their points."""
    dom = pv.Domain(0, 0, 256, 256)
    n = 100_000
    for heaps, low, high in ((0, -5 * math.sqrt(n), 5 * math.sqrt(n)), (5, 0.1 * n, 0.2 * n)):
        pts = zero_inflated(n, dom, np.random.default_rng(4), 0.85, 0.15, True, heaps=heaps)
        grid = np.histogram2d(pts[:, 1], pts[:, 0], bins=256, range=[[0, 256]] * 2)[0].astype(np.int64)
        assert low <= edge_excess(grid) <= high, heaps


def test_one_point_moves_edge_excess_by_at_most_the_sensitivity():
    """Brute force over small grids with heavy edges: adding one point anywhere moves the largest corner's sum
    by at most 2 (each border line's cells read are in no other line), and by more than 1 somewhere."""
    rng = np.random.default_rng(5)
    worst = 0.0
    for _ in range(4000):
        grid = rng.integers(0, 4, (9, 8)) * (rng.random((9, 8)) < 0.6)
        grid[[0, -1]] *= 3
        grid[:, [0, -1]] *= 3
        i, j = rng.integers(0, 9), rng.integers(0, 8)
        more = grid.copy()
        more[i, j] += 1
        worst = max(worst, abs(edge_excess(more) - edge_excess(grid)))
    assert 1.0 < worst <= SENSITIVITY
