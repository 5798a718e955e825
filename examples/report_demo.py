"""The analyses and the report, on a synthetic tournament series with known truth.

Fits the matchup model to 8 synthetic tournaments (40 players, 1200 matches),
and a second model to the first 7 to forecast the last out of sample; prints
the tables; saves the figures of ``docs/analysis.md`` into ``docs/img/``; and
writes the HTML report with its CSV tables.

    python examples/report_demo.py            # the docs figures (a few minutes on 2 cores)
    python examples/report_demo.py --quick    # a fast smoke run; figures to a temp folder
"""

from __future__ import annotations

import argparse
import tempfile
import warnings
from pathlib import Path

import pandas as pd

from skcodex import BayesianMatchupClassifier
from skcodex.analysis import (
    brier_decomposition,
    deck_ranking,
    matchup_table,
    most_played_decks,
    nash_weights,
    reliability_table,
    skill_table,
    skill_versus_decks,
)
from skcodex.datasets import make_matches
from skcodex.plotting import plot_matchups, plot_nash, plot_reliability, plot_skills, plot_spreads
from skcodex.report import HeldOut, write_report

DOCS_IMG = Path(__file__).resolve().parents[1] / "docs" / "img"


# %%
# The command line: ``--quick`` for a smoke run, ``--figures`` and ``--out`` for where
# the figures and the report go.
parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--quick", action="store_true", help="tiny fit, for a smoke run")
parser.add_argument("--figures", type=Path, help=f"figure folder ({DOCS_IMG})")
parser.add_argument("--out", type=Path, help="report folder (a temporary one)")
args = parser.parse_args()
draws, chains, nash_draws = (100, 2, 50) if args.quick else (1000, 4, 500)
figures = args.figures or (Path(tempfile.mkdtemp()) if args.quick else DOCS_IMG)
out = args.out or Path(tempfile.mkdtemp()) / "report"
figures.mkdir(parents=True, exist_ok=True)
pd.set_option("display.width", 120, "display.precision", 3)

# %%
# Eight synthetic tournaments with known truth; one model fitted to all of them, and one
# to the first seven, to forecast the last out of sample.
data = make_matches(n_players=40, n_matches=1200, n_tournaments=8, random_state=0)
X, y = data.X, data.y
last = (X["period"] == X["period"].iloc[-1]).to_numpy()


def fit(Xf, yf):
    clf = BayesianMatchupClassifier(draws=draws, tune=draws, chains=chains, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return clf.fit(Xf, yf)


clf = fit(X, y)
before = fit(X[~last], y[~last])
held_out = HeldOut(
    label="tournament T8",
    y=y[last],
    p_win=before.predict_proba(X[last])[:, 1],
    n_train=int((~last).sum()),
    problems=before.convergence_problems_,
)
print("Convergence problems:", clf.convergence_problems_ or "none")

# %%
# Player skills, best first; the crosses are the true skills.
skills = skill_table(clf, X, y=y)
print("Top players:\n", skills.head(8).round(2))
skills_figure = plot_skills(skills, truth=data.params["skill"])
skills_figure.savefig(figures / "analysis_skills.png", dpi=100)

# %%
# Matchups of the monocolour decks, and the ten most played decks ranked.
matchups = matchup_table(clf, "monocolour")
print("Monocolour matchups (first rows):\n", matchups.head(8))
ranked = deck_ranking(clf, most_played_decks(X, 10))
print("\nThe 10 most played decks, ranked:\n", ranked.round(3))
matchups_figure = plot_matchups(matchups)
matchups_figure.savefig(figures / "analysis_matchups.png", dpi=100)

# %%
# Which monocolour decks a careful player brings: the Nash weights.
nash = nash_weights(clf, "monocolour", n_draws=nash_draws)
print("Nash weights:\n", nash.round(3), "\nvalue:", nash.attrs["value"])
nash_figure = plot_nash(nash)
nash_figure.savefig(figures / "analysis_nash.png", dpi=100)

# %%
# Skill against decks: the spreads and the skill share.
spreads = skill_versus_decks(clf)
print("Skill versus decks:\n", spreads.round(3), "\n", spreads.attrs)
spreads_figure = plot_spreads(clf)
spreads_figure.savefig(figures / "analysis_spreads.png", dpi=100)

# %%
# Calibration, in sample and on the held-out tournament.
tables = {
    "in-sample": reliability_table(y, clf.predict_proba(X)[:, 1]),
    "held-out (T8)": reliability_table(held_out.y, held_out.p_win),
}
print("Brier, in-sample:\n", brier_decomposition(y, clf.predict_proba(X)[:, 1]).round(4))
print("Brier, held-out:\n", brier_decomposition(held_out.y, held_out.p_win).round(4))
reliability_figure = plot_reliability(tables)
reliability_figure.savefig(figures / "analysis_reliability.png", dpi=100)
print(f"Figures written to {figures}")

# %%
# The HTML report with its CSV tables.
page = write_report(
    clf,
    X,
    y,
    out,
    title="Synthetic Codex tournaments: skills and matchups",
    held_out=held_out,
    nash_draws=nash_draws,
    true_skills=data.params["skill"],
)
print(f"Report written to {page}")
