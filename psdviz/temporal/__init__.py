"""Counts over time: one private release for every window of a public span, over a spatial partition shared
by all windows, under event-level, user-level (the tree mechanism over time) or w-event privacy (budget
distribution and absorption).

May import psdviz.core, splits, inference, query, kernel, io and sources; never publish, methods, lab or ui
(the partition bought from pooled data is built by the top-level ``psdviz.over_time``, which may).
"""
from .axis import TimeAxis, parse_window, to_seconds
from .cells import Partition
from .mechanisms import MECHANISMS, UNITS, check_mechanism, privacy_unit
from .release import FORMAT, TimeRelease, load_time, true_answer_over_time
from .sample import DOMAIN as FLIGHTS_DOMAIN
from .sample import SPAN as FLIGHTS_SPAN
from .sample import flight_departures, flights_available
from .user_bound import FRACTION as BOUND_FRACTION
from .user_bound import QUANTILE as BOUND_QUANTILE

__all__ = ["BOUND_FRACTION", "BOUND_QUANTILE", "FLIGHTS_DOMAIN", "FLIGHTS_SPAN", "FORMAT", "MECHANISMS", "UNITS",
           "Partition", "TimeAxis", "TimeRelease", "check_mechanism", "flight_departures", "flights_available",
           "load_time", "parse_window", "privacy_unit", "to_seconds", "true_answer_over_time"]
