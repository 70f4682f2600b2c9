"""Smoke checks of one user route in the virtual environment it runs in (called by .ci/check_routes).

core: the engine and the CLI with no extra; app: the same plus the app served headless and its map
page rendered; geo: the engine installed from its wheel with the geo extra (not editable), whose bundled
outlines answer `psdviz regions --regions us-counties` with no set-up script. Seconds, not the suite;
exits non-zero with the reason on the first failure.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def check(ok: bool, what: str) -> None:
    if not ok:
        sys.exit(f"route smoke: {what}")
    print(f"ok: {what}")


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "psdviz"), *args], capture_output=True, text=True, timeout=300)


def engine(tmp: Path) -> None:
    import numpy as np

    import psdviz as pv
    check(bool(pv.METHODS), "import psdviz")
    h = cli("--help")
    check(h.returncode == 0 and "build" in h.stdout, "psdviz --help")
    pts = np.random.default_rng(0).random((5000, 2))
    rel = pv.build(pts, pv.Domain(0, 0, 1, 1), method="auto", epsilon=1.0)
    path = rel.save(tmp / "release.parquet")
    back = pv.load_release(path)
    a = back.answer([[0.1, 0.1, 0.6, 0.5]])
    check(a.shape == (1,) and np.isfinite(a).all() and np.array_equal(a, rel.answer([[0.1, 0.1, 0.6, 0.5]])),
          "pv.build + save + load_release + answer")
    corners = np.sort(np.random.default_rng(1).random((50, 2, 2)), axis=1)
    work = np.column_stack([corners[:, 0, 0], corners[:, 0, 1], corners[:, 1, 0], corners[:, 1, 1]])
    for method in ("auto", "strategy"):
        wrel = pv.build(pts, pv.Domain(0, 0, 1, 1), method=method, epsilon=1.0, workload=work)
        check(np.isfinite(wrel.answer(work)).all() and wrel.ledger.total() <= 1.0 + 1e-12,
              f"pv.build(method={method!r}, workload=...) with no extra")
    csv = tmp / "points.csv"
    csv.write_text("lon,lat\n" + "\n".join(f"{x:.6f},{y:.6f}" for x, y in pts))
    b = cli("build", str(csv), "--lon", "lon", "--lat", "lat", "--domain", "0", "0", "1", "1",
            "--epsilon", "1", "--out", str(tmp / "cli.parquet"))
    check(b.returncode == 0 and (tmp / "cli.parquet").is_file(), f"psdviz build on a CSV file ({b.stderr[-300:]})")
    i = cli("info", str(tmp / "cli.parquet"))
    check(i.returncode == 0 and "epsilon" in i.stdout, "psdviz info")


def missing_extra(tmp: Path) -> None:
    """Without the geo extra, a region command says which extra to install, in one line, exit 2."""
    layer = tmp / "layer.geojson"
    layer.write_text('{"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {"id": "a"}, '
                     '"geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]]}}]}')
    r = cli("regions", str(tmp / "points.csv"), "--lon", "lon", "--lat", "lat", "--regions", str(layer),
            "--id", "id", "--out", str(tmp / "r.csv"))
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    check(r.returncode == 2 and len(lines) == 1 and "psdviz[geo]" in lines[0] and "Traceback" not in r.stderr,
          f"a missing extra is one line naming it ({r.stderr.strip()[-300:]})")


def layers(tmp: Path) -> None:
    """The wheel carries its outlines: counties and states from a release and as a region release, run in a
    folder outside the clone with the package imported from site-packages."""
    import psdviz
    where = Path(psdviz.__file__).resolve()
    check(not where.is_relative_to(ROOT), f"psdviz imported from the wheel ({where})")
    import numpy as np
    rng = np.random.default_rng(2)
    pts = np.column_stack([rng.uniform(-124, -68, 20_000), rng.uniform(26, 48, 20_000)])
    csv = tmp / "us.csv"
    csv.write_text("lon,lat\n" + "\n".join(f"{x:.5f},{y:.5f}" for x, y in pts))
    b = cli("build", str(csv), "--lon", "lon", "--lat", "lat", "--domain", "-125", "24", "-66", "50",
            "--epsilon", "1", "--out", str(tmp / "us.parquet"))
    check(b.returncode == 0, f"psdviz build on lon/lat points ({b.stderr[-300:]})")
    r = cli("regions", "--release", str(tmp / "us.parquet"), "--regions", "us-counties", "--out", str(tmp / "c.csv"))
    rows = (tmp / "c.csv").read_text().count("\n") - 1 if (tmp / "c.csv").is_file() else 0
    check(r.returncode == 0 and rows > 3000, f"psdviz regions --release FILE --regions us-counties ({rows} rows; "
          f"{r.stderr.strip()[-300:]})")
    s = cli("regions", str(csv), "--lon", "lon", "--lat", "lat", "--regions", "us-states", "--out",
            str(tmp / "s.csv"))
    check(s.returncode == 0 and (tmp / "s.csv").is_file(), f"psdviz regions POINTS --regions us-states "
          f"({s.stderr.strip()[-300:]})")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def app() -> None:
    port = free_port()
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                             "--server.port", str(port), "--server.address", "127.0.0.1"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        body, deadline = "", time.time() + 90
        while time.time() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=5) as resp:
                    body = resp.read().decode()
                    break
            except OSError:
                time.sleep(0.5)
        if proc.poll() is not None:
            sys.exit("route smoke: the app exited at start-up:\n" + proc.stdout.read()[-3000:])
        check(body.strip() == "ok", f"the app answers its health endpoint (got {body!r})")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as resp:
            check(resp.status == 200, "the app serves its page")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file(str(ROOT / "psdviz" / "ui" / "pages.py"), default_timeout=180)
    at.run()
    check(not at.exception, f"the map page renders without an exception ({at.exception})")
    check(any(m.label == "Cells" or "cells" in str(m.label).lower() for m in at.metric) or len(at.markdown) > 0,
          "the map page shows its release")


def main() -> None:
    route = sys.argv[1] if len(sys.argv) > 1 else "core"
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        os.chdir(tmp if route == "geo" else ROOT)
        engine(tmp)
        if route == "geo":
            layers(tmp)
        elif route == "core":
            missing_extra(tmp)
        else:
            app()


if __name__ == "__main__":
    main()
