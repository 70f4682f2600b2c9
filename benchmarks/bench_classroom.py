"""A classroom at once: N sessions started together on one app server (loopback only), without browsers or
with them.

Starts ``python -m streamlit run app.py`` on 127.0.0.1, as the README's command runs it (the shipped
``.streamlit/config.toml``; ``--server-flag`` adds a flag, e.g. ``--server-flag=--server.fileWatcherType=auto``
to measure a setting).

``--client protocol`` (the default; no Chromium): each session is a visitor that speaks Streamlit's own
websocket protocol (``classroom_protocol.py``: the BackMsg / ForwardMsg protobufs of the installed streamlit,
as its frontend sends and reads them). All N start together; each opens the map page (the default release),
types an epsilon of its own (a new build), draws a rectangle (the value streamlit-folium sends), opens "Open a
release" and comes back to the map; every third session first uploads a file of its own points (and picks its
public bounds, "the world", in the page's bounds step). Printed per
N: open-to-map median and worst (from the first request of the visit to the map's element), each step's
median and worst, errors (exceptions, error boxes, timeouts, dropped connections), isolation (every page a
session saw shows its own epsilon and its own data), the same release and answer on return, the server's CPU
per student for the whole flow, its RSS idle (warm, ``--settle`` s after the first row's sessions closed),
peak and ``--settle`` s after the last ones, and the load average before and after each row (the machine
may be shared: CPU seconds hold under load, latencies do not).

``--client browser``: one headless Chromium per visitor (Playwright), ``--rounds`` rounds of open the map,
move epsilon one step, draw a rectangle and read its answer, open the Regions page and come back; what only
a browser shows (the map drawn, the browsers' own CPU, which shares the server's cores).

Targets (docs/decisions/classroom.md): 30 sessions open-to-map median <= 6 s, worst <= 10 s; server CPU
<= 0.6 s per student; 10 sessions within 3x of one; no errors, 30 of 30 same release on return, isolation
with uploads, memory back within 25 % of idle.

    python benchmarks/bench_classroom.py [--client protocol|browser] [--sessions 1 10 30] [--settle 120]
"""
from __future__ import annotations

import argparse
import asyncio
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from classroom_protocol import Run, Visitor

ROOT = Path(__file__).resolve().parents[1]
PATIENCE = 300_000   # ms: ten browsers and the server on two cores are slow; a wait this long is not an error
ANSWER_WAIT = 90_000  # ms without an answer to a drawn rectangle: a person would draw it again
ATTEMPTS = 3
RELEASE_LINE = "[data-testid='stMarkdownContainer']:has-text('PRIVATE release')"
MAX_SESSIONS = 60     # the protocol client's bound on sessions at once
STEP_TIMEOUT = 120.0  # s a session waits for one step's run before it counts an error
ROW_DEADLINE = 900.0  # s a row may take in all; sessions still running then are stopped and counted as errors


def start_server(flags: list[str] = ()) -> tuple[subprocess.Popen, str]:
    """``python -m streamlit run app.py`` on a free loopback port (plus ``flags``); its URL once healthy."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.address", "127.0.0.1",
                             "--server.port", str(port), "--server.headless", "true", *flags], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    for _ in range(2400):
        try:
            urllib.request.urlopen(f"{url}/_stcore/health", timeout=1)
            return proc, url
        except OSError:
            time.sleep(0.025)
    os.killpg(proc.pid, signal.SIGTERM)
    raise RuntimeError("server did not start")


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
    from bench_app import ARGS, IFRAME, idle
    from playwright.sync_api import sync_playwright
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
    from bench_app import IFRAME, draw_to_answer, idle, query_number
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
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


def browser_row(url: str, n: int, rounds: int, pid: int) -> dict:
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


def print_browser(rows: list[dict], settle: int) -> None:
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


# ---- the protocol client's flow -------------------------------------------------------------------------------

STEPS = ("open", "upload", "epsilon", "draw", "release page", "return")
UPLOAD_EVERY = 3       # every third session uploads its own points
SAMPLE = "geonames"    # the default data set's name in the page's "Data ..." line
BOUNDS = "the world"   # an upload's public bounds, chosen in the page's own step (no widget beyond the choice)


def typed_epsilon(k: int) -> float:
    """Session k's epsilon: its own, so that any release shown to another session would be seen."""
    return round(0.31 + 0.07 * k, 2)


def own_points(k: int) -> tuple[str, bytes, int]:
    """Session k's upload: a CSV of its own size (so its page's row count names it) in a box over America."""
    import numpy as np
    n = 3000 + 97 * k
    rng = np.random.default_rng(1000 + k)
    xy = np.column_stack([rng.uniform(-100, -80, n), rng.uniform(30, 45, n)])
    body = "lon,lat\n" + "\n".join(f"{x:.5f},{y:.5f}" for x, y in xy)
    return f"class-points-{k:02d}.csv", body.encode(), n


def query_rect(k: int, upload: bool) -> tuple[float, float, float, float]:
    """A rectangle inside the session's data: over Europe on the sample, over the uploaded box otherwise."""
    if upload:
        return (-97.0 + 0.1 * k, 33.0, -88.0 + 0.1 * k, 41.0)
    return (-8.0 + 0.2 * k, 38.0, 18.0 + 0.2 * k, 55.0)


