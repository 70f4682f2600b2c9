"""A classroom at once: 1, 5 and 10 concurrent browser sessions on one app server (loopback only).

Starts `streamlit run app.py` on 127.0.0.1 and drives Debian's chromium with Playwright, one browser per
visitor, all at once. Each visitor runs ``--rounds`` rounds of what a class does: open the map (first
round: the page loaded), move epsilon one step, draw a rectangle and read its answer, open the Regions
page (US counties) and come back to the map through the page links (the same browser session). Printed:
steps and errors; whether the release a visitor comes back to is the one it left (its cells and the
rectangle's answer); the open-to-map median and worst and each step's median; the CPU time the server and
the browsers used (they share the machine); the server's resident memory at start, idle once warm
(``--settle`` seconds after the first row's visitors closed, default 120: their sessions have expired), at
its peak with the visitors, and ``--settle`` seconds after the last ones close.

Targets (the classroom issue): 0 errors; every return shows the same release; the open-to-map median at
10 visitors within 3x of one visitor's; server RSS at 10 visitors <= 700 MB and within 25 % of the idle
figure two minutes after the sessions close.

    python benchmarks/bench_classroom.py [--sessions 1 5 10] [--rounds 3] [--settle 120]
"""
from __future__ import annotations

import argparse
import os
import platform
import signal
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_app import ARGS, IFRAME, draw_to_answer, idle, query_number, start_server
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

