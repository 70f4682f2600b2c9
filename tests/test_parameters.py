"""Each method's parameters are declared once, in the engine: validation, ``method_parameters``, the
app's controls, ``psdviz params`` and docs/api.md all read the same declarations."""
from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pytest

import psdviz as pv
from psdviz import coco, sparse
from psdviz.api_reference import reference
from psdviz.core.params import Param
from psdviz.methods.registry import BUILD_INPUTS, get_builder

ROOT = Path(__file__).resolve().parents[1]
ALL = pv.METHODS + pv.REFERENCES


@pytest.mark.parametrize("method", ALL)
def test_every_spatial_parameter_is_declared_with_its_signature_default(method):
    declared = pv.method_parameters(method)
    sig = inspect.signature(get_builder(method)).parameters
    assert list(declared) == [n for n, p in sig.items()             # build's own inputs (workload) aside
                              if p.kind is inspect.Parameter.KEYWORD_ONLY and n not in BUILD_INPUTS]
    for name, p in declared.items():
        assert isinstance(p, Param) and p.default == sig[name].default
        assert len(p.meaning) > 20 and p.meaning.endswith((".", ")"))
        if p.kind == "choice":
            assert p.default in p.choices


def test_count_of_counts_and_sparse_declare_in_the_spatial_style():
    """Name, kind, default and choices come from the signature of the function that takes the parameter, the
    meaning and range from a declaration, joined by the one function the spatial methods use."""
    from psdviz.core.params import declared, doc
    publish = inspect.signature(coco.publish).parameters
    for m in coco.METHODS:
        for name, p in coco.method_parameters(m).items():
            assert p.default == publish[name].default and p.kind == "choice" and p.default in p.choices
    assert coco.method_parameters("hc")["consistency"].choices == coco.CONSISTENCY
    shared = [n for n, p in inspect.signature(sparse.summarize).parameters.items()
              if p.kind is inspect.Parameter.KEYWORD_ONLY]
    for m in sparse.METHODS:
        declared_here = sparse.method_parameters(m)
        assert list(declared_here)[-len(shared):] == shared
        for p in declared_here.values():
            assert len(p.meaning) > 20 and (p.kind != "choice" or p.default in p.choices)
    assert sparse.method_parameters("filter")["stats_fraction"].share

    def toy(*, side: int = 4, shape: str = "square", undeclared: float = 1.0):
        return side, shape, undeclared
    docs = {"side": doc("Cells per side.", "", 1, 64), "shape": doc("Its shape.")}
    found = declared(toy, docs, ("side", "shape"))
    assert [(p.name, p.kind, p.default, p.high) for p in found.values()] == [("side", "int", 4, 64),
                                                                             ("shape", "str", "square", None)]
    with pytest.raises(ValueError, match="undeclared"):
        declared(toy, docs, owner="toy")


def test_the_cli_prints_count_of_counts_and_sparse_declarations(capsys):
    from psdviz.cli import main
    for method, declared_here in (("hc", coco.method_parameters("hc")), ("filter", sparse.method_parameters("filter"))):
        assert main(["params", method]) == 0
        out = capsys.readouterr().out
        assert "Parameters\n----------" in out and all(p.meaning in out for p in declared_here.values())


def test_every_product_line_answers_method_parameters_with_declarations():
    for m in sparse.METHODS:
        assert all(isinstance(p, Param) for p in sparse.method_parameters(m).values())
    for m in coco.METHODS:
        assert set(coco.method_parameters(m)) == {"consistency", "loss", "merge"}
    assert isinstance(pv.METHODS, tuple) and isinstance(sparse.METHODS, tuple) and isinstance(coco.METHODS, tuple)


@pytest.mark.parametrize("method, params, message", [
    ("kdtree", {"count_fraction": 1.5}, r"count_fraction must be a finite number in \(0, 1\)"),
    ("kdtree", {"height": 11}, r"height must be an integer in \[1, 10\]"),
    ("kd-privtree", {"split_levels": 0}, r"split_levels must be an integer in \[1, 64\]"),
    ("htree", {"variant": "fancy"}, "variant must be one of"),
    ("ag", {"c2": -1.0}, "c2 must be a finite number > 0"),
    ("quadtree", {"nope": 1}, "has no parameter"),
])
def test_validation_reads_the_declared_ranges(method, params, message):
    with pytest.raises(ValueError, match=message):
        pv.build(np.random.default_rng(0).random((50, 2)), pv.Domain(0, 0, 1, 1), method, 1.0, **params)


def test_help_and_the_reference_come_from_the_declarations():
    text = pv.method_help("kdtree")
    assert "Parameters\n----------" in text
    assert pv.method_parameters("kdtree")["pruning"].meaning in text
    assert (ROOT / "docs" / "api.md").read_text() == reference(), "regenerate: psdviz params --reference > docs/api.md"


def test_the_reference_has_an_entry_for_every_public_name():
    """Every name of psdviz.__all__ has its own entry in docs/api.md (a name added to __all__ without one, or a
    name the generator skips, fails here)."""
    text = (ROOT / "docs" / "api.md").read_text()
    missing = [n for n in pv.__all__ if f"### `psdviz.{n}`" not in text]
    assert not missing, missing
    assert "### `psdviz.not_a_name`" not in text                 # the check reads headings, not any mention
    release = text.split("### `psdviz.Release`")[1].split("### ")[0]
    for member in ("answer_interval", "answer_error", "answer_regions", "save", "report"):
        assert f"- `{member}(" in release, member


def test_the_app_holds_no_table_of_parameter_help():
    for path in (ROOT / "psdviz" / "ui").glob("*.py"):
        text = path.read_text()
        assert "EXPLAIN" not in text and "CHOICE_LABELS" not in text and "UNSET_MEANS" not in text, path.name


def test_the_cli_prints_a_methods_declarations(capsys):
    from psdviz.cli import main
    assert main(["params", "privtree"]) == 0
    out = capsys.readouterr().out
    assert all(p.meaning in out for p in pv.method_parameters("privtree").values())


@pytest.mark.parametrize("method", pv.METHODS + pv.REFERENCES)
def test_help_on_a_builder_shows_its_declared_parameters(method):
    import pydoc
    text = pydoc.render_doc(pv.builder(method), renderer=pydoc.plaintext)
    declared = pv.method_parameters(method)
    assert "Parameters" in text or not declared
    for p in declared.values():
        assert f"{p.name} : {p.kind}" in text and p.meaning.split(".")[0] in " ".join(text.split())
    pv.builder(method)   # asking again does not add the section again
    assert pv.builder(method).__doc__.count("Parameters\n----------") == 1
