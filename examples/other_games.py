"""Other games: a fighting game (characters alone) and a hero with two of five colours.

Draws both games with known truth (`make_game_matches`), fits the matchup
model from Python with a first-move effect, and prints how well it recovers
the truth and how its held-out forecasts compare with the true probabilities,
a one-hot logistic regression, Elo and Glicko-2. Then does the same fit from
the command line on a plain CSV, once with an open vocabulary (every name
seen is a character) and once against a catalogue file, and checks that the
report speaks of the game's own parts.

    python examples/other_games.py             # about two minutes on 2 cores
"""

from __future__ import annotations

import re
import tempfile
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from skcodex import (
    BayesianMatchupClassifier,
    EloClassifier,
    Glicko2Classifier,
    MatchupEncoder,
    brier_score,
)
from skcodex.analysis import default_decks, matchup_draws, matchup_table
from skcodex.cli import main as skcodex_command
from skcodex.datasets import make_game_matches

HEROES = ["Tala", "Zane", "Oku", "Mira"]
COLOURS = ["Red", "Blue", "Green", "Black", "White"]


def recovery(clf, data) -> str:
    """Correlations of skills and deck cells with the truth, and the first-move effect."""
    post = clf.idata_.posterior
    skill = post["skill"].mean(("chain", "draw")).to_series()
    r_skill = np.corrcoef(skill, data.params["skill"][skill.index])[0, 1]
    decks = default_decks(clf, 10)
    p = matchup_draws(clf, decks)
    fitted = np.log(p / (1 - p)).mean(axis=0)
    par = data.params
    truth = np.array(
        [
            [
                par["first_move"]
                + par["stst"].loc[a.starter, b.starter]
                + par["stsp"].loc[a.starter, list(b.specs)].sum()
                + par["spst"].loc[list(a.specs), b.starter].sum()
                + par["spsp"].loc[list(a.specs), list(b.specs)].to_numpy().sum()
                for b in decks
            ]
            for a in decks
        ]
    )
    r_cells = np.corrcoef(fitted.ravel(), truth.ravel())[0, 1]
    w = np.asarray(post["first_move"]).ravel()
    lo, hi = np.quantile(w, [0.05, 0.95])
    return (
        f"skills r = {r_skill:.2f}; deck cells r = {r_cells:.2f} ({len(decks)}x{len(decks)}); "
        f"first-move effect {w.mean():+.2f} [{lo:+.2f}, {hi:+.2f}] (true {par['first_move']:+.2f})"
    )


def compare(name: str, data) -> BayesianMatchupClassifier:
    X, y, cat = data.X, data.y, data.catalogue
    test = X["period"].isin(X["period"].unique()[-2:]).to_numpy()
    models = {
        "Bayesian matchup": BayesianMatchupClassifier(
            draws=300, tune=300, chains=2, first_move=True, catalogue=cat, random_state=0
        ),
        "one-hot logistic": make_pipeline(MatchupEncoder(cat), LogisticRegression()),
        "Elo": EloClassifier(first_mover_advantage="auto"),
        "Glicko-2": Glicko2Classifier(),
    }
    print(f"\n{name}: {(~test).sum()} training, {test.sum()} held-out matches")
    print(f"  held-out Brier: truth {brier_score(y[test], data.p_win[test]):.4f}", end="")
    for label, model in models.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X[~test], y[~test])
        print(f", {label} {brier_score(y[test], model.predict_proba(X[test])[:, 1]):.4f}", end="")
    clf = models["Bayesian matchup"]
    print(f"\n  recovery: {recovery(clf, data)}")
    return clf


# %%
# Two games drawn with known truth: a fighting game whose deck is a character alone, and
# a hero game whose deck is a hero plus two of five colours.
fighting = make_game_matches(
    n_players=40, n_matches=1500, n_tournaments=10, starters=10, first_move=0.3, random_state=1
)
heroes = make_game_matches(
    n_players=40,
    n_matches=1500,
    n_tournaments=10,
    starters=HEROES,
    components=COLOURS,
    specs_per_deck=2,
    first_move=0.2,
    decks_per_player=3,
    random_state=2,
)

# %%
# The matchup model with a first-move effect against the truth, a one-hot logistic
# regression, Elo and Glicko-2, on the last two tournaments of each game.
compare("Fighting game (a deck is a character)", fighting)
clf = compare("Hero + two of five colours", heroes)

# %%
# The hero game's matchups; the labels of the table are decks one can pass back in.
table = matchup_table(clf, n_draws=200)
print("Most played hero decks, P(player 1 wins) at equal skill:")
print(table.head(4)[["deck1", "deck2", "mean", "lower", "upper"]].round(2).to_string())
print(matchup_table(clf, [table["deck1"].iloc[0]], n_draws=200)[["deck2", "mean"]].head(2))

# %%
# The same fits from the command line, on plain CSV files: the fighting game with an open
# vocabulary (every name seen is a character), the hero game against a catalogue file.
# The reports speak of the game's own parts, never of Codex.
folder = Path(tempfile.mkdtemp())
fighting.X.assign(y=fighting.y).to_csv(folder / "fight.csv", index=False)
heroes.X.assign(y=heroes.y).to_csv(folder / "heroes.csv", index=False)
rows = ["kind,name", *(f"starter,{h}" for h in HEROES), *(f"component,{c}" for c in COLOURS)]
(folder / "heroes_catalogue.csv").write_text("\n".join([*rows, "specs_per_deck,2"]) + "\n")
fast = ["--draws", "300", "--chains", "2", "--no-progress", "--no-holdout"]
catalogue = str(folder / "heroes_catalogue.csv")
runs = {
    "fight": ["fit", str(folder / "fight.csv"), "--first-move"],
    "heroes": ["fit", str(folder / "heroes.csv"), "--catalogue", catalogue, "--first-move"],
}
for label, argv in runs.items():
    print(f"$ skcodex {' '.join(argv)} ...")
    assert skcodex_command([*argv, "--out", str(folder / label), *fast]) == 0
    page = (folder / label / "report.html").read_text()
    text = re.sub(r"base64,[A-Za-z0-9+/=]+", "", page)
    codex_only = [p for p in ("Codex", "Mono", "three specs", "16 component") if p in text]
    assert not codex_only, codex_only
    sentence = re.search(r"A deck is[^.]*[.]", text).group(0)
    print(f"  report: {sentence}")

# %%
# One forecast from the saved hero model.
print(f"$ skcodex predict {folder / 'heroes'} ...")
players = ["--p1", "player01", "--p2", "player02"]
decks = ["--deck1", "Tala/Red/Blue", "--deck2", "Oku/Green/Black"]
skcodex_command(["predict", str(folder / "heroes"), *players, *decks])
