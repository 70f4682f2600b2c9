"""benchmarks/reproduction.py: concatenation order, generated header, link rebasing."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("reproduction", ROOT / "benchmarks" / "reproduction.py")
reproduction = importlib.util.module_from_spec(spec)
spec.loader.exec_module(reproduction)


def test_assemble_sorted_with_header_and_rebased_links(tmp_path):
    sec = tmp_path / "reproduction"
    sec.mkdir()
    (sec / "b.md").write_text("## B\n[fig](b_fig.html) [web](https://x.org/a) [top](#b)\n")
    (sec / "a.md").write_text("## A\n![img](/abs/p.png)\n")
    (sec / "a_fig.json").write_text("{}")
    out = tmp_path / "reproduction.md"
    assert reproduction.assemble(sec, out) == 2
    text = out.read_text()
    assert text.startswith("# Reproductions") and "do not edit by hand" in text
    assert text.index("## A") < text.index("## B")
    assert "[fig](reproduction/b_fig.html)" in text
    assert "[web](https://x.org/a)" in text and "[top](#b)" in text and "](/abs/p.png)" in text
