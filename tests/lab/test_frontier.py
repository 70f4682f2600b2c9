"""The privacy-accuracy frontier: interpolated epsilon at a target error and its reading."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from psdviz.lab.frontier import epsilon_at, reaching, reading


def test_epsilon_at_interpolates_on_log_log():
    # error = 0.4 / eps: 10 % at eps = 4, bracketed by 1 and 10
    eps = np.array([0.1, 1.0, 10.0])
    assert epsilon_at(eps, 0.4 / eps, 0.1) == pytest.approx(4.0)
    assert epsilon_at(eps, 0.001 / eps, 0.1) == pytest.approx(0.1)        # already below at the first
    assert math.isnan(epsilon_at(eps, 100 / eps, 0.1))                      # never reached


def test_reading_names_the_earliest_method_per_shape():
    rows = []
    for m, c in (("ug", 0.4), ("privtree", 0.2), ("kdtree", 5.0)):
        for e in (0.1, 1.0, 10.0):
            rows.append({"method": m, "shape": "(1, 1)", "epsilon": e, "median_rel_error": c / e})
    front = pd.DataFrame(rows)
    r = reaching(front, 0.1).set_index("method")["epsilon"]
    assert r["privtree"] == pytest.approx(2.0) and r["ug"] == pytest.approx(4.0) and math.isnan(r["kdtree"])
    (line,) = reading(front, 0.1)
    assert line.startswith("For queries of shape (1, 1), privtree reaches 10% median error from epsilon = 2")
    assert "(next: ug)" in line
