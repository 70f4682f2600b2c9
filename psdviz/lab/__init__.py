"""Lab: the accuracy lab (query workloads, error metrics, method comparisons and presets, synthetic
data). May import anything in the engine (psdviz.build included); never psdviz.ui."""
