"""docs/tutorial.md runs as written: its python and bash blocks, in order, in an empty folder."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

TUTORIAL = Path(__file__).resolve().parents[1] / "docs" / "tutorial.md"


def test_the_tutorial_runs_as_written(tmp_path):
    blocks = re.findall(r"```(python|bash)\n(.*?)```", TUTORIAL.read_text(), re.S)
    assert [k for k, _ in blocks].count("bash") >= 4 and [k for k, _ in blocks].count("python") >= 2
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for kind, code in blocks:
        cmd = [sys.executable, "-c", code] if kind == "python" else ["bash", "-e", "-c", code]
        done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{kind} block failed:\n{code}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    assert (tmp_path / "statement.md").read_text().strip()
    assert (tmp_path / "county_counts.csv").is_file()
