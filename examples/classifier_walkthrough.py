"""Fit, predict, a pipeline, time-ordered cross-validation and a grid search over priors.

The same code as docs/classifier.md, on a small synthetic tournament series with
short chains so that it runs in a minute or two. Run: python examples/classifier_walkthrough.py
"""

import warnings

from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, TimeSeriesSplit, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from skcodex import BayesianMatchupClassifier, TournamentSplit, brier_score, brier_scorer
from skcodex.datasets import make_matches

# %%
# Short chains keep the example quick; the defaults (4 chains x 1000 draws) are for real use.
warnings.simplefilter("ignore", ConvergenceWarning)
QUICK = {"draws": 200, "tune": 200, "chains": 2, "random_state": 0}

# %%
# A synthetic tournament series with known truth.
data = make_matches(n_players=24, n_matches=480, n_tournaments=6, random_state=1)
X, y = data.X, data.y
train, test = X["period"] != "T6", X["period"] == "T6"

# %%
# Fit and predict: column 1 of predict_proba is P(player 1 wins).
clf = BayesianMatchupClassifier(**QUICK).fit(X[train], y[train])
p1 = clf.predict_proba(X[test])[:, 1]
print(f"held-out Brier {brier_score(y[test], p1):.3f} (coin flip 0.250)")
print(f"true probabilities {brier_score(y[test], data.p_win[test.to_numpy()]):.3f}")

# %%
# Per-draw probabilities give intervals for any single match.
draws = clf.predict_proba_draws(X[test].head(1))
low, high = (float(q) for q in (draws.min(), draws.max()))
print(f"first held-out match: P(player 1 wins) {p1[0]:.2f}, draws range {low:.2f}-{high:.2f}")

# %%
# A pipeline: any step that passes the match table through works.
pipe = make_pipeline(FunctionTransformer(lambda table: table.copy()), clf)
print("pipeline score", pipe.fit(X[train], y[train]).score(X[test], y[test]))

# %%
# Time-ordered cross-validation with the Brier scorer (greater is better: it is negated).
scores = cross_val_score(
    BayesianMatchupClassifier(**QUICK), X, y, cv=TimeSeriesSplit(3), scoring=brier_scorer
)
print("TimeSeriesSplit Brier per fold", (-scores).round(3))

# %%
# Forward-chaining by tournament.
scores = cross_val_score(
    BayesianMatchupClassifier(**QUICK), X, y, cv=TournamentSplit(n_splits=2), scoring=brier_scorer
)
print("TournamentSplit Brier per tournament", (-scores).round(3))

# %%
# A small grid search over the prior on the spec-vs-spec spread.
search = GridSearchCV(
    BayesianMatchupClassifier(**QUICK),
    {"log_sd_spsp_loc": [-1.5, 0.0]},
    cv=TournamentSplit(n_splits=2),
    scoring=brier_scorer,
).fit(X, y)
print("best prior", search.best_params_, f"Brier {-search.best_score_:.3f}")
