"""What a fitted matchup classifier forecasts: views of its posterior, and its predictions.

`PosteriorForecasts` is the half of `skcodex.BayesianMatchupClassifier` that reads a
fit: the flat effect and spread draws (computed from ``idata_`` on first use, kept in
memory, never saved), the draw threshold, a saved file's derived parts, and the
forecasts (`predict_proba`, `predict_proba_draws`, `predict_outcome_draws`,
`predict`), with never-seen levels handled by `skcodex._matchup.never_seen`. It reads
the fitted attributes (``idata_``, ``layout_``, ``vocabulary_``, ``catalogue_``,
``classes_``, ``_unseen_seed``, ``late_arrivals_``) and the ``catalogue`` and
``newcomer_skill`` parameters; the other half,
the parameters and `fit`, is `skcodex._classifier`.
"""

from __future__ import annotations

import weakref

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from skcodex._compat import posterior
from skcodex._compat.scikit_learn import validate_parameter_constraints
from skcodex._docstrings import shared_parameters
from skcodex._matchup import debut as debut_decks
from skcodex._matchup import draws as draws_model
from skcodex._matchup import never_seen, newcomers
from skcodex._matchup import readers as fit_readers
from skcodex._matchup.layout import Layout
from skcodex.data import MatchCodes, check_match_table, encode, table_catalogue
from skcodex.data._catalogues import spelled_alike, warn_unseen_names

__all__ = ["PosteriorForecasts"]

