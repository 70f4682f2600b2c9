"""The zero-inflated synthetic family (psdviz.lab.synthetic.zero_inflated)."""
import numpy as np
import pytest

import psdviz as pv
from psdviz.lab.synthetic import zero_inflated

DOM = pv.Domain(0.0, 0.0, 256.0, 256.0)


def _cells(pts):
    return np.floor(pts).astype(int)


@pytest.mark.parametrize("corner", [True, False])
def test_shares_and_geometry(corner):
    n, atom, lines = 20_000, 0.7, 0.2
    pts = zero_inflated(n, DOM, np.random.default_rng(3), atom, lines, corner)
    assert pts.shape == (n, 2)
    assert np.all((pts >= 0) & (pts < 256))
    cells = _cells(pts)
    uniq, counts = np.unique(cells, axis=0, return_counts=True)
    centre = uniq[np.argmax(counts)]
    if corner:
        assert tuple(centre) == (0, 0)
    at_atom = np.all(cells == centre, axis=1)
    # atom share: binomial, plus the few line / background points that land on the centre cell
    sd = np.sqrt(n * atom * (1 - atom))
    assert abs(at_atom.sum() - n * atom) < 6 * sd + 0.01 * n
    on_cross = (cells[:, 0] == centre[0]) | (cells[:, 1] == centre[1])
    p_cross = atom + lines + (1 - atom - lines) * 511 / 256 ** 2   # background cells on the cross: 511 of 256^2
    assert abs(on_cross.sum() - n * p_cross) < 6 * np.sqrt(n * p_cross * (1 - p_cross))
    off = cells[on_cross & ~at_atom]
    if corner:           # lines only leave the corner cell towards larger values
        assert np.all(off >= 0)


def test_points_are_spread_inside_cells():
    pts = zero_inflated(5_000, DOM, np.random.default_rng(1), 0.9, 0.05, True)
    frac = pts - np.floor(pts)
    assert 0.4 < frac.mean() < 0.6


def test_domain_scaling():
    dom = pv.Domain(-10.0, 40.0, 10.0, 60.0)
    pts = zero_inflated(1_000, dom, np.random.default_rng(2))
    assert np.all((pts[:, 0] >= -10) & (pts[:, 0] < 10) & (pts[:, 1] >= 40) & (pts[:, 1] < 60))


@pytest.mark.parametrize("atom,lines", [(0.9, 0.2), (-0.1, 0.5), (0.5, -0.1)])
def test_bad_shares_name_the_limit(atom, lines):
    with pytest.raises(ValueError, match="atom \\+ lines must be at most 1"):
        zero_inflated(100, DOM, np.random.default_rng(0), atom, lines)


def test_heaped_lines_take_at_most_heaps_values_a_line_and_heaped_sets_their_share():
    """heaps=5: every line point off the atom sits on one of at most 5 cells of its line; heaped=0.3: about 0.3 of
    them do (binomial, 6 sd; the smooth law puts at most 0.03 on a cell), the rest keep the smooth law; the atom's
    share is unchanged."""
    n = 20_000
    cells = _cells(zero_inflated(n, DOM, np.random.default_rng(6), 0.5, 0.5, True, heaps=5))
    for axis in (0, 1):
        on_line = cells[(cells[:, 1 - axis] == 0) & (cells[:, axis] > 0)]
        assert 0 < np.unique(on_line[:, axis]).size <= 5
    assert abs((cells == 0).all(axis=1).sum() - n * 0.5) < 6 * np.sqrt(n * 0.25)
    part = _cells(zero_inflated(n, DOM, np.random.default_rng(6), 0.5, 0.5, True, heaps=5, heaped=0.3))
    heaps = np.unique(cells[(cells[:, 1] == 0) & (cells[:, 0] > 0)][:, 0])   # the first line's (drawn first: same)
    line = part[(part[:, 1] == 0) & (part[:, 0] > 0)][:, 0]
    on_heaps = np.isin(line, heaps).mean()
    smooth_on_heaps = 5 * 0.03                          # the smooth law puts at most 0.03 on any one cell
    sd = np.sqrt(0.25 / line.size)
    assert 0.3 - 6 * sd < on_heaps < 0.3 + 0.7 * smooth_on_heaps + 6 * sd
