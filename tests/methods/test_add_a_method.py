"""A method added from one module (docs/how-to/add-a-method.md) is found everywhere a built-in one is:
``pv.METHODS``, validation, ``pv.method_help``, the app's controls and the CLI. The toy module lives
outside the package and is installed the way a plug-in is (an entry point of the ``psdviz.methods``
group), so nothing in psdviz names it."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import psdviz as pv
from psdviz.methods import registry

TOY = textwrap.dedent('''
    """A toy method: one uniform grid of ``side`` x ``side`` cells (half as many per side when coarse)."""
    from __future__ import annotations

    from typing import Literal

    from psdviz.methods.spec import MethodSpec, doc
    from psdviz.methods.ug import build_ug


    def build_toy_grid(ps, domain, epsilon, rnd, *, side: int = 8,
                       shape: Literal["square", "coarse"] = "square"):
        """A public grid with geometric noise on every cell (the uniform grid's mechanism, one level)."""
        cells = side if shape == "square" else max(1, side // 2)
        rel = build_ug(ps, domain, epsilon, rnd, grid_size=cells)
        return rel.evolve(method="toy-grid", params={"side": side, "shape": shape, "grid_size": cells})


    SPEC = MethodSpec("toy-grid", build_toy_grid, paper="a test's own", data_dependent=False, params={
        "side": doc("Cells per side of the toy grid.", "", 1, 64),
        "shape": doc("square keeps the side; coarse halves it."),
    })
''')


def _install(where) -> dict:
    """The toy module and the metadata that makes it a plug-in, as pip would leave them in site-packages."""
    (where / "toy_psdviz_method.py").write_text(TOY)
    info = where / "toy_psdviz_method-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-psdviz-method\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[psdviz.methods]\ntoy-grid = toy_psdviz_method\n")
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(where), os.environ.get("PYTHONPATH", "")])}


@pytest.fixture
def toy(tmp_path, monkeypatch):
    env = _install(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.reload()
    yield env
    monkeypatch.undo()
    sys.modules.pop("toy_psdviz_method", None)
    registry.reload()


PTS = np.random.default_rng(1).random((2000, 2))
DOM = pv.Domain(0, 0, 1, 1)


def test_the_engine_finds_builds_and_validates_it(toy):
    assert pv.METHODS[-1] == "toy-grid" and "toy-grid" not in pv.REFERENCES
    rel = pv.build(PTS, DOM, method="toy-grid", epsilon=1.0, side=6, shape="coarse")
    assert rel.method == "toy-grid" and len(rel.leaves()) == 9 and rel.ledger.total() == pytest.approx(1.0)
    with pytest.raises(ValueError, match=r"side must be an integer in \[1, 64\]"):
        pv.build(PTS, DOM, method="toy-grid", epsilon=1.0, side=0)
    with pytest.raises(ValueError, match="shape must be one of"):
        pv.build(PTS, DOM, method="toy-grid", epsilon=1.0, shape="round")
    with pytest.raises(ValueError, match="has no parameter"):
        pv.build(PTS, DOM, method="toy-grid", epsilon=1.0, height=3)
    info = pv.method_parameters("toy-grid")
    assert info["shape"].kind == "choice" and info["shape"].choices == ("square", "coarse")
    assert info["side"].kind == "int" and info["side"].default == 8
    text = pv.method_help("toy-grid")
    assert "A public grid with geometric noise" in text and "Cells per side of the toy grid." in text
    assert pv.method_spec("toy-grid").paper == "a test's own"


def test_the_app_offers_it_with_controls_from_its_declared_types(toy):
    from streamlit.testing.v1 import AppTest
    script = """
from psdviz.ui import controls
spec = controls.choose_build()
import streamlit as st
st.write(f"chosen {spec.method} {spec.params}")
"""
    at = AppTest.from_string(script, default_timeout=60)
    at.run()
    method = at.selectbox(key="method")
    assert "toy-grid" in method.options
    method.set_value("toy-grid").run()
    assert not at.exception
    assert at.selectbox(key="p_toy-grid_shape").options == ["square", "coarse"]
    at.number_input(key="p_toy-grid_side").set_value(5).run()
    assert any("chosen toy-grid {'side': 5}" in m.value for m in at.markdown)


def test_the_cli_lists_and_builds_it(toy, tmp_path):
    run = dict(env=toy, capture_output=True, text=True, timeout=120)
    shown = subprocess.run([sys.executable, "-m", "psdviz.cli", "params", "toy-grid"], **run)
    assert shown.returncode == 0 and "Cells per side of the toy grid." in shown.stdout
    (tmp_path / "p.csv").write_text("x,y\n" + "\n".join(f"{x},{y}" for x, y in PTS))
    out = tmp_path / "toy.parquet"
    built = subprocess.run([sys.executable, "-m", "psdviz.cli", "build", str(tmp_path / "p.csv"), "--lon", "x",
                            "--lat", "y", "--domain", "0", "0", "1", "1", "--method", "toy-grid", "--param", "side=4",
                            "--epsilon", "1", "--out", str(out)], **run)
    assert built.returncode == 0, built.stderr
    loaded = subprocess.run([sys.executable, "-c", f"import psdviz as pv; r = pv.load_release({str(out)!r}); "
                             "print(r.method, len(r.leaves()))"], **run)
    assert loaded.stdout.split() == ["toy-grid", "16"], loaded.stderr


def test_without_the_plug_in_the_method_is_unknown():
    assert "toy-grid" not in pv.METHODS
    with pytest.raises(ValueError, match="unknown method 'toy-grid'"):
        pv.build(PTS, DOM, method="toy-grid", epsilon=1.0)
