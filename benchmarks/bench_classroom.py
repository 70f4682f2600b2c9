"""A classroom at once: 1, 5 and 10 concurrent browser sessions on one app server (loopback only).

Starts `streamlit run app.py` on 127.0.0.1 and drives Debian's chromium with Playwright, one browser per
visitor, all at once. Each visitor runs ``--rounds`` rounds of what a class does: open the map (first
round: the page loaded), move epsilon one step, draw a rectangle and read its answer, open the Regions
page (US counties) and come back to the map through the page links (the same browser session). Printed:
steps and errors; whether the release a visitor comes back to is the one it left (its cells and the
rectangle's answer); the open-to-map median and worst; the server's resident memory idle before, at its
peak with the visitors, and ``--settle`` seconds after they close (default 120).

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
from bench_app import ARGS, IFRAME, draw_to_answer, idle, start_server
from playwright.sync_api import sync_playwright

RELEASE_LINE = "[data-testid='stMarkdownContainer']:has-text('PRIVATE release')"


def rss_mb(pid: int) -> float:
    """Resident memory of the server process, MB (VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Sampler(threading.Thread):
    """The server's RSS every half second while ``running``; ``peak`` the largest seen."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.peak, self.running = pid, 0.0, True

    def run(self) -> None:
        while self.running:
            self.peak = max(self.peak, rss_mb(self.pid))
            time.sleep(0.5)


def visitor(url: str, rounds: int, out: dict, k: int) -> None:
    """One visitor's rounds in its own browser; fills out[k] with timings, checks and errors."""
    got = {"open": [], "steps": 0, "errors": [], "same": 0, "returns": 0}
    out[k] = got
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            for r in range(rounds):
                t0 = time.perf_counter()
                if r == 0:
                    page.goto(url, timeout=300_000)     # ten browsers on two cores: slow, not an error
                else:
                    page.get_by_role("link", name="Map: build, see, query").click()
                page.frame_locator(IFRAME).last.locator("canvas.leaflet-zoom-animated, img.leaflet-image-layer") \
                    .first.wait_for(timeout=300_000)
                got["open"].append(time.perf_counter() - t0)
                idle(page)
                got["steps"] += 1
                line = page.locator(RELEASE_LINE).first.inner_text()
                if r > 0:
                    got["returns"] += 1
                    same = line == got["line"] and answer(page) == got["answer"]
                    got["same"] += int(same)       # the release's cells and the kept rectangle's answer
                    if not same and os.environ.get("PSDVIZ_BENCH_DEBUG"):
                        print("DIFF", repr(line), repr(got["line"]), repr(answer(page)), repr(got["answer"]))
                slider = page.locator("[data-testid='stSlider']", has_text="epsilon (privacy budget)")
                slider.get_by_role("slider").press("ArrowRight" if r % 2 == 0 else "ArrowLeft")
                idle(page)
                got["steps"] += 1
                draw(page, k + r)
                got["steps"] += 1
                got["line"], got["answer"] = page.locator(RELEASE_LINE).first.inner_text(), answer(page)
                page.get_by_role("link", name="Regions").click()
                page.frame_locator("iframe").last.locator("path.leaflet-interactive").first.wait_for(timeout=300_000)
                idle(page)
                got["steps"] += 1
            browser.close()
    except Exception as exc:            # what the benchmark counts: a step that failed, named
        got["errors"].append(f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}")


def draw(page, k: int) -> None:
    """Draw a rectangle on the map and wait for the answer to this one (the next query number)."""
    page.locator(IFRAME).last.wait_for(state="visible", timeout=300_000)
    draw_to_answer(page, k % 5)


def answer(page) -> str:
    """The answer box's text (estimate and interval) for the rectangle in view."""
    box = page.locator("[data-testid='stMetric']").first
    return box.inner_text() if box.count() else ""


def run(url: str, n: int, rounds: int, pid: int) -> dict:
    sampler = Sampler(pid)
    sampler.start()
    out: dict = {}
    threads = [threading.Thread(target=visitor, args=(url, rounds, out, k)) for k in range(n)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    sampler.running = False
    opens = [s for v in out.values() for s in v["open"]]
    return {"n": n, "seconds": time.perf_counter() - t0, "steps": sum(v["steps"] for v in out.values()),
            "errors": [e for v in out.values() for e in v["errors"]],
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
        idle_mb = rss_mb(proc.pid)
        rows = [run(url, n, a.rounds, proc.pid) for n in a.sessions]
        settle = []                          # (seconds after the last visitors closed, RSS MB) every 30 s
        for t in range(30, a.settle + 1, 30):
            time.sleep(30)
            settle.append((t, rss_mb(proc.pid)))
        time.sleep(a.settle % 30)
        after_mb = rss_mb(proc.pid)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
    print(f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}; server RSS idle {idle_mb:.0f} MB, {after_mb:.0f} MB {a.settle} s after the "
          f"last visitors closed ({after_mb / idle_mb - 1:+.0%}).")
    print("Server RSS after the visitors closed: " + ", ".join(f"{t} s {m:.0f} MB" for t, m in settle)
          + " (Streamlit keeps a closed session for server.disconnectedSessionTTL, 120 s by default).")
    print("| visitors | steps | errors | same release on return | open-to-map median (s) | worst (s) | "
          "server RSS peak (MB) |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['n']} | {r['steps']} | {len(r['errors'])} | {r['same']} / {r['returns']} | "
              f"{r['open_median']:.1f} | {r['open_worst']:.1f} | {r['peak_mb']:.0f} |")
    for r in rows:
        for e in r["errors"][:5]:
            print(f"  {r['n']} visitors: {e}")
    one = rows[0]["open_median"]
    for r in rows[1:]:
        print(f"open-to-map median at {r['n']} visitors: {r['open_median'] / one:.1f}x one visitor's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
