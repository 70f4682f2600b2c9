"""The map as a PNG to keep or hand on: the cells in their colours (the same classes, pale rule and Web
Mercator rows as the map), the legend under them, and the privacy line on top, so the picture never
travels without what it is and what protects it."""
from __future__ import annotations

import io
import textwrap

import numpy as np

import psdviz as pv
from psdviz.present import PALE_WORDS, PALETTE, Colours, legend_entries, mercator_centres, parts_words, shade_grid

from .map_layers import LAT_LIMIT

BACKGROUND = (236, 236, 236)      # no cell here (outside the domain): never a data colour
TEXT = (34, 34, 34)
MARGIN, SWATCH, LINE = 12, 16, 20


def _rgb(c: str) -> tuple[int, int, int]:
    return int(c[1:3], 16), int(c[3:5], 16), int(c[5:7], 16)


def cells_image(release: pv.Release, nodes: np.ndarray, colours: Colours, width: int) -> np.ndarray:
    """(height, width, 3) uint8: each pixel the colour class of the cell under its centre, north up."""
    d = release.domain
    lat0, lat1 = max(d.ymin, -LAT_LIMIT), min(d.ymax, LAT_LIMIT)
    height = int(np.clip(width * (lat1 - lat0) / max(d.xmax - d.xmin, 1e-9) * 1.2, 200, 900))
    xs = d.xmin + (np.arange(width) + 0.5) * (d.xmax - d.xmin) / width
    palette = np.array([_rgb(c) for c in PALETTE] + [BACKGROUND], dtype=np.uint8)
    return palette[shade_grid(release, nodes, colours, xs, mercator_centres(lat0, lat1, height))][::-1]


def map_png(release: pv.Release, nodes: np.ndarray, colours: Colours, privacy_line: str,
            width: int = 900) -> bytes:
    """The PNG: ``privacy_line`` wrapped on top, the cells, then one legend row per class (the pale class
    first, with what it means)."""
    from PIL import Image, ImageDraw, ImageFont
    font = ImageFont.load_default(size=14)
    head = textwrap.wrap(privacy_line, width=width // 8)
    rows = [(PALETTE[0], f"{PALE_WORDS}, or sparser than the first class{parts_words(colours)}")]
    rows += [(c, f"{text} points per square degree (estimated density, log scale)") for c, text in
             legend_entries(colours)]
    cells = cells_image(release, nodes, colours, width - 2 * MARGIN)
    top = MARGIN + LINE * len(head) + MARGIN
    height = top + cells.shape[0] + MARGIN + LINE * len(rows) + MARGIN
    img = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(img)
    for k, text in enumerate(head):
        draw.text((MARGIN, MARGIN + LINE * k), text, fill=TEXT, font=font)
    img.paste(Image.fromarray(np.ascontiguousarray(cells), "RGB"), (MARGIN, top))
    y = top + cells.shape[0] + MARGIN
    for k, (colour, text) in enumerate(rows):
        draw.rectangle([MARGIN, y + LINE * k, MARGIN + SWATCH, y + LINE * k + SWATCH - 4], fill=_rgb(colour),
                       outline=(180, 180, 180))
        draw.text((MARGIN + SWATCH + 8, y + LINE * k), text, fill=TEXT, font=font)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()
