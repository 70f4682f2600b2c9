"""Publish: the Release (answers, variances, cells, report) that could be handed out, and the cell
views built from it. May import psdviz.core, splits, inference and query."""
