"""Figures the documentation states, recomputed from the code and the results they cite.

- docs/analysis.md quotes the "skill versus decks" figures that
  ``benchmarks/analysis_figures.py`` wrote to its JSON; the prior probabilities are
  recomputed here.
- docs/code-layout.md lists the files of skcodex a fit and a prediction run code in;
  a small fit and prediction are traced here and their files compared with the lists.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
import warnings
from pathlib import Path

import pytest

import skcodex

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "analysis_figures.py"


def _flat(text: str) -> str:
    return " ".join(text.split())


def _script():
    spec = importlib.util.spec_from_file_location("analysis_figures", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_analysis_page_states_the_default_models_figures():
    script = _script()
    results = json.loads(script.RESULTS.read_text())
    assert results["settings"].startswith("BayesianMatchupClassifier(random_state=0)")
    page = _flat((ROOT / "docs" / "analysis.md").read_text())
    missing = [p for p in script.page_phrases(results) if _flat(p) not in page]
    assert not missing, f"docs/analysis.md does not state {missing}"


def test_analysis_figures_prior_probabilities_are_recomputed_exactly():
    script = _script()
    results = json.loads(script.RESULTS.read_text())
    assert script.prior_figures() == pytest.approx(results["prior"], abs=1e-12)


def test_page_phrases_follow_the_results():
    """A changed figure changes the phrase the page must hold."""
    script = _script()
    results = json.loads(script.RESULTS.read_text())
    results["real"]["p_skill_matters_more"] = 0.5
    assert "P(skill matters more) = 0.50" in " ".join(script.page_phrases(results))
    assert script.probability(0.99951) == "0.9995"
    assert script.probability(0.00049) == "0.0005"
    assert script.probability(0.634) == "0.63"


# -- the files a fit and a prediction cross ------------------------------------------------


def _listed(what: str) -> set[str]:
    page = _flat((ROOT / "docs" / "code-layout.md").read_text())
    found = re.search(rf"`{what}` runs code in these (\d+) files of skcodex: (.+?) \(", page)
    assert found, f"docs/code-layout.md lists no files for {what}"
    files = set(re.findall(r"`([\w/]+\.py)`", found[2]))
    assert len(files) == int(found[1]), f"the count for {what} is not the list's length"
    return files


def _crossed(call) -> set[str]:
    """The skcodex source files (relative to the package) a call runs code in."""
    package = Path(skcodex.__file__).resolve().parent
    prefix = str(package) + "/"
    seen: set[str] = set()

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(prefix):
            seen.add(frame.f_code.co_filename)

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return {Path(f).relative_to(package).as_posix() for f in seen}


@pytest.mark.slow
def test_code_layout_lists_the_files_fit_and_predict_proba_run():
    pytest.importorskip("nutpie")
    from skcodex import BayesianMatchupClassifier
    from skcodex._matchup.compile_cache import clear_compiled
    from skcodex.datasets import make_matches

    data = make_matches(n_players=8, n_matches=60, n_tournaments=2, random_state=0)
    clf = BayesianMatchupClassifier(draws=20, tune=20, chains=1, random_state=0)
    # the page lists a process's first fit, which builds the model (the compiled model
    # may come from the disk cache); later fits of the same layout reuse it in memory
    clear_compiled()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = _crossed(lambda: clf.fit(data.X, data.y))
        predict = _crossed(lambda: clf.predict_proba(data.X))
    # the deck reader runs in a process's first fit only when no earlier fit read these
    # decks' text (a later one finds them read); the page lists a first fit's files
    reread = {"codex/_notation.py", "codex/_deck.py"}
    assert fit <= _listed("fit") and _listed("fit") - fit <= reread
    assert _listed("predict_proba") == predict
