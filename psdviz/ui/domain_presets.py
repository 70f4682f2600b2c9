"""Domain presets from public outlines: a country, a US state, or the lower 48 states.

The domain is public input and must never be read from the data; these bounds come from the
bundled public layers (world-atlas countries, us-atlas states), rounded outwards to 0.01 degree.
A country split by the antimeridian (Russia, Fiji) spans the whole longitude range: a domain cannot
wrap around.
"""
from __future__ import annotations

import math

import streamlit as st

from psdviz import Domain
from psdviz.errors import ParameterError

LOWER_48 = "USA: the lower 48 states and DC"
NOT_LOWER_48 = {"02", "15", "60", "66", "69", "72", "78"}   # AK, HI, and the island areas (FIPS)


def _rounded(xmin: float, ymin: float, xmax: float, ymax: float) -> tuple[float, float, float, float]:
    down, up = (lambda v: math.floor(v * 100) / 100), (lambda v: math.ceil(v * 100) / 100)
    return max(-180.0, down(xmin)), max(-90.0, down(ymin)), min(180.0, up(xmax)), min(90.0, up(ymax))


@st.cache_data(show_spinner="Reading the public outlines...")
def presets() -> dict[str, tuple[float, float, float, float]]:
    """Preset name -> (xmin, ymin, xmax, ymax), lower 48 first, then US states, then countries (by name)."""
    from psdviz.regions import us_states, world_countries
    states, countries = us_states().frame, world_countries().frame
    out = {}
    lower = states[~states["id"].isin(NOT_LOWER_48)]
    out[LOWER_48] = _rounded(*lower.total_bounds)
    for name, geom in sorted(zip(states["name"], states.geometry)):
        out[f"US state: {name}"] = _rounded(*geom.bounds)
    for name, geom in sorted(zip(countries["name"], countries.geometry)):
        out[f"Country: {name}"] = _rounded(*geom.bounds)
    return out


def preset_domain(name: str) -> Domain:
    """The domain of a preset (ValueError for an unknown name)."""
    table = presets()
    if name not in table:
        raise ParameterError(f"unknown domain preset {name!r}")
    return Domain(*table[name])
