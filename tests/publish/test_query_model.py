"""The query model is typed data: every method's model saves as the object its file holds and reads back
equal; an unknown path or key is refused in words."""
from __future__ import annotations

import numpy as np
import pytest

import psdviz as pv
from psdviz.publish.query_model import QueryModel

PTS = np.random.default_rng(4).random((3000, 2))


@pytest.mark.parametrize("method", pv.METHODS + pv.REFERENCES)
def test_every_methods_model_saves_and_reads_back_equal(method, tmp_path):
    rel = pv.build(PTS, pv.Domain(0, 0, 1, 1), method, 1.0, seed=3, resolution=12)
    model = rel.query_model
    assert isinstance(model, QueryModel)
    assert QueryModel.from_data(model.to_data()) == model
    if not rel.private:
        return                     # references are never saved
    back = pv.load_release(rel.save(tmp_path / "r.parquet", allow_seeded=True))
    assert back.query_model == model


@pytest.mark.parametrize("data, words", [
    ({"answer": "magic", "variance": "none"}, "unknown query model"),
    ({"answer": "tree", "variance": "none", "colour": 3}, r"no keys \['colour'\]"),
    ([1, 2], "is a JSON object"),
])
def test_an_unknown_model_is_refused_in_words(data, words):
    with pytest.raises(ValueError, match=words):
        QueryModel.from_data(data)
