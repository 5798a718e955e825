"""Rating systems as scikit-learn classifiers of match outcomes: Glicko-2 and Elo.

Both take the same match table and outcomes as every skcodex classifier,
ignore the decks, replay the matches in time order in ``fit`` and predict
from the ratings at the end of ``fit``.
"""

from skcodex.ratings._elo import EloClassifier
from skcodex.ratings._glicko2 import Glicko2Classifier, glicko2_update

__all__ = ["EloClassifier", "Glicko2Classifier", "glicko2_update"]
