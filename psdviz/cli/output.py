"""What the command line prints and writes: tables, the ledger, notes, the progress bar, files for people."""
from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from .. import LargeEpsilonWarning
from ..api import NoiseDominatesWarning
from ..errors import ParameterError
from ..present import parameters_text


@contextmanager
def progress_bar() -> Iterator[Callable[[int, int, str], None]]:
    """A rich progress bar on a terminal, one task per kind of pass (tree levels, median levels, ...): filled when
    the build ends (a tree that stops early has done its work), wiped when it fails, so the one-line error is all
    the terminal shows; nothing at all when the output is a file or a pipe."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   transient=False, disable=not sys.stdout.isatty())
    tasks: dict[str, TaskID] = {}

    def update(done: int, total: int, what: str) -> None:
        if what not in tasks:
            tasks[what] = bar.add_task(what, total=total)
        bar.update(tasks[what], completed=done, total=total)
    with bar:
        try:
            yield update
        except BaseException:
            bar.live.transient = True
            raise
        for task in bar.tasks:
            bar.update(task.id, completed=task.total)


SHOWN_CHARS = 2000     # a file's text (notes, ledger entries, warnings) is shown up to this many characters


SHOWN_ROWS = 200       # ... and its ledger and notes up to this many entries


def shown(text):
    """Text from a file as a ``rich.text.Text``: printed literally (never read as markup), capped at
    :data:`SHOWN_CHARS`."""
    from rich.text import Text
    s = str(text)
    if len(s) > SHOWN_CHARS:
        s = s[:SHOWN_CHARS] + f" ... ({len(s) - SHOWN_CHARS:,} more characters not shown)"
    return Text(s)


def print_ledger(rel) -> None:
    """The ledger as a table that fits the terminal (80 columns included); the notes get the room, the what and
    mechanism columns at most a fifth and a sixth of it, and a cell too narrow for a word folds it: nothing is
    cut below :data:`SHOWN_CHARS`. The level column is shown when an entry has a level. Every cell is literal
    text: a file cannot style itself."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    con = Console()
    records = rel.ledger.records()
    levels = any(s["level"] is not None for s in records[:SHOWN_ROWS])
    t = Table(title=f"ledger: {rel.ledger.total():.6g} of epsilon {rel.epsilon:g} ({rel.privacy_unit})",
              box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True)
    t.add_column("what", max_width=max(16, con.width // 5), overflow="fold")
    t.add_column("eps", no_wrap=True, justify="right")
    t.add_column("mechanism", max_width=max(14, con.width // 6), overflow="fold")
    if levels:
        t.add_column("level", no_wrap=True, justify="right")
    t.add_column("nodes", no_wrap=True, justify="right")
    t.add_column("note", overflow="fold")
    for s in records[:SHOWN_ROWS]:
        level = ["" if s["level"] is None else str(s["level"])] if levels else []
        t.add_row(shown(s["what"]), f"{s['epsilon']:.6g}", shown(s["mechanism"]), *level, f"{s['nodes']:,}",
                  shown(s["note"]))
    con.print(t)
    if len(records) > SHOWN_ROWS:
        con.print(shown(f"... {len(records) - SHOWN_ROWS:,} more ledger entries (psdviz info --json lists all)"))


def warning_line(w: warnings.WarningMessage) -> str | None:
    """One line for a warning the engine gave (its own words; deprecations and library chatter dropped)."""
    from ..regions import RegionRepairWarning
    if not issubclass(w.category, (NoiseDominatesWarning, LargeEpsilonWarning, RegionRepairWarning)):
        return None
    return "warning: " + " ".join(str(w.message).split())


def write_drawn(budget, rel, kind: str, out, write) -> Path:
    """Write the release with ``write(path)``; with a budget, write it beside ``out`` first, record the
    release in the budget (under its lock, the remainder checked again), then move it into place, so a
    release the budget refuses is never left on disk and the budget is updated after the file exists."""
    if budget is None:
        return Path(write(out))
    out = Path(out)
    partial = out.with_name(out.name + ".partial" + out.suffix)
    written = Path(write(partial))
    try:
        budget.draw(rel, kind, file=str(out.resolve()))
    except BaseException:
        written.unlink(missing_ok=True)
        raise
    os.replace(written, out)
    return out


def describe(rel) -> None:
    """A readable summary of a release: what it is, its privacy, its cells, and the ledger as a table
    (notes wrapped, never cut)."""
    from rich.console import Console

    con = Console()
    rep = rel.report()
    if "warning" in rep:
        con.print(shown(rep["warning"]), style="bold red")
    params, method = rep["parameters"], rep["method"]
    chosen = f" (chose {params['chosen']})" if "chosen" in params else ""
    head = shown(f"{method}{chosen}")
    head.stylize("bold")
    con.print(head + shown(f", epsilon {rel.epsilon:g} per {rel.privacy_unit}"
                           + (f", delta {rep['delta']:.3g}" if rep.get("delta") else "")), highlight=False)
    if rep["kind"] == "spatial":            # cells on a grid over a domain
        d = rel.domain
        con.print(f"cells: {rep['cells']:,} published ({rep['nodes']:,} nodes in the tree)", highlight=False)
        con.print(f"domain: x [{d.xmin:g}, {d.xmax:g}], y [{d.ymin:g}, {d.ymax:g}]; resolution "
                  f"{rel.grid.bits} bits ({rel.grid.size:,} positions per axis)", highlight=False)
    else:
        sizes = {k: rep[k] for k in ("regions", "levels", "nodes", "size", "m", "time_cells", "windows") if k in rep}
        con.print(shown(", ".join(f"{k}: {v:,}" for k, v in sizes.items())), highlight=False)
    con.print(shown(f"randomness: {rel.randomness.mode}"), highlight=False)
    text = parameters_text(params)
    if text:
        con.print(shown(f"parameters: {text}"), highlight=False)
    print_ledger(rel)
    print_notes(rel, con)


def print_notes(rel, con=None) -> None:
    """The release's notes (a size the resolution or memory_limit lowered, a plan not used, ...), printed
    literally, at most :data:`SHOWN_ROWS`."""
    from rich.console import Console
    con = con or Console()
    for note in rel.notes[:SHOWN_ROWS]:
        con.print(shown(f"note: {note}"), highlight=False)
    if len(rel.notes) > SHOWN_ROWS:
        con.print(shown(f"... {len(rel.notes) - SHOWN_ROWS:,} more notes (psdviz info --json lists all)"))


def region_output(rel, path, allow_seeded: bool = False) -> Path:
    """A region release as its file (.json) or its counts (.csv, .parquet; a seeded run's rows say NOT
    PRIVATE)."""
    path = Path(path)
    if path.suffix.lower() == ".json":
        return Path(rel.save(path, allow_seeded=allow_seeded))
    from ..present import check_seeded_export, labelled
    from ..regions import people_table
    check_seeded_export(rel.randomness, allow_seeded, "the region counts")
    return write_table(people_table(labelled(rel.counts(), rel.randomness)), path)


def write_table(table, path) -> Path:
    """A table as CSV or Parquet, by the path's suffix."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".parquet"):
        raise ParameterError(f"{path.name}: a table is written as .csv or .parquet")
    table.to_csv(path, index=False) if suffix == ".csv" else table.to_parquet(path, index=False)
    return path


def say(command: str, lines) -> None:
    """The owner's warning lines on stderr, one line each (None entries skipped)."""
    for line in lines:
        if line:
            print(f"psdviz {command}: {line}", file=sys.stderr)