class Student:
    """One session's flow and what it saw: step times, errors, and the checks."""

    def __init__(self, base: str, k: int):
        self.k, self.base = k, base
        self.upload = k % UPLOAD_EVERY == UPLOAD_EVERY - 1
        self.times: dict[str, list[float]] = {s: [] for s in STEPS}
        self.to_map: list[float] = []            # open and return: to the map's element
        self.errors: list[str] = []
        self.isolated = True
        self.same: bool | None = None
        self.step = "connect"
        self.messages = self.megabytes = 0.0       # what the server sent this session

    def check(self, v: Visitor, run: Run, epsilon: float | None, data_name: str) -> None:
        """Errors on the page, and isolation: the page shows this session's own epsilon and data only."""
        if run.exceptions or v.page.errors():
            self.errors.append(f"{self.step}: " + "; ".join(run.exceptions or v.page.errors())[:200])
        line = v.page.text_with("PRIVATE release")
        data = v.page.text_with("rows read").replace("\\", "")     # the page escapes Markdown in names
        if epsilon is not None and f"epsilon = {epsilon:g} " not in line:
            self.isolated = False
            self.errors.append(f"{self.step}: the release shown is not at this session's epsilon {epsilon:g}: {line!r}")
        if data and not data.startswith(f"Data {data_name}:"):
            self.isolated = False
            self.errors.append(f"{self.step}: the data shown are not this session's: {data[:80]!r}")

    async def flow(self) -> None:
        v = Visitor(self.base, STEP_TIMEOUT)
        try:
            t0 = time.perf_counter()
            await v.open()
            self.step = "open"
            run = await v.rerun()
            self.to_map.append(time.perf_counter() - t0 - run.seconds + run.to_map)
            self.times["open"].append(time.perf_counter() - t0)
            self.check(v, run, 0.5, SAMPLE)
            name = SAMPLE
            if self.upload:
                self.step = "upload"
                name, body, n = own_points(self.k)
                t0 = time.perf_counter()
                await v.set("Data", "string_value", "upload a file", "radio")
                await v.upload("Points file", name, body)
                await v.set("Public bounds of the points", "string_value", BOUNDS, "radio")   # the bounds step
                run = await v.click("Use these bounds")
                self.times["upload"].append(time.perf_counter() - t0)
                self.check(v, run, 0.5, name)
                if f"{n:,} rows read" not in v.page.text_with("rows read"):
                    self.isolated = False
                    self.errors.append(f"upload: the page does not read this session's {n:,} rows")
            self.step = "epsilon"
            eps = typed_epsilon(self.k)
            t0 = time.perf_counter()
            await v.set("type epsilon", "bool_value", True, "checkbox")
            run = await v.set("epsilon", "double_value", eps, "number_input")
            self.times["epsilon"].append(time.perf_counter() - t0)
            self.check(v, run, eps, name)
            self.step = "draw"
            run = await v.draw(query_rect(self.k, self.upload))
            self.times["draw"].append(run.seconds)
            self.check(v, run, eps, name)
            left = (v.page.text_with("PRIVATE release"), v.page.metrics(), v.page.text_with("Query #"))
            if not left[1] or not left[2]:
                self.errors.append("draw: no answer to the rectangle on the page")
            self.step = "release page"
            run = await v.go("Open a release")
            self.times["release page"].append(run.seconds)
            if not v.page.text_with("Upload a release file"):
                self.errors.append("release page: not shown")
            self.step = "return"
            run = await v.go("Map: build, see, query")
            self.times["return"].append(run.seconds)
            self.to_map.append(run.to_map)
            self.check(v, run, eps, name)
            back = (v.page.text_with("PRIVATE release"), v.page.metrics(), v.page.text_with("Query #"))
            self.same = back == left and bool(left[0])
            if not self.same and os.environ.get("PSDVIZ_BENCH_DEBUG"):
                print("DIFF", self.k, left, back)
            self.step = "done"
        except Exception as exc:      # what the benchmark counts: the step that failed, named
            self.errors.append(f"{self.step}: {type(exc).__name__}: {str(exc)[:160]}")
        finally:
            self.messages, self.megabytes = v.received, v.received_bytes / 1e6
            try:
                await v.close()
            except Exception as exc:
                self.errors.append(f"close: {type(exc).__name__}: {exc}")


async def protocol_sessions(base: str, n: int) -> list[Student]:
    """N students started together; the row is stopped at :data:`ROW_DEADLINE` (unfinished: errors)."""
    students = [Student(base, k) for k in range(n)]
    tasks = [asyncio.create_task(s.flow()) for s in students]
    done, pending = await asyncio.wait(tasks, timeout=ROW_DEADLINE)
    for t in pending:
        t.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    for s, t in zip(students, tasks):
        if t in pending:
            s.errors.append(f"{s.step}: not done within the row's {ROW_DEADLINE:.0f} s")
    return students


