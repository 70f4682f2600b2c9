"""The ledger table the command line prints (build, regions, info) fits a terminal 80 columns wide: no line
longer than 80 characters, the notes given the room, and no text cut (a word too long for its column folds)."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import psdviz as pv
from psdviz.cli.output import print_ledger
from psdviz.core.ledger import Ledger

PTS = np.random.default_rng(0).random((3000, 2))
DOM = pv.Domain(0, 0, 1, 1)


def _table(rel, capsys, monkeypatch, width: int = 80) -> list[str]:
    monkeypatch.setenv("COLUMNS", str(width))
    print_ledger(rel)
    return capsys.readouterr().out.splitlines()


def _note_width(lines: list[str]) -> int:
    """Columns from the "note" header to the table's right edge."""
    header = next(line for line in lines if "note" in line and "what" in line)
    return len(header) - header.index("note")


@pytest.mark.parametrize("method", ["auto", "kdtree", "kd-noisymean", "ug"])
def test_a_release_s_ledger_fits_80_columns_with_room_for_its_notes(method, capsys, monkeypatch):
    rel = pv.build(PTS, DOM, method, 1.0, seed=1)
    lines = _table(rel, capsys, monkeypatch)
    assert max(len(line) for line in lines) <= 80
    assert _note_width(lines) >= 80 // 3                   # the notes get the room, not the short columns
    text = " ".join(lines)
    assert "…" not in text
    for spend in rel.ledger.records():                     # every word of every note, whole
        assert all(word in text for word in spend["note"].split())


def test_a_word_longer_than_its_column_folds_and_is_never_cut(capsys, monkeypatch):
    ledger = Ledger(1.0)
    ledger.spend("Q" * 50, 0.000976562, "exponential (count imbalance, dyadic positions)", nodes=12_345_678,
                 level=12, note="a path read from a file: " + "Z" * 120)
    rel = SimpleNamespace(ledger=ledger, epsilon=1.0, privacy_unit="one point")
    lines = _table(rel, capsys, monkeypatch)
    assert max(len(line) for line in lines) <= 80
    text = "".join(lines)
    assert "…" not in text and text.count("Q") == 50 and text.count("Z") == 120
    assert "12,345,678" in text and "0.000976562" in text


def test_the_level_column_is_shown_only_when_an_entry_has_a_level(capsys, monkeypatch):
    head = _table(pv.build(PTS, DOM, "privtree", 1.0, seed=1), capsys, monkeypatch)[1]
    assert "level" not in head and "nodes" in head
    head = _table(pv.build(PTS, DOM, "quadtree", 1.0, seed=1), capsys, monkeypatch)[1]
    assert "level" in head