#: Derived views of each fitted estimator's posterior, kept out of its state.
_VIEWS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class PosteriorForecasts:
    """Views of a fitted posterior and the forecasts made from it (a mixin of the classifier)."""

    def _views(self) -> dict:
        """Flat effect and spread draws derived from ``idata_`` (computed once, kept in memory)."""
        idata = self.__dict__.get("idata_")
        if idata is None:
            raise AttributeError("this BayesianMatchupClassifier is not fitted yet")
        cached = _VIEWS.get(self)
        if cached is not None and cached[0] is idata:
            return cached[1]
        sampled = self.layout_
        sd = posterior.draws(idata, "sd").astype(np.float64)
        theta, _ = fit_readers.current_effects(
            fit_readers.effect_draws(idata, sampled),
            sd,
            sampled,
            self._unseen_seed,
            fit_readers.training_index(idata),
        )
        # the debut deck factor per draw (None without one: also a file sampled before it)
        factor = debut_decks.factor_draws(idata) if debut_decks.has_factor(sampled) else None
        views = {"effects": theta, "spreads": sd, "factor": factor}
        _VIEWS[self] = (idata, views)
        return views

    @property
    def effect_draws_(self) -> np.ndarray:
        """Every effect per draw, (n_draws, ``layout_.static().size``), derived from ``idata_``.

        With the time-varying skill walk, each player's skill is their skill in
        the last training period plus one more step of the walk.
        """
        return self._views()["effects"]

    @property
    def spread_draws_(self) -> np.ndarray:
        """The spreads per draw, (n_draws, n_spreads), derived from ``idata_``."""
        return self._views()["spreads"]

    def _fitted_with_draws(self) -> bool:
        """Whether the fitted model has draws (NotFittedError before a fit)."""
        check_is_fitted(self, "idata_")
        return bool(self.layout_.options.draws)

    @property
    def draw_(self) -> pd.DataFrame:
        """The posterior of the draw threshold of a model fitted with draws.

        Rows ``threshold`` (``c`` of P(player 1 wins) = sigmoid(q - c),
        P(player 2 wins) = sigmoid(-q - c)) and ``draw_rate_even`` (the chance
        of a draw between equal sides, ``tanh(c / 2)``); columns ``mean``,
        ``sd`` and the 90% equal-tailed interval ``lower``, ``upper``.
        Raises AttributeError for a model fitted without draws.
        """
        check_is_fitted(self, "idata_")
        if not self.layout_.options.draws:
            raise AttributeError(
                "this model was fitted without draws: it has no draw threshold "
                "(fit outcomes holding 0.5 for a draw to learn one)"
            )
        return draws_model.draw_summary(self.idata_)

    @property
    def _forecast_layout(self) -> Layout:
        """The layout of `effect_draws_`: `layout_` without the skill walk."""
        return self.layout_.static()

    def _restore_derived(self) -> None:
        """Recompute what a saved file leaves out (the pointwise log-likelihood)."""
        self.layout_ = fit_readers.upgrade_saved_layout(self.layout_, self.idata_)
        if "log_likelihood" not in posterior.group_names(self.idata_):
            self.idata_ = fit_readers.add_log_likelihood(self.idata_, self.layout_)

    def effect_draws_for(self, codes: MatchCodes) -> tuple[np.ndarray, Layout]:
        """Effect draws in the layout grown to hold ``codes``' never-seen levels.

        Effects of levels seen in fit are their posterior draws; every effect
        involving a never-seen level is a fresh N(0, sd) draw per posterior
        draw, keyed to the levels' names (the same names give the same draws),
        a never-seen player's skill centred as ``newcomer_skill`` says.

        Parameters
        ----------
        codes : skcodex.data.MatchCodes
            Matches encoded against `vocabulary_` (`skcodex.data.encode`).

        Returns
        -------
        theta : ndarray of shape (n_draws, layout.size)
            The effect draws, seen and never-seen levels together.
        layout : Layout
            The fitted layout grown by the never-seen levels of ``codes``.
        """
        check_is_fitted(self, "idata_")
        layout = self._grown_layout(codes)
        theta = self.effect_draws_
        if layout == self._forecast_layout:
            return theta, layout
        return (
            never_seen.extend_effects(
                theta,
                self.spread_draws_,
                self._forecast_layout,
                layout,
                levels=self._levels(codes),
                seed=self._unseen_seed,
                skill_mean=self._newcomer_skill_mean(),
            ),
            layout,
        )

    def _newcomer_skill_mean(self) -> np.ndarray | None:
        """The mean of a never-seen player's skill per draw (`newcomers`), or None for 0.

        None with ``newcomer_skill="population"``, with the debut option (the
        model's own newcomer level), without late arrivals, and for a file saved
        before they were kept.
        """
        if not self._late_arrivals_apply():
            return None
        spreads = self._views()["spreads"]
        player_sd = spreads[:, list(self.layout_.spreads).index("player")]
        start = self._forecast_layout.offsets[never_seen.SKILL]
        return newcomers.skill_mean(self._views()["effects"], player_sd, start, self.late_arrivals_)

    def _late_arrivals_apply(self) -> bool:
        """Whether a never-seen player's skill is centred on the late arrivals (fitted model)."""
        late = getattr(self, "late_arrivals_", None)
        return (
            getattr(self, "newcomer_skill", "population") == "late arrivals"
            and late is not None
            and len(late) > 0
            and not self.layout_.options.debut
            and "player" in self.layout_.spreads
        )

    def _grown_layout(self, codes) -> Layout:
        return never_seen.grown_layout(self._forecast_layout, codes)

    def _levels(self, codes) -> dict:
        return never_seen.level_names(self.vocabulary_, codes)

    # -- prediction ----------------------------------------------------------

    def _encoded(self, X: pd.DataFrame):
        """``X`` checked and encoded: its codes, grown layout and index matrix."""
        check_is_fitted(self, "idata_")
        # set_params after fit may have left a catalogue fit would refuse
        validate_parameter_constraints(
            {"catalogue": self._parameter_constraints["catalogue"]},
            {"catalogue": self.catalogue},
            caller_name=type(self).__name__,
        )
        catalogue = table_catalogue(X, self.catalogue) or getattr(self, "catalogue_", None)
        table = spelled_alike(check_match_table(X, catalogue), catalogue, self.vocabulary_)
        codes = encode(table, self.vocabulary_)
        warn_unseen_names(self, catalogue, codes)
        layout = self._grown_layout(codes)
        return codes, layout, layout.index_matrix(codes)

    def _fitted_draws(self) -> never_seen.FittedDraws:
        """What a forecast reads of this fitted model (`skcodex._matchup.never_seen`)."""
        views = self._views()
        return never_seen.FittedDraws(
            effects=views["effects"],
            spreads=views["spreads"],
            layout=self._forecast_layout,
            sampled_spreads=self.layout_.spreads,
            factor=views["factor"],
            seed=self._unseen_seed,
            skill_mean=self._newcomer_skill_mean(),
        )

    @shared_parameters
    def predict_outcome_draws(self, X: pd.DataFrame) -> np.ndarray:
        """Each outcome's probability per posterior draw, in `classes_` order.

        For a model fitted with draws the three outcomes (player 2 wins, a draw,
        player 1 wins); otherwise the two (player 2 wins, player 1 wins). Effects
        of never-seen levels are fresh draws from their population, keyed to the
        levels' names.

        {forecast_parameters}

        Returns
        -------
        ndarray of shape (n_draws, n_matches, n_classes)
            Entry ``[d, i, c]``: match ``i``'s probability of outcome ``classes_[c]``
            under posterior draw ``d``.
        """
        if self._fitted_with_draws():
            return draws_model.outcome_draws(self, X)
        p1 = self.predict_proba_draws(X)
        return np.stack([1.0 - p1, p1], axis=-1)

    @shared_parameters
    def predict_proba_draws(self, X: pd.DataFrame) -> np.ndarray:
        """P(player 1 wins) for every posterior draw.

        {forecast_parameters}

        Returns
        -------
        ndarray of shape (n_draws, n_matches)
            Row d: each match's probability under posterior draw d.
        """
        if self._fitted_with_draws():
            return draws_model.outcome_draws(self, X)[..., 2]
        codes, layout, index = self._encoded(X)
        return never_seen.win_probability_draws(
            self._fitted_draws(), layout, index, self._levels(codes)
        )

    @shared_parameters
    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        """Posterior mean probabilities, columns in `classes_` order.

        The effects of a player, starter or spec never seen in fit come from
        their population distribution, N(0, sd) (a never-seen player's skill
        centred as ``newcomer_skill`` says): for each posterior draw,
        their sum in a match is integrated out exactly by Gauss-Hermite
        quadrature, so
        the forecast carries no Monte Carlo noise from them. (In a symmetric
        game, a match reading a never-seen cell of a matchup block gets fresh
        draws instead, keyed to the levels' names, as in
        `predict_proba_draws`.) A row's forecast does not depend on the other
        rows passed with it, and repeats exactly. Memory stays bounded however
        many levels are new.

        {forecast_parameters}

        Returns
        -------
        ndarray of shape (n_matches, 2)
            Column 0: P(player 2 wins); column 1: P(player 1 wins).
        """
        if self._fitted_with_draws():  # never-seen levels drawn, not integrated
            return draws_model.outcome_draws(self, X).mean(axis=0)
        codes, layout, index = self._encoded(X)
        p1 = never_seen.mean_win_probabilities(
            self._fitted_draws(), layout, index, self._levels(codes)
        )
        return np.column_stack([1.0 - p1, p1])

    @shared_parameters
    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """1 where player 1 is more likely to win than not, else 0.

        {forecast_parameters}

        Returns
        -------
        ndarray of shape (n_matches,)
            1 where the posterior mean P(player 1 wins) exceeds one half, else 0.
        """
        if self._fitted_with_draws():  # the most probable of the three outcomes
            return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
        return (self.predict_proba(X)[:, 1] > 0.5).astype(np.int64)