def protocol_row(base: str, n: int, pid: int) -> dict:
    sampler = Sampler(pid)
    sampler.start()
    load0 = os.getloadavg()[0]
    cpu0 = cpu_seconds(pid)
    t0 = time.perf_counter()
    students = asyncio.run(protocol_sessions(base, n))
    seconds = time.perf_counter() - t0
    cpu = cpu_seconds(pid) - cpu0
    sampler.running = False
    steps = {s: [t for st in students for t in st.times[s]] for s in STEPS}
    return {"n": n, "seconds": seconds, "cpu": cpu, "peak_mb": sampler.peak, "load": (load0, os.getloadavg()[0]),
            "open_map": [st.to_map[0] for st in students if st.to_map],
            "return_map": [st.to_map[1] for st in students if len(st.to_map) > 1],
            "steps": steps, "errors": [e for st in students for e in st.errors],
            "isolated": sum(st.isolated and not st.errors for st in students),
            "uploads": sum(st.upload for st in students),
            "same": sum(bool(st.same) for st in students),
            "messages": statistics.mean(st.messages for st in students),
            "megabytes": statistics.mean(st.megabytes for st in students)}


def _mw(xs: list[float]) -> str:
    return f"{statistics.median(xs):.2f} / {max(xs):.2f}" if xs else "-"


def print_protocol(rows: list[dict]) -> None:
    print("| sessions at once | open-to-map median / worst (s) | ratio to one | errors | isolated (uploads) | "
          "same release on return | server CPU per student (s) | RSS peak (MB) | load before / after |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---|")
    one = statistics.median(rows[0]["open_map"]) if rows[0]["open_map"] else float("nan")
    for r in rows:
        med = statistics.median(r["open_map"]) if r["open_map"] else float("nan")
        print(f"| {r['n']} | {_mw(r['open_map'])} | {med / one:.1f}x | {len(r['errors'])} | {r['isolated']} / {r['n']} "
              f"({r['uploads']}) | {r['same']} / {r['n']} | {r['cpu'] / r['n']:.2f} | {r['peak_mb']:.0f} | "
              f"{r['load'][0]:.2f} / {r['load'][1]:.2f} |")
    for r in rows:
        parts = ", ".join(f"{s} {_mw(r['steps'][s])}" for s in STEPS if r["steps"][s])
        print(f"{r['n']} sessions: {r['seconds']:.1f} s in all, server CPU {r['cpu']:.1f} s; step median / worst (s): "
              f"{parts}; back on the map: to the map {_mw(r['return_map'])}; the server sent "
              f"{r['messages']:.0f} messages ({r['megabytes']:.1f} MB) to each session")
    for r in rows:
        for e in r["errors"][:8]:
            print(f"  {r['n']} sessions: {e}")


def settle_and_measure(pid: int, settle: int) -> tuple[list[tuple[int, float]], float]:
    """RSS every 30 s for ``settle`` seconds after the sessions closed, and at the end."""
    seen = []
    for t in range(30, settle + 1, 30):
        time.sleep(30)
        seen.append((t, rss_mb(pid)))
    time.sleep(settle % 30)
    return seen, rss_mb(pid)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--client", choices=("protocol", "browser"), default="protocol")
    ap.add_argument("--sessions", type=int, nargs="+", default=None,
                    help="sessions at once, one row each (default: 1 10 30 for the protocol client, 1 5 10 browsers)")
    ap.add_argument("--rounds", type=int, default=3, help="browser client: rounds per visitor")
    ap.add_argument("--settle", type=int, default=120)
    ap.add_argument("--server-flag", action="append", default=[], help="one more flag for streamlit run")
    a = ap.parse_args()
    sessions = a.sessions or ([1, 10, 30] if a.client == "protocol" else [1, 5, 10])
    if max(sessions) > MAX_SESSIONS:
        ap.error(f"at most {MAX_SESSIONS} sessions at once")
    flags = [f for arg in a.server_flag for f in arg.split("=", 1)]
    proc, url = start_server(flags)
    try:
        time.sleep(3)
        start_mb = rss_mb(proc.pid)
        row = protocol_row if a.client == "protocol" else (lambda u, n, pid: browser_row(u, n, a.rounds, pid))
        rows = [row(url, sessions[0], proc.pid)]
        time.sleep(a.settle)                 # the first sessions expire: the server idle, warm
        idle_mb = rss_mb(proc.pid)
        rows += [row(url, n, proc.pid) for n in sessions[1:]]
        settle, after_mb = settle_and_measure(proc.pid, a.settle)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
    print(f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}; client: {a.client}; server flags: {' '.join(flags) or 'none'}; "
          f"load average at the end {os.getloadavg()[0]:.2f}")
    print(f"Server RSS at start {start_mb:.0f} MB, idle (warm: {a.settle} s after the first row's sessions closed) "
          f"{idle_mb:.0f} MB, {after_mb:.0f} MB {a.settle} s after the last sessions closed "
          f"({after_mb / idle_mb - 1:+.0%} of idle); after they closed: "
          + ", ".join(f"{t} s {m:.0f} MB" for t, m in settle) + ".")
    (print_protocol if a.client == "protocol" else lambda r: print_browser(r, a.settle))(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
