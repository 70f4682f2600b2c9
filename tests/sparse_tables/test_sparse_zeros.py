"""Uniform zero-cell positions without materialising the domain (ICDT'12 section 2.2 step 3)."""
import numpy as np

from psdviz.sparse.zeros import sample_zero_cells, zero_ranks_to_cells


def test_rank_mapping_matches_slow_version():
    rng = np.random.default_rng(3)
    m = 500
    nz = np.sort(rng.choice(m, 120, replace=False))
    zeros = np.setdiff1d(np.arange(m), nz)          # slow obvious version: list all zero cells
    ranks = np.arange(zeros.size)
    assert np.array_equal(zero_ranks_to_cells(nz, ranks), zeros)


def test_sampled_cells_are_distinct_zero_cells_and_uniform():
    rng = np.random.default_rng(5)
    m, k, reps = 60, 20, 1500
    nz = np.array([0, 1, 7, 20, 21, 22, 59])
    hits = np.zeros(m)
    for _ in range(reps):
        cells = sample_zero_cells(rng, nz, m, k)
        assert np.unique(cells).size == k and not np.isin(cells, nz).any()
        hits[cells] += 1
    # each zero cell is kept with probability k / (m - n): binomial(reps, p) per cell, 5 sigma
    p = k / (m - nz.size)
    zero_hits = np.delete(hits, nz)
    assert np.all(np.abs(zero_hits - reps * p) < 5 * np.sqrt(reps * p * (1 - p)))
    assert hits[nz].sum() == 0


def test_huge_domain_is_not_materialised():
    # m = 10^12 cells: an array of the domain would need 8 TB; this must take milliseconds
    rng = np.random.default_rng(1)
    nz = np.sort(rng.choice(10 ** 12, 1000, replace=False))
    cells = sample_zero_cells(rng, nz, 10 ** 12, 10_000)
    assert cells.size == 10_000 and not np.isin(cells, nz).any() and cells.max() < 10 ** 12


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300).flatmap(lambda m: st.tuples(st.just(m), st.sets(st.integers(0, m - 1)))))
def test_rank_mapping_property(case):
    m, nz_set = case
    nz = np.array(sorted(nz_set), dtype=np.int64)
    zeros = np.setdiff1d(np.arange(m), nz)
    assert np.array_equal(zero_ranks_to_cells(nz, np.arange(zeros.size)), zeros)
