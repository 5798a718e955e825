"""MatchupEncoder: the model's design as a matrix, for any scikit-learn classifier."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from skcodex._compat.scikit_learn import (
    dense_output_requested,
    fit_context,
    validate_parameter_constraints,
)
from skcodex._format.persistence import PersistenceMixin
from skcodex._matchup.layout import Layout
from skcodex._matchup.never_seen import grown_layout, old_positions
from skcodex.codex import Catalogue, PlainCatalogue
from skcodex.data import Vocabulary, encode
from skcodex.data._catalogues import checked_with_catalogue

__all__ = [
    "MatchupEncoder",
]


class MatchupEncoder(PersistenceMixin, TransformerMixin, BaseEstimator):
    """Encode a match table as the Bayesian model's design: players plus deck components.

    Each row has +1 in player 1's skill column, -1 in player 2's, and a 1 in
    the column of each of its ``1 + 2k + k^2`` ordered deck-component effects
    for decks of k specs (in Codex, k = 3: starter vs starter, 3 starter vs
    spec, 3 spec vs starter, 9 spec vs spec; in a game of characters alone,
    k = 0: the character-vs-character cell). A logistic regression on this
    matrix is the maximum-likelihood (or, with an L2 penalty, the MAP)
    counterpart of `BayesianMatchupClassifier`; its intercept plays the part
    of a first-move effect. Levels not seen in fit get no column (their
    effect is taken as zero).

    Parameters
    ----------
    catalogue : Catalogue, PlainCatalogue or None, default None
        What deck strings are read against (None: base Codex).
    sparse_output : bool, default True
        Return a SciPy CSR matrix; False gives a dense NumPy array. Under
        ``set_output(transform="pandas")`` the output is always dense (a
        DataFrame with the `get_feature_names_out` columns).

    Attributes
    ----------
    vocabulary_ : skcodex.data.Vocabulary
        Players, starters and specs seen in fit.
    layout_ : Layout
        Where each column of the design sits: the players, then the deck effects.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from skcodex.datasets import make_matches
    >>> from skcodex.preprocessing import MatchupEncoder
    >>> data = make_matches(n_players=10, n_matches=200, random_state=0)
    >>> model = make_pipeline(MatchupEncoder(), LogisticRegression(C=1.0))
    >>> model.fit(data.X, data.y).predict_proba(data.X[:1]).shape
    (1, 2)
    """

    #: The fitted attributes a saved file holds (see `skcodex._format.persistence`).
    _persisted_state: ClassVar[tuple[str, ...]] = ("vocabulary_", "layout_")

    _parameter_constraints: ClassVar[dict] = {
        "catalogue": [Catalogue, PlainCatalogue, None],
        "sparse_output": ["boolean"],
    }

    def __init__(
        self, catalogue: Catalogue | PlainCatalogue | None = None, *, sparse_output: bool = True
    ):
        self.catalogue = catalogue
        self.sparse_output = sparse_output

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: pd.DataFrame, y: Any = None) -> MatchupEncoder:
        """Learn the players, starters and specs of the training table.

        Parameters
        ----------
        X : pandas.DataFrame
            The match table: ``player1``, ``player2``, ``deck1``, ``deck2``.
        y : None
            Ignored; accepted for scikit-learn's pipelines.

        Returns
        -------
        self
            The fitted encoder.
        """
        table = checked_with_catalogue(X, self.catalogue)[0]
        self.vocabulary_ = Vocabulary.from_table(table)
        self.layout_ = Layout(*self.vocabulary_.sizes, self.vocabulary_.specs_per_deck)
        return self

    def transform(self, X: pd.DataFrame) -> sp.csr_matrix | np.ndarray:
        """Encode a match table as the model's design matrix.

        Parameters
        ----------
        X : pandas.DataFrame
            A match table with the columns of the one passed to `fit`; levels
            never seen in fit get no column.

        Returns
        -------
        scipy.sparse.csr_matrix or ndarray of shape (n_matches, n_effects)
            Sparse, or dense under ``sparse_output=False`` or pandas output.
        """
        check_is_fitted(self, "layout_")
        # set_params after fit may have left a catalogue fit would refuse
        validate_parameter_constraints(
            {"catalogue": self._parameter_constraints["catalogue"]},
            {"catalogue": self.catalogue},
            caller_name=type(self).__name__,
        )
        codes = encode(checked_with_catalogue(X, self.catalogue, warn=False)[0], self.vocabulary_)
        grown = grown_layout(self.layout_, codes)
        index = grown.index_matrix(codes)
        # Positions in the fitted layout; effects of levels never seen in fit are dropped.
        cols = old_positions(self.layout_, grown, index)
        vals = np.broadcast_to(grown.signs, index.shape)
        keep = cols >= 0
        rows = np.broadcast_to(np.arange(len(index))[:, None], index.shape)
        matrix = sp.csr_matrix(
            (vals[keep], (rows[keep], cols[keep])), shape=(len(index), self.layout_.size)
        )
        matrix.sum_duplicates()
        if dense_output_requested(self) or not self.sparse_output:
            return matrix.toarray()
        return matrix

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Name the design columns: ``skill[player]``, ``stst[Red,Blue]`` and so on.

        Parameters
        ----------
        input_features : None
            Ignored; accepted for scikit-learn's API.

        Returns
        -------
        ndarray of str, shape (n_effects,)
            One name per column of `transform`'s output.
        """
        check_is_fitted(self, "layout_")
        v = self.vocabulary_
        names = [f"skill[{p}]" for p in v.players]
        names += [f"stst[{a},{b}]" for a in v.starters for b in v.starters]
        names += [f"stsp[{a},{b}]" for a in v.starters for b in v.specs]
        names += [f"spst[{a},{b}]" for a in v.specs for b in v.starters]
        names += [f"spsp[{a},{b}]" for a in v.specs for b in v.specs]
        return np.asarray(names, dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        tags.requires_fit = True
        return tags