PATIENCE = 300_000   # ms: ten browsers and the server on two cores are slow; a wait this long is not an error
ANSWER_WAIT = 90_000  # ms without an answer to a drawn rectangle: a person would draw it again
ATTEMPTS = 3
RELEASE_LINE = "[data-testid='stMarkdownContainer']:has-text('PRIVATE release')"


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time the server process has used so far, seconds (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    """Resident memory of the server process, MB (VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def browser_cpu() -> dict[int, float]:
    """CPU seconds used so far by every Chromium process alive now (the visitors' browsers), by process."""
    out = {}
    for d in Path("/proc").iterdir():
        try:
            if d.name.isdigit() and (d / "comm").read_text().strip() in ("chromium", "chrome"):
                out[int(d.name)] = cpu_seconds(int(d.name))
        except OSError:              # a process that ended while read
            continue
    return out


class Sampler(threading.Thread):
    """Every half second while ``running``: the server's RSS (``peak`` the largest seen) and the CPU time of
    the visitors' browsers (``browsers``: the last reading of each Chromium process, so processes that end
    keep what they used)."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.peak, self.running = pid, 0.0, True
        self.start_cpu = browser_cpu()
        self.seen: dict[int, float] = {}

    def run(self) -> None:
        while self.running:
            self.peak = max(self.peak, rss_mb(self.pid))
            self.seen.update(browser_cpu())
            time.sleep(0.5)

    @property
    def browsers(self) -> float:
        return sum(v - self.start_cpu.get(pid, 0.0) for pid, v in self.seen.items())


def visitor(url: str, rounds: int, out: dict, k: int) -> None:
    """One visitor's rounds in its own browser; fills out[k] with timings, checks and errors."""
    got = {"open": [], "epsilon": [], "draw": [], "regions": [], "steps": 0, "errors": [], "same": 0, "returns": 0,
           "drawn_again": 0}
    out[k] = got
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            for r in range(rounds):
                t0 = time.perf_counter()
                if r == 0:
                    page.goto(url, timeout=PATIENCE)     # ten browsers on two cores: slow, not an error
                else:
                    page.get_by_role("link", name="Map: build, see, query").click()
                page.frame_locator(IFRAME).last.locator("canvas.leaflet-zoom-animated, img.leaflet-image-layer") \
                    .first.wait_for(timeout=PATIENCE)
                got["open"].append(time.perf_counter() - t0)
                idle(page, PATIENCE)
                got["steps"] += 1
                line = page.locator(RELEASE_LINE).first.inner_text()
                if r > 0:
                    got["returns"] += 1
                    same = line == got["line"] and answer(page) == got["answer"]
                    got["same"] += int(same)       # the release's cells and the kept rectangle's answer
                    if not same and os.environ.get("PSDVIZ_BENCH_DEBUG"):
                        print("DIFF", repr(line), repr(got["line"]), repr(answer(page)), repr(got["answer"]))
                slider = page.locator("[data-testid='stSlider']", has_text="epsilon (privacy budget)")
                t0 = time.perf_counter()
                slider.get_by_role("slider").press("ArrowRight" if r % 2 == 0 else "ArrowLeft")
                idle(page, PATIENCE)
                got["epsilon"].append(time.perf_counter() - t0)
                got["steps"] += 1
                t0 = time.perf_counter()
                got["drawn_again"] += draw(page, k + r) - 1
                got["draw"].append(time.perf_counter() - t0)
                got["steps"] += 1
                got["line"], got["answer"] = page.locator(RELEASE_LINE).first.inner_text(), answer(page)
                t0 = time.perf_counter()
                page.get_by_role("link", name="Regions").click()
                page.frame_locator("iframe").last.locator("path.leaflet-interactive").first.wait_for(timeout=PATIENCE)
                idle(page, PATIENCE)
                got["regions"].append(time.perf_counter() - t0)
                got["steps"] += 1
            browser.close()
    except Exception as exc:            # what the benchmark counts: a step that failed, named
        step = ("open the map", "move epsilon", "draw a rectangle", "open Regions")[got["steps"] % 4]
        got["errors"].append(f"round {got['steps'] // 4 + 1}, {step}: {type(exc).__name__}: "
                             f"{str(exc).splitlines()[0][:160]}")
        if os.environ.get("PSDVIZ_BENCH_DEBUG") and "page" in locals():
            page.screenshot(path=f"/tmp/classroom_failed_{k}.png", full_page=True)


def draw(page, k: int) -> int:
    """Draw a rectangle once the map's cells are drawn and the page is idle, as a person would, and wait for
    the answer to it (the next query number); returns how many times it was drawn. A rectangle drawn while
    the map was being replaced is lost with the old map (the browser never sends it): after
    ``ANSWER_WAIT`` ms without an answer it is drawn again a little elsewhere, as a person would, and counted
    (the same rectangle again would be the query already seen, which the page keeps without a new number); an
    earlier drawing whose answer came after the wait counts as answered."""
    before = query_number(page)
    for attempt in range(1, ATTEMPTS + 1):
        page.locator(IFRAME).last.wait_for(state="visible", timeout=PATIENCE)
        page.frame_locator(IFRAME).last.locator("canvas.leaflet-zoom-animated, img.leaflet-image-layer") \
            .first.wait_for(timeout=PATIENCE)
        idle(page, PATIENCE)
        if attempt > 1 and query_number(page) > before:   # the earlier drawing was answered, only late
            return attempt - 1
        try:
            draw_to_answer(page, (k + attempt - 1) % 5, ANSWER_WAIT)   # a person draws again a little elsewhere
            return attempt
        except PlaywrightTimeout:
            if attempt == ATTEMPTS:
                raise
    return ATTEMPTS


def answer(page) -> str:
    """The answer box's text (estimate and interval) for the rectangle in view."""
    box = page.locator("[data-testid='stMetric']").first
    return box.inner_text() if box.count() else ""


def run(url: str, n: int, rounds: int, pid: int) -> dict:
    sampler = Sampler(pid)
    sampler.start()
    cpu0 = cpu_seconds(pid)
    out: dict = {}
    threads = [threading.Thread(target=visitor, args=(url, rounds, out, k)) for k in range(n)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    sampler.running = False
    opens = [s for v in out.values() for s in v["open"]]
    steps = {kind: statistics.median([s for v in out.values() for s in v[kind]] or [float("nan")])
             for kind in ("epsilon", "draw", "regions")}
    return {"cpu": cpu_seconds(pid) - cpu0, "browsers": sampler.browsers, "medians": steps, "n": n,
            "seconds": time.perf_counter() - t0, "steps": sum(v["steps"] for v in out.values()),
            "errors": [e for v in out.values() for e in v["errors"]],
            "drawn_again": sum(v["drawn_again"] for v in out.values()),
            "same": sum(v["same"] for v in out.values()), "returns": sum(v["returns"] for v in out.values()),
            "open_median": statistics.median(opens) if opens else float("nan"),
            "open_worst": max(opens) if opens else float("nan"), "peak_mb": sampler.peak}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, nargs="+", default=[1, 5, 10])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--settle", type=int, default=120)
    a = ap.parse_args()
    proc, url = start_server()
    try:
        time.sleep(3)
        start_mb = rss_mb(proc.pid)
        rows = [run(url, a.sessions[0], a.rounds, proc.pid)]
        time.sleep(a.settle)                 # the first visitors' sessions expire: the server idle, warm
        idle_mb = rss_mb(proc.pid)
        rows += [run(url, n, a.rounds, proc.pid) for n in a.sessions[1:]]
        settle = []                          # (seconds after the last visitors closed, RSS MB) every 30 s
        for t in range(30, a.settle + 1, 30):
            time.sleep(30)
            settle.append((t, rss_mb(proc.pid)))
        time.sleep(a.settle % 30)
        after_mb = rss_mb(proc.pid)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
    print(f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}; server RSS at start {start_mb:.0f} MB, idle (warm: {a.settle} s after the "
          f"first {a.sessions[0]} visitor(s) closed) {idle_mb:.0f} MB, {after_mb:.0f} MB {a.settle} s after the "
          f"last visitors closed ({after_mb / idle_mb - 1:+.0%} of idle).")
    print("Server RSS after the visitors closed: " + ", ".join(f"{t} s {m:.0f} MB" for t, m in settle)
          + " (a closed tab's session is kept 60 s, .streamlit/config.toml, then freed by the memory thread "
          "within 30 s).")
    print("| visitors | steps | errors | rectangles drawn again | same release on return | open-to-map median (s) | "
          "worst (s) | server RSS peak (MB) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['n']} | {r['steps']} | {len(r['errors'])} | {r['drawn_again']} | {r['same']} / {r['returns']} | "
              f"{r['open_median']:.1f} | {r['open_worst']:.1f} | {r['peak_mb']:.0f} |")
    for r in rows:
        m = r["medians"]
        print(f"{r['n']} visitors: {r['seconds']:.0f} s in all; CPU: server {r['cpu']:.0f} s "
              f"({r['cpu'] / r['seconds']:.0%} of one core), the browsers {r['browsers']:.0f} s "
              f"({r['browsers'] / r['seconds']:.0%} of one core; the machine has {os.cpu_count()}); step medians: "
              f"epsilon {m['epsilon']:.1f} s, draw to answer {m['draw']:.1f} s, Regions painted {m['regions']:.1f} s")
    for r in rows:
        for e in r["errors"][:5]:
            print(f"  {r['n']} visitors: {e}")
    one = rows[0]["open_median"]
    for r in rows[1:]:
        print(f"open-to-map median at {r['n']} visitors: {r['open_median'] / one:.1f}x one visitor's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
