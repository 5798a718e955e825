"""MkDocs hooks: an offline math renderer, the gallery of examples and the API reference.

API reference
    Generated from the package's public names by ``tools/api_pages.py``: a page
    per public namespace, each name of its ``__all__`` documented once.

MathJax
    The site renders its formulas with MathJax 3, taken from the
    ``django-static-mathjax`` package on PyPI (a copy of the MathJax release,
    installed by the ``docs`` extra) and copied into the built site under
    ``vendor/mathjax/``: the pages load nothing from other hosts.

Gallery
    Every script in ``examples/`` is run at build time (``tools/run_example.py``),
    cell by cell (cells start at ``# %%`` lines, as in sphinx-gallery), and gets
    a page under ``gallery/`` with its description and then, cell by cell, the
    cell's text, its code, what it printed and the figures it drew. Results are
    kept in a cache folder (``.gallery-cache/`` beside ``mkdocs.yml``, or
    ``$SKCODEX_GALLERY_CACHE``) keyed by the script, its arguments, the runner
    and the package's source, so a rebuild
    reruns only what changed. A script that fails fails the build. With
    ``SKCODEX_GALLERY=quick`` in the environment, scripts that have a quick
    mode run in it (``GALLERY_QUICK_ARGS``: small draws), and their pages say
    so: a build for the tests of the site, a third less work than the full
    gallery (docs/testing.md). Each run prints its name and then its time.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from mkdocs.exceptions import PluginError

sys.path.insert(0, str(Path(__file__).resolve().parent))
import api_pages
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"

#: Command-line arguments each example is run with for the gallery (default: none).
#: ``report_demo.py`` writes its figures into its working folder instead of docs/img.
GALLERY_ARGS = {"report_demo.py": ["--figures", ".", "--out", "report"]}

#: The arguments added with ``SKCODEX_GALLERY=quick``: each script's quick mode, if it has one.
GALLERY_QUICK_ARGS = {"report_demo.py": ["--quick"]}

#: The MathJax files the site needs: the TeX-to-HTML bundle and what it loads.
MATHJAX_PARTS = ("tex-chtml.js", "output/chtml", "input/tex/extensions", "ui", "a11y", "adaptors")


# -- MathJax -------------------------------------------------------------------------------


def _mathjax_root() -> Path:
    try:
        import mathjax  # the django-static-mathjax distribution
    except ImportError:
        raise PluginError(
            "the docs need MathJax from the 'django-static-mathjax' package: "
            "pip install -e '.[docs]'"
        ) from None
    root = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
    if not (root / "tex-chtml.js").is_file():
        raise PluginError(f"no MathJax bundle at {root}")
    return root


def _mathjax_files(config) -> list[File]:
    root = _mathjax_root()
    out = []
    for part in MATHJAX_PARTS:
        base = root / part
        paths = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
        for path in paths:
            rel = path.relative_to(root).as_posix()
            out.append(File.generated(config, f"vendor/mathjax/{rel}", abs_src_path=str(path)))
    return out


# -- gallery -------------------------------------------------------------------------------


def _source_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted((ROOT / "skcodex").rglob("*.py")):
        digest.update(path.relative_to(ROOT).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _cache_root() -> Path:
    return Path(os.environ.get("SKCODEX_GALLERY_CACHE", ROOT / ".gallery-cache"))


def _run_example(script: Path, args: list[str], package: str) -> Path:
    runner = (ROOT / "tools" / "run_example.py").read_bytes()
    key = hashlib.sha256(
        script.read_bytes() + json.dumps(args).encode() + package.encode() + runner
    ).hexdigest()[:20]
    folder = _cache_root() / f"{script.stem}-{key}"
    if (folder / "run.json").is_file() and json.loads((folder / "run.json").read_text())[
        "status"
    ] == 0:
        return folder
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    print(f"gallery: running {script.name} {' '.join(args)}", file=sys.stderr, flush=True)
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "run_example.py"), str(script), str(folder), *args],
        cwd=ROOT,
        env={**os.environ, "MPLBACKEND": "Agg", "PYTHONWARNINGS": "ignore"},
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if result.returncode != 0:
        raise PluginError(
            f"example {script.name} failed:\n{(result.stdout + result.stderr)[-3000:]}"
        )
    seconds = time.perf_counter() - start
    print(f"gallery: {script.name} ran in {seconds:.0f} s", file=sys.stderr, flush=True)
    return folder


def _docstring(script: Path) -> tuple[str, str]:
    import ast

    doc = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8"))) or script.stem
    title, _, rest = doc.partition("\n")
    return title.strip().rstrip("."), rest.strip()


def _page(script: Path, args: list[str], folder: Path) -> str:
    """The gallery page: the script's description, then each cell's text, code, output, figures."""
    title, rest = _docstring(script)
    run = json.loads((folder / "run.json").read_text())
    command = " ".join(["python", f"examples/{script.name}", *args])
    parts = [
        f"# {title}",
        "",
        "<!-- generated by tools/docs_hooks.py from the example script -->",
        "",
        rest.replace("\n    ", "\n").strip() and "```text\n" + rest + "\n```",
        "",
        f"Run for this page as `{command}` (working folder: a scratch folder), in "
        f"{run['seconds']:.0f} s when the docs were built. Each part of the script is "
        "followed by what it printed and the figures it drew."
        + (
            " This build ran the script's quick mode (small draws, `SKCODEX_GALLERY=quick`): "
            "its figures are those of a short fit."
            if "--quick" in args
            else ""
        ),
        "",
    ]
    for cell in run["cells"]:
        if cell["text"].strip():
            parts += [cell["text"].strip(), ""]
        if cell["code"].strip():
            parts += ["```python", cell["code"].strip("\n"), "```", ""]
        output = cell["output"].rstrip().replace(str(folder.resolve()), "<scratch folder>")
        if output:
            parts += ["Output:", "", "```text", output.replace("```", "` ` `"), "```", ""]
        for name in cell["figures"]:
            alt = html.escape(f"{script.stem}: {Path(name).stem}")
            parts += [f"![{alt}]({script.stem}/{name})", ""]
    return "\n".join(parts)


def quick_gallery() -> bool:
    """Whether ``SKCODEX_GALLERY=quick`` asks for the scripts' quick modes (see the module)."""
    mode = os.environ.get("SKCODEX_GALLERY", "")
    if mode not in ("", "full", "quick"):
        raise PluginError(f"SKCODEX_GALLERY must be 'quick' or 'full' (the default), got {mode!r}")
    return mode == "quick"


