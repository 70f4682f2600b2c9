"""The lines method, D vs D': one point more moves the law of the released selection (the axis and heavy lines)
by at most e^eps_select, and the law of the binary PrivTree's split decisions by at most e^eps_t. Each audit
also fails a smaller epsilon on the event it watches (it has power)."""
import numpy as np
from test_grid_audit import ratio_ok

from psdviz.core.ledger import Ledger
from psdviz.core.rng import SEEDED, Randomness
from psdviz.methods.lines import grow_binary, select_lines

EPS, RUNS = 2.0, 20_000


def _pair(rows: list[list[float]], cell: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    d = np.array(rows, float)
    d2 = d.copy()
    d2[cell] += 1
    return d, d2


def _law(outcomes: np.ndarray) -> np.ndarray:
    return np.bincount(outcomes, minlength=4)


def _selection(hist, seed) -> np.ndarray:
    """Per run: 2 * (rows are the axis) + (row 2 is a heavy line)."""
    rnd = Randomness(np.random.default_rng(seed), SEEDED, seed)
    out = np.empty(RUNS, np.int64)
    for r in range(RUNS):
        axis, heavy = select_lines(hist, EPS, rnd, Ledger(EPS), 0.2)
        out[r] = 2 * (axis == 0) + (axis == 0 and 2 in heavy)
    return out


def test_selection_audit():
    """Row 2 holds 4 points in D and 5 in D', next to the heavy-line floor (about 4.1 here): the event 'row 2 is
    heavy' moves by nearly e^(eps / 2) (its row sum's own noise), within e^eps and beyond e^(eps / 3)."""
    d, d2 = _pair([[0, 1, 0, 0], [3, 4, 2, 5], [1, 1, 1, 1], [1, 0, 0, 0]], (2, 1))
    a, b = _law(_selection(d, 1)), _law(_selection(d2, 2))
    assert ratio_ok(a, b, RUNS, EPS)
    assert not ratio_ok(a, b, RUNS, EPS / 3)


def _splits(hist, seed) -> np.ndarray:
    """Per run: whether the empty band [0, 2, 4, 4) was split (its count 0 in D, 1 in D')."""
    rng = np.random.default_rng(seed)
    out = np.empty(RUNS, np.int64)
    for r in range(RUNS):
        g = grow_binary(hist, np.array([[0, 0, 4, 2], [0, 2, 4, 4]]), EPS, rng)
        out[r] = int(not g["leaf"][0][1])
    return out


def test_binary_privtree_split_audit():
    """One split decision moves by at most e^(1 / lambda) = e^(eps_t / 3) (fanout 2: lambda = 3 / eps_t), inside
    PrivTree's whole e^eps_t, and beyond e^(eps_t / 4)."""
    d, d2 = _pair([[5, 3, 0, 2], [1, 0, 4, 0], [0, 0, 0, 0], [0, 0, 0, 0]], (3, 2))
    a, b = _law(_splits(d, 3)), _law(_splits(d2, 4))
    assert ratio_ok(a, b, RUNS, EPS)
    assert not ratio_ok(a, b, RUNS, EPS / 4)
