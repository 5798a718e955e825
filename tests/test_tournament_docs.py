"""The tournament pages state the figures of the benchmark results they cite.

docs/tournaments.md holds the real-data table that
``benchmarks/tournament_forecasts.py`` prints from its JSON, and its means;
docs/speed.md the timings of ``benchmarks/tournament_speed.py``.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


def _flat(text: str) -> str:
    return " ".join(text.split())


def _forecasts_script():
    path = ROOT / "benchmarks" / "tournament_forecasts.py"
    spec = importlib.util.spec_from_file_location("tournament_forecasts", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_real_data_table_is_the_benchmarks():
    results = json.loads((RESULTS / "tournament_forecasts.json").read_text())
    page = (ROOT / "docs" / "tournaments.md").read_text()
    table = _forecasts_script().markdown_table(results["tournaments"], results["mean"])
    assert table in page
    assert len(results["tournaments"]) == 17 and "Over these 17 tournaments" in page
    mean = results["mean"]
    flat = _flat(page)
    for phrase in (
        f"mean winner log score ({mean['skcodex']['log_score']:.2f}) is better than "
        f"Elo's ({mean['Elo']['log_score']:.2f}) and the uniform forecast's "
        f"({mean['uniform']['log_score']:.2f})",
        f"({mean['skcodex']['rank_correlation']:.2f} against "
        f"{mean['Elo']['rank_correlation']:.2f})",
        f"about {results['seconds'] / 60:.1f} minutes",
    ):
        assert phrase in flat, phrase
    # the page's claim that the model's mean log score beats both holds in the results
    assert mean["skcodex"]["log_score"] > max(
        mean["Elo"]["log_score"], mean["uniform"]["log_score"]
    )


def test_second_seed_means_are_the_benchmarks():
    mean = json.loads((RESULTS / "tournament_forecasts_seed1.json").read_text())["mean"]
    phrase = (
        f"log score skcodex {mean['skcodex']['log_score']:.2f}, "
        f"Elo {mean['Elo']['log_score']:.2f}, uniform {mean['uniform']['log_score']:.2f}; "
        "rank correlation skcodex "
        f"{mean['skcodex']['rank_correlation']:.2f}, Elo {mean['Elo']['rank_correlation']:.2f}"
    )
    assert phrase in _flat((ROOT / "docs" / "tournaments.md").read_text())


def test_speed_page_states_the_tournament_timings():
    results = json.loads((RESULTS / "tournament_speed.json").read_text())
    page = (ROOT / "docs" / "speed.md").read_text()
    for step, wall in results["median_seconds"].items():
        cpu = results["median_cpu_seconds"][step]
        assert f"| {step} | {wall:.2f} | {cpu:.2f} |" in page, step
    whole = results["median_seconds"]["simulate_tournament with the model"]
    flat = _flat(page)
    assert f"takes {whole:.2f} s of wall time" in flat
    assert whole <= 2.0  # the goal the page says it meets
    assert f"load average {results['machine']['load_average_after'][0]:.1f}" in flat
    assert f"{results['simulations']:,} simulated tournaments of {results['entrants']}" in flat
    assert f"{results['posterior_draws']:,} posterior draws" in flat
