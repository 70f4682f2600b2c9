"""The public domain: axis-aligned bounds the user declares, never read from the data (docs/design.md)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .errors import InputDataError


@dataclass(frozen=True)
class Domain:
    """Axis-aligned public bounds [xmin, xmax] x [ymin, ymax] (e.g. longitude x latitude)."""

    xmin: float
    ymin: float
    xmax: float
    ymax: float

    def __post_init__(self) -> None:
        vals = (self.xmin, self.ymin, self.xmax, self.ymax)
        if not all(isinstance(v, (int, float, np.floating, np.integer)) and math.isfinite(v) for v in vals):
            raise InputDataError(f"Domain bounds must be finite numbers (got {vals})")
        for lo, hi, axis in ((self.xmin, self.xmax, "x"), (self.ymin, self.ymax, "y")):
            if not lo < hi:
                rel = "above" if lo > hi else "equal to"
                raise InputDataError(f"Domain: {axis}min {lo:g} is {rel} {axis}max {hi:g}; bounds are xmin ymin "
                                     "xmax ymax, and the domain needs xmin < xmax and ymin < ymax")
        w, h = float(self.xmax) - float(self.xmin), float(self.ymax) - float(self.ymin)
        if not (math.isfinite(w) and math.isfinite(h)):
            raise InputDataError(f"Domain width and height must be finite numbers (got width {w}, height {h}): "
                             "shrink the bounds")
        if not math.isfinite(w * h):
            raise InputDataError(f"Domain area must be a finite number (got width {w:g} x height {h:g}): "
                             "shrink the bounds")
        for name in ("xmin", "ymin", "xmax", "ymax"):
            object.__setattr__(self, name, float(getattr(self, name)))

    @classmethod
    def world(cls) -> Domain:
        """Longitude [-180, 180] x latitude [-90, 90]."""
        return cls(-180.0, -90.0, 180.0, 90.0)

    @property
    def width(self) -> float:
        return self.xmax - self.xmin

    @property
    def height(self) -> float:
        return self.ymax - self.ymin

    @property
    def area(self) -> float:
        return self.width * self.height

    def as_rect(self) -> np.ndarray:
        return np.array([self.xmin, self.ymin, self.xmax, self.ymax])

    def centred_rect(self, share: float) -> np.ndarray:
        """The (1, 4) rectangle at the domain's centre covering ``share`` of its area, its sides in the
        domain's proportions: a typical query of that size (public, like the domain)."""
        s = math.sqrt(share)
        cx, cy = (self.xmin + self.xmax) / 2, (self.ymin + self.ymax) / 2
        hw, hh = s * self.width / 2, s * self.height / 2
        return np.array([[cx - hw, cy - hh, cx + hw, cy + hh]])

    def contains(self, xy: np.ndarray) -> np.ndarray:
        """Boolean mask of points inside the closed domain."""
        return ((xy[:, 0] >= self.xmin) & (xy[:, 0] <= self.xmax)
                & (xy[:, 1] >= self.ymin) & (xy[:, 1] <= self.ymax))
