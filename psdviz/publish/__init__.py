"""Publish: spatial releases on the release kernel: the Release (answers, variances, cells, report) that
could be handed out, and the cell views built from it. May import psdviz.core, splits, inference, query and
kernel."""
