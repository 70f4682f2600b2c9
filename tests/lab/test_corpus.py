"""auto's validation corpus: one split, made once, covering every data set; rasters over public bounds."""
import numpy as np
import pytest

from psdviz.lab import corpus


def test_the_split_is_disjoint_and_covers_the_corpus():
    tuning, validation = (set(corpus.SPLIT[p]) for p in ("tuning", "validation"))
    assert not tuning & validation and tuning | validation == set(corpus.DATASETS)
    # every data set auto was tuned on before the split is on the tuning side; validation is real data only
    assert {n for n, d in corpus.DATASETS.items() if d.kind in ("dpbench", "family")} <= tuning
    assert {corpus.DATASETS[n].kind for n in validation} <= {"places", "pairs"}
    assert corpus.part("ADULT-2D") == "tuning"


def test_raster_counts_points_inside_public_bounds_and_drops_the_rest():
    pts = np.array([[0.0, 0.0], [9.99, 9.99], [10.0, 5.0], [-0.1, 5.0], [np.nan, 1.0], [5.0, 5.0]])
    h = corpus.raster(pts, (0.0, 0.0, 10.0, 10.0))
    assert h.shape == (256, 256) and h.sum() == 3
    assert h[0, 0] == 1 and h[255, 255] == 1 and h[128, 128] == 1


def test_families_are_fixed_draws():
    name = next(n for n, d in corpus.DATASETS.items() if d.kind == "family")
    a, b = corpus.load(name), corpus.load(name)
    assert np.array_equal(a, b) and a.shape == (256, 256) and a.sum() > 0


def test_a_missing_source_says_how_to_fetch_it(monkeypatch, tmp_path):
    monkeypatch.setattr(corpus, "CACHE", tmp_path)
    with pytest.raises(corpus.MissingData, match="fetch_corpus"):
        corpus.load("US zip codes")
    with pytest.raises(ValueError, match="unknown corpus data set"):
        corpus.load("nowhere")