def _gallery_files(config) -> list[File]:
    package = _source_digest()
    files, index = (
        [],
        [
            "# Examples",
            "",
            "Each example script of `examples/`, run when the documentation was built: "
            "each part of its source followed by what it printed and the figures it drew.",
            "",
        ],
    )
    quick = quick_gallery()
    for script in sorted(EXAMPLES.glob("*.py")):
        args = GALLERY_ARGS.get(script.name, []) + (
            GALLERY_QUICK_ARGS.get(script.name, []) if quick else []
        )
        folder = _run_example(script, args, package)
        run = json.loads((folder / "run.json").read_text())
        for cell in run["cells"]:
            for name in cell["figures"]:
                files.append(
                    File.generated(
                        config, f"gallery/{script.stem}/{name}", abs_src_path=str(folder / name)
                    )
                )
        files.append(
            File.generated(config, f"gallery/{script.stem}.md", content=_page(script, args, folder))
        )
        title, _ = _docstring(script)
        index.append(f"- [{title}]({script.stem}.md) (`examples/{script.name}`)")
    files.append(File.generated(config, "gallery/index.md", content="\n".join(index) + "\n"))
    return files


# -- the hook ------------------------------------------------------------------------------


# -- API reference -------------------------------------------------------------------------


API_SECTION = "API reference"


def on_config(config):
    """Fill the navigation's API section with the generated pages (see ``tools/api_pages.py``)."""
    for i, entry in enumerate(config["nav"]):
        if isinstance(entry, dict) and API_SECTION in entry:
            config["nav"][i] = {API_SECTION: api_pages.nav()}
            return config
    raise PluginError(f"mkdocs.yml's nav has no {API_SECTION!r} entry for the generated pages")


def _api_files(config) -> list[File]:
    return [
        File.generated(config, path, content=text) for path, text in api_pages.api_pages().items()
    ]


def on_files(files: Files, config) -> Files:
    """Add the MathJax files, the gallery pages and the API reference to the site."""
    for f in [*_mathjax_files(config), *_gallery_files(config), *_api_files(config)]:
        files.append(f)
    return files
