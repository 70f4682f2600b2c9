"""Count-of-counts histograms over a location hierarchy (Kuo et al., VLDB 2018)."""
