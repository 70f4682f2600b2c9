"""The shared vocabulary of spatial methods' parameters: what a name means wherever a method uses it.

A builder's keyword signature gives each parameter's name, type and default (choices as ``Literal``);
a declaration here gives the rest (one line of meaning, the paper section, the accepted range) for the
names several methods share. A method module declares the names that are its own, or that mean
something else there, in its ``SPEC.params`` (:mod:`.spec`); :mod:`.param_info` joins the signature,
the spec and this table into :class:`psdviz.core.params.Param` declarations.
"""
from __future__ import annotations

from ..core.params import Param
from .kdtree import MAX_HEIGHT as KD_MAX_HEIGHT
from .spec import FRACTION, POSITIVE, MethodSpec, doc

SHARED: dict[str, Param] = {
    "height": doc("Number of levels below the root. Deeper trees give smaller cells but split the budget over "
                  "more levels (more noise per count).", "ICDE'12 sections 3-4", 1, KD_MAX_HEIGHT),
    "budget": doc("How epsilon is split over levels: uniform (same at every level), geometric (more to the "
                  "deeper levels, which minimises query error) or leaf (all on the leaves).",
                  "ICDE'12 section 4.2, Lemma 3", label="budget plan per level"),
    "postprocess": doc("Make the noisy counts consistent (each parent = sum of its children) by least squares. "
                       "Uses released values only, so it costs no privacy and lowers error.", "ICDE'12 section 5"),
    "prune": doc("Cut the subtrees of nodes whose noisy count is below this threshold (empty areas stop early). "
                 "None keeps the full tree.", "ICDE'12 section 7", when_none="no pruning"),
    "pruning": doc("When the prune threshold applies: build (a node whose noisy count is small is not split and "
                   "gets the budget of the levels below for one more count, as the ICDE'12 authors' code does) "
                   "or after_ols (the paper's text: prune the complete tree after OLS).", "ICDE'12 section 7",
                   label="when to prune"),
    "stop_sds": doc("With pruning during the build, a node also stops when its noisy count is at most this many "
                    "noise standard deviations (a floor under the prune threshold, so that noise alone rarely "
                    "splits an empty node). auto's routes with non-negative least squares use 2.",
                    "ICDE'12 section 7 (the floor is psdviz's reading)", 0.0, 5.0, label="stop floor (noise sds)"),
    "count_fraction": doc("Share of epsilon spent on noisy counts; the rest pays for the private split points "
                          "(medians) of data-dependent trees.", "ICDE'12 section 6.2", **FRACTION),
    "split_grid": doc("Cells per side (a power of two) of a coarser public grid the splits use first: a node "
                      "spanning two or more of its cells is split on its lines, a node one cell wide splits the "
                      "other axis first, and only inside one cell are splits finer. For values recorded at that "
                      "precision and spread inside their cells. None: the release grid.", "", 2, None,
                      when_none="the release grid"),
    "median": doc("How each private median is chosen: em (exponential mechanism, the paper's choice), smooth "
                  "(smooth sensitivity, needs delta) or noisymean (a noisy average).", "ICDE'12 section 6.1",
                  label="private median method"),
    "sample_rate": doc("Compute the medians on a random sample of this share of the points: sampling amplifies "
                       "privacy, so each median gets a larger effective epsilon.", "ICDE'12 Theorem 7",
                       0.0, 1.0, open_low=True),
    "delta": doc("Failure probability allowed by each smooth-sensitivity median ((epsilon, delta)-DP); the "
                 "release's delta is this times the median levels, at most 0.001. Only used when median = smooth.",
                 "ICDE'12 Definition 4", **FRACTION),
    "n_public": doc("Declare the number of points public (then N costs no budget). None keeps N private.",
                    "", 1, None, when_none="N stays private", public_fact=True),
    "n_fraction": doc("Share of epsilon used to estimate N privately when a formula needs it.", "", **FRACTION),
    "c": doc("Constant in the size formula sqrt(N epsilon / c): larger c = fewer, bigger cells.",
             "ICDE'13 (UG), section 4", **POSITIVE),
}


# pv.build's own inputs, shown beside the method's parameters
BUILD: dict[str, Param] = {
    "epsilon": doc("Privacy loss: smaller epsilon = more noise = stronger privacy. Any one person changes what is "
                   "published by a factor of at most e^epsilon.", "", 0.0, 1e6, open_low=True),
    "seed": doc("Fresh randomness for real releases; a seed makes a lesson reproducible (and is labelled so: a "
                "seeded release is NOT private and is saved only when asked).", "", 0, None),
    "resolution": doc("Every published coordinate lies on a public grid of 2^k positions per axis, fixed before the "
                      "data are seen (no float can leak a data value); it is also the data's precision: no cell is "
                      "narrower than one step. 20 is about 38 m on the world; 8 for data on a 256 x 256 grid.",
                      "", 1, 30),
}


def doc_for(spec: MethodSpec, name: str) -> Param:
    """The declaration text of ``name`` in the method of ``spec``: its own, else the shared one (a ValueError
    if neither: every parameter has one)."""
    found = spec.params.get(name) or SHARED.get(name)
    if found is None:
        raise ValueError(f"parameter {name!r} of {spec.name!r} has no declaration: add it to the SPEC of "
                         f"{spec.builder.__module__} (or to psdviz/methods/declarations.py if methods share it)")
    return found
