"""skcodex: who wins a two-player game, from the players, their decks and who moves first.

The public API is re-exported here and imported lazily, so ``import skcodex``
is fast and loads PyMC only when a Bayesian model is used.
"""

from skcodex._compat.lazy import lazy_exports

__version__ = "0.1.0"

_EXPORTS = {
    "BayesianMatchupClassifier": "skcodex._classifier",
    "Glicko2Classifier": "skcodex.ratings",
    "EloClassifier": "skcodex.ratings",
    "TournamentSplit": "skcodex.model_selection",
    "MatchupEncoder": "skcodex.preprocessing",
    "brier_score": "skcodex.metrics",
    "brier_skill_score": "skcodex.metrics",
    "brier_scorer": "skcodex.metrics",
    "load": "skcodex._format.persistence",
    "save": "skcodex._format.persistence",
    "register_savable": "skcodex._format.savable",
    "SEED_PRIORS": "skcodex._classifier",
}

__all__ = [*sorted(_EXPORTS), "__version__"]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
