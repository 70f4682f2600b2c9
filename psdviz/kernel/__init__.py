"""The release kernel every product line builds on: one report head and the verbs a release answers
(``protocol``), release files in JSON (``json_release``) and their shared checks (``file_checks``), the
privacy statement (``statement``), immutability (``freeze``) and the interval beside every private
number (``intervals``). Spatial releases (``publish``), regions, count-of-counts and sparse summaries are
four equal packages on it. May import psdviz.core only.
"""
