"""The scripts in examples/ run from start to finish, and the gallery runs them cell by cell."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.py"))


@pytest.mark.slow
@pytest.mark.parametrize("script", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(script, tmp_path):
    env = {**os.environ, "MPLBACKEND": "Agg"}
    # report_demo.py writes the docs' figures into docs/img unless told where: here, the
    # temporary folder, so that a test run leaves the checkout as it was
    args = ["--figures", str(tmp_path)] if script.name == "report_demo.py" else []
    result = subprocess.run(
        [sys.executable, str(script), *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-3000:]


# -- the gallery's runner: scripts cut into cells at "# %%" --------------------------------

ROOT = Path(__file__).resolve().parents[1]


def _runner():
    spec = importlib.util.spec_from_file_location("run_example", ROOT / "tools" / "run_example.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("run_example", module)  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


def test_a_script_is_cut_into_cells_at_markers():
    source = (
        '"""Doc.\n\nMore.\n"""\n\nimport os\n\n# %%\n# First text\n# more\n\nx = 1\n\n# %%\ny = 2\n'
    )
    cells = _runner().split_cells(source)
    assert [(c.text, c.code.strip(), c.first_line) for c in cells] == [
        ("", "import os", 5),
        ("First text\nmore\n", "x = 1", 11),
        ("", "y = 2", 15),
    ]
    assert source.splitlines()[11 - 1 + 1] == "x = 1"  # the code keeps its line numbers


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_every_example_interleaves_text_and_code(script):
    cells = _runner().split_cells(script.read_text())
    assert len(cells) >= 4
    assert all(c.text.strip() and c.code.strip() for c in cells[1:]), script.name


def test_cells_run_in_order_keeping_their_output_and_figures(tmp_path):
    script = tmp_path / "demo.py"
    script.write_text(
        '"""A demo."""\n\nimport matplotlib.pyplot as plt\n\n'
        "# %%\n# Draw.\nx = 2\nplt.plot([1, x])\nprint('first', x)\n"
        "from matplotlib.figure import Figure\nFigure().savefig('saved.png')\n\n"
        "# %%\n# Fail on line 16.\nprint('second')\nraise ValueError('here')\n"
    )
    out = tmp_path / "out"
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "run_example.py"), str(script), str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "MPLBACKEND": "Agg"},
    )
    assert result.returncode == 1
    run = json.loads((out / "run.json").read_text())
    first, second = run["cells"][1:]
    assert first["output"] == "first 2\n"
    assert first["figures"] == ["saved.png", "cell-2-figure-1.png"]
    assert (out / "cell-2-figure-1.png").stat().st_size > 0
    assert second["output"].startswith("second\n")
    assert 'demo.py", line 16' in second["output"] and "ValueError: here" in second["output"]
    assert second["figures"] == []


def test_the_quick_gallery_asks_only_for_quick_modes_the_scripts_have(monkeypatch):
    pytest.importorskip("mkdocs")
    from mkdocs.exceptions import PluginError

    monkeypatch.syspath_prepend(str(ROOT / "tools"))
    import docs_hooks

    for name, args in docs_hooks.GALLERY_QUICK_ARGS.items():
        source = (ROOT / "examples" / name).read_text()
        assert all(f'add_argument("{a}"' in source for a in args), name
    for mode, quick in (("", False), ("full", False), ("quick", True)):
        monkeypatch.setenv("SKCODEX_GALLERY", mode)
        assert docs_hooks.quick_gallery() is quick
    monkeypatch.setenv("SKCODEX_GALLERY", "fast")
    with pytest.raises(PluginError, match="SKCODEX_GALLERY must be 'quick' or 'full'"):
        docs_hooks.quick_gallery()
