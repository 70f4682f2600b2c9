"""Release values as JSON: the one conversion the reports and the files share."""
from __future__ import annotations

import math

import numpy as np

from ..core.domain import Domain


def json_value(v, text_nonfinite: bool = False):
    """A parameter as a JSON value: text, booleans and None as they are, numbers (numpy's too) as Python
    numbers, a domain as its four bounds, lists and dicts value by value, anything else as its text. With
    ``text_nonfinite`` a non-finite number is written as its text (strict JSON, as release files need)."""
    if isinstance(v, (bool, str, type(None))):
        return v
    if isinstance(v, (int, float, np.generic)):
        v = v.item() if isinstance(v, np.generic) else v
        return str(v) if text_nonfinite and isinstance(v, float) and not math.isfinite(v) else v
    if isinstance(v, Domain):
        return {"xmin": v.xmin, "ymin": v.ymin, "xmax": v.xmax, "ymax": v.ymax}
    if isinstance(v, (list, tuple)):
        return [json_value(x, text_nonfinite) for x in v]
    if isinstance(v, dict):
        return {str(k): json_value(x, text_nonfinite) for k, x in v.items()}
    return str(v)
