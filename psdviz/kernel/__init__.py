"""The release kernel every product line builds on: the verbs a release answers (``protocol``), the one
header type every kind holds, which writes the head of every report and reads it back (``header``), release
values as JSON (``values``), release files in JSON (``json_release``) and their shared checks
(``file_checks``), the privacy statement (``statement``), immutability (``freeze``) and the interval beside
every private number (``intervals``). Spatial releases (``publish``), regions, count-of-counts, sparse
summaries and counts over time are five equal packages on it. May import psdviz.core only.
"""
