"""Inference: post-processing of released noisy counts (ICDE'12 OLS, weighted least squares on any
tree, pruning). Uses released values only. May import psdviz.core only."""
