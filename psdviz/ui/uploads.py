"""Uploaded bytes opened by an engine function that reads a path, without showing the path.

The bytes go to a temporary file named by the upload's suffix only (the upload's own name could hold
'..'); an error names the file as the user knows it, never the internal temporary path.
"""
from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from psdviz.errors import PsdvizError

T = TypeVar("T")


def open_upload(data: bytes, filename: str, open_path: Callable[[Path], T], stem: str = "upload") -> T:
    """``open_path`` run on a temporary copy of ``data``; a PsdvizError names ``filename`` instead
    of the copy."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{stem}{Path(filename).suffix.lower()}"
        path.write_bytes(data)
        try:
            return open_path(path)
        except PsdvizError as exc:      # the same named type, the upload's name in place of the copy's
            text = str(exc).replace(str(path), filename).replace(tmp, "(upload)").replace(path.name, filename)
            raise type(exc)(text) from None
