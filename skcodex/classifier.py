"""BayesianMatchupClassifier: the scikit-learn face of the hierarchical matchup model."""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from skcodex.codex import Catalogue
from skcodex.data import (
    MatchTableError,
    Vocabulary,
    check_match_table,
    check_outcome,
    encode,
)
from skcodex.inference import SAMPLERS, SamplingOptions, sample_posterior, warn_if_not_converged
from skcodex.model import SPREADS, Layout, SpreadPriors
from skcodex.prediction import extend_effects, mean_win_probability, win_probability_draws


def check_luck(luck: Any, n_matches: int) -> np.ndarray:
    """Validate per-match net luck for player 1 (win-probability scale)."""
    try:
        arr = np.asarray(luck, dtype=float)
    except (TypeError, ValueError):
        raise MatchTableError("luck must be numbers: net luck for player 1 per match") from None
    if arr.ndim != 1 or len(arr) != n_matches:
        raise MatchTableError(
            f"luck must hold one number per match ({n_matches}); got shape {arr.shape}"
        )
    if not np.all(np.isfinite(arr)):
        pos = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise MatchTableError(f"luck must be finite; row {pos} holds {arr[pos]!r}")
    return arr


class BayesianMatchupClassifier(ClassifierMixin, BaseEstimator):
    """Bradley-Terry player skills plus 16 deck-component matchup effects, fitted by MCMC.

    The log-odds that player 1 (who moves first) wins are
    ``skill[player1] - skill[player2] + m``, where the deck matchup ``m`` sums
    one starter-vs-starter, three starter-vs-spec, three spec-vs-starter and
    nine spec-vs-spec effects, each ordered player 1's component first so that
    turn order is part of the effect. Each block of effects is drawn from
    ``N(0, sd)`` with its spread learned from the data (partial pooling) under
    a log-normal prior ``log sd ~ N(loc, scale)``.

    Parameters
    ----------
    log_sd_player_loc, log_sd_player_scale : float, default 0.0, 0.5
        Prior on the log of the player-skill spread.
    log_sd_stst_loc, log_sd_stst_scale : float, default 0.0, 0.5
        Prior on the log of the starter-vs-starter spread.
    log_sd_stsp_loc, log_sd_stsp_scale : float, default 0.0, 0.5
        Prior on the log of the spread shared by starter-vs-spec and
        spec-vs-starter effects.
    log_sd_spsp_loc, log_sd_spsp_scale : float, default 0.0, 0.5
        Prior on the log of the spec-vs-spec spread.
    draws, tune : int, default 1000
        Posterior draws kept, and tuning steps, per chain.
    chains : int, default 4
    target_accept : float, default 0.8
        NUTS target acceptance rate; raise it if there are divergences.
    sampler : {"auto", "nutpie", "pymc"}, default "auto"
        ``"auto"`` uses nutpie when installed (``pip install skcodex[fast]``),
        otherwise PyMC's NUTS.
    random_state : int, RandomState instance or None
        Seeds the sampler and the draws for levels never seen in fit.
    progressbar : bool, default False
    catalogue : Catalogue, optional
        What deck strings are read against; base Codex by default. Decks given
        as `skcodex.codex.Deck` values need no catalogue.
    cores : int, optional
        Chains run in parallel on this many cores (default: as many as allowed).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``[0, 1]``: column 1 of `predict_proba` is P(player 1 wins).
    idata_ : arviz.InferenceData
        The posterior, with named coordinates ``player``, ``starter1``,
        ``starter2``, ``spec1``, ``spec2`` and ``spread``.
    vocabulary_ : skcodex.data.Vocabulary
        Players, starters and specs seen in fit.
    layout_ : skcodex.model.Layout
    effect_draws_ : ndarray of shape (n_draws, n_effects)
        Every effect for every posterior draw (the flat ``theta`` of `Layout`).
    spread_draws_ : ndarray of shape (n_draws, 4)
        The four spreads per draw, in the order player, stst, stsp, spsp.
    convergence_problems_ : list of str
        Failed convergence checks (empty when R-hat, ESS and divergences are fine).

    Examples
    --------
    >>> from skcodex import BayesianMatchupClassifier
    >>> from skcodex.datasets import make_matches
    >>> data = make_matches(n_players=12, n_matches=150, n_tournaments=3, random_state=0)
    >>> clf = BayesianMatchupClassifier(draws=200, tune=200, chains=2, random_state=0)
    >>> import warnings; warnings.simplefilter("ignore")
    >>> clf.fit(data.X, data.y).predict_proba(data.X[:2]).shape
    (2, 2)
    """

    _parameter_constraints: ClassVar[dict] = {
        **{f"log_sd_{s}_loc": [Interval(Real, None, None, closed="neither")] for s in SPREADS},
        **{f"log_sd_{s}_scale": [Interval(Real, 0, None, closed="neither")] for s in SPREADS},
        "draws": [Interval(Integral, 1, None, closed="left")],
        "tune": [Interval(Integral, 0, None, closed="left")],
        "chains": [Interval(Integral, 1, None, closed="left")],
        "target_accept": [Interval(Real, 0, 1, closed="neither")],
        "sampler": [StrOptions(set(SAMPLERS))],
        "random_state": ["random_state"],
        "progressbar": ["boolean"],
        "catalogue": [Catalogue, None],
        "cores": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(
        self,
        *,
        log_sd_player_loc: float = 0.0,
        log_sd_player_scale: float = 0.5,
        log_sd_stst_loc: float = 0.0,
        log_sd_stst_scale: float = 0.5,
        log_sd_stsp_loc: float = 0.0,
        log_sd_stsp_scale: float = 0.5,
        log_sd_spsp_loc: float = 0.0,
        log_sd_spsp_scale: float = 0.5,
        draws: int = 1000,
        tune: int = 1000,
        chains: int = 4,
        target_accept: float = 0.8,
        sampler: str = "auto",
        random_state: Any = None,
        progressbar: bool = False,
        catalogue: Catalogue | None = None,
        cores: int | None = None,
    ):
        self.log_sd_player_loc = log_sd_player_loc
        self.log_sd_player_scale = log_sd_player_scale
        self.log_sd_stst_loc = log_sd_stst_loc
        self.log_sd_stst_scale = log_sd_stst_scale
        self.log_sd_stsp_loc = log_sd_stsp_loc
        self.log_sd_stsp_scale = log_sd_stsp_scale
        self.log_sd_spsp_loc = log_sd_spsp_loc
        self.log_sd_spsp_scale = log_sd_spsp_scale
        self.draws = draws
        self.tune = tune
        self.chains = chains
        self.target_accept = target_accept
        self.sampler = sampler
        self.random_state = random_state
        self.progressbar = progressbar
        self.catalogue = catalogue
        self.cores = cores

    # -- fitting -------------------------------------------------------------

    @property
    def priors(self) -> SpreadPriors:
        """The spread priors the parameters describe."""
        return SpreadPriors(
            loc=tuple(float(getattr(self, f"log_sd_{s}_loc")) for s in SPREADS),
            scale=tuple(float(getattr(self, f"log_sd_{s}_scale")) for s in SPREADS),
        )

    def fit(self, X: pd.DataFrame, y: Any, *, luck: Any = None) -> BayesianMatchupClassifier:
        """Sample the posterior given a match table and outcomes.

        Parameters
        ----------
        X : pandas.DataFrame
            The match table: ``player1``, ``player2`` (player 1 moved first),
            ``deck1``, ``deck2``; optional ``period``, ``date``.
        y : array-like of shape (n_matches,)
            1 (or True) where player 1 won, 0 (or False) where player 2 won.
        luck : array-like of shape (n_matches,), optional
            Each match's estimated net luck for player 1 on the win-probability
            scale (see `skcodex.luck`). The model is then fitted to the
            luck-adjusted outcomes ``y - luck`` through the binomial
            quasi-likelihood, which stays valid outside [0, 1].

        Returns
        -------
        self
        """
        self._validate_params()
        table = check_match_table(X, self.catalogue)
        outcome = check_outcome(y, len(table)).astype(float)
        if luck is not None:
            outcome = outcome - check_luck(luck, len(table))
        vocab = Vocabulary.from_table(table)
        codes = encode(table, vocab)
        layout = Layout(*vocab.sizes, vocab.specs_per_deck)
        rng = check_random_state(self.random_state)
        seed, self._unseen_seed = (int(s) for s in rng.randint(0, 2**31 - 1, size=2))
        options = SamplingOptions(
            draws=self.draws,
            tune=self.tune,
            chains=self.chains,
            target_accept=self.target_accept,
            sampler=self.sampler,
            seed=seed,
            progressbar=self.progressbar,
            cores=self.cores,
        )
        idata = sample_posterior(layout.index_matrix(codes), outcome, layout, self.priors, options)
        self.idata_ = _name_coordinates(idata, vocab)
        post = self.idata_.posterior
        sd = np.asarray(post["sd"]).reshape(-1, len(SPREADS))
        z = np.asarray(post["z"]).reshape(sd.shape[0], -1)
        self.spread_draws_ = sd
        self.effect_draws_ = z * sd[:, layout.group]
        self.vocabulary_ = vocab
        self.layout_ = layout
        self.classes_ = np.array([0, 1])
        self.feature_names_in_ = np.asarray(table.columns, dtype=object)
        self.n_features_in_ = len(self.feature_names_in_)
        self.convergence_problems_ = warn_if_not_converged(self.idata_)
        return self

    # -- prediction ----------------------------------------------------------

    def _effects_for(self, X: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, Layout]:
        """Effect draws extended with fresh population draws for unseen levels, and the index."""
        check_is_fitted(self, "effect_draws_")
        table = check_match_table(X, self.catalogue)
        codes = encode(table, self.vocabulary_)
        layout = Layout(
            codes.n_players, codes.n_starters, codes.n_specs, self.layout_.specs_per_deck
        )
        theta = self.effect_draws_
        if layout != self.layout_:
            theta = extend_effects(
                theta, self.spread_draws_, self.layout_, layout, self._unseen_seed
            )
        return theta, layout.index_matrix(codes), layout

    def predict_proba_draws(self, X: pd.DataFrame) -> np.ndarray:
        """P(player 1 wins) for every posterior draw.

        Returns
        -------
        ndarray of shape (n_draws, n_matches)
        """
        theta, index, layout = self._effects_for(X)
        return win_probability_draws(theta, index, layout.signs)

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        """Posterior mean probabilities, columns in `classes_` order.

        A player, starter or spec never seen in fit gets a fresh effect from
        its population distribution, N(0, sd), for every posterior draw, so
        its uncertainty is integrated over rather than set to zero.

        Returns
        -------
        ndarray of shape (n_matches, 2)
            Column 0: P(player 2 wins); column 1: P(player 1 wins).
        """
        theta, index, layout = self._effects_for(X)
        p1 = mean_win_probability(theta, index, layout.signs)
        return np.column_stack([1.0 - p1, p1])

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """1 where player 1 is more likely to win than not, else 0."""
        return (self.predict_proba(X)[:, 1] > 0.5).astype(np.int64)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        tags.non_deterministic = False
        return tags


def _name_coordinates(idata, vocab: Vocabulary):
    """Label the posterior's dimensions with the vocabulary's names."""
    names = {
        "player": list(vocab.players),
        "starter1": list(vocab.starters),
        "starter2": list(vocab.starters),
        "spec1": list(vocab.specs),
        "spec2": list(vocab.specs),
        "spread": list(SPREADS),
    }
    for group in ("posterior",):
        data = getattr(idata, group)
        present = {k: v for k, v in names.items() if k in data.dims}
        setattr(idata, group, data.assign_coords(present))
    return idata
