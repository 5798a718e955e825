"""BayesianMatchupClassifier: the scikit-learn face of the hierarchical matchup model."""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from scipy.special import log_expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from skcodex.approximate import METHODS, fit_approximate
from skcodex.codex import Catalogue
from skcodex.data import (
    MatchTableError,
    Vocabulary,
    check_match_table,
    check_outcome,
    encode,
    table_catalogue,
)
from skcodex.inference import SAMPLERS, SamplingOptions, sample_posterior, warn_if_not_converged
from skcodex.model import PRIORS, SPREADS, Layout, ModelOptions, SpreadPriors
from skcodex.persistence import PersistenceMixin
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


#: The seed model's priors: N(0, 0.5) on every log-spread.
SEED_PRIORS = {
    "log_sd_player_loc": 0.0,
    "log_sd_stst_loc": 0.0,
    "log_sd_stsp_loc": 0.0,
    "log_sd_spsp_loc": 0.0,
}

# Largest draws x matches whose pointwise log-likelihood is kept in idata_ (160 MB).
_MAX_LOG_LIKELIHOOD = 20_000_000

# Constructor prefixes of each prior's loc/scale, by the model's prior names.
_PRIOR_PARAMS_BY_NAME = {
    **{name: f"log_sd_{name}" for name in (*SPREADS, "syn", "fam", "step")},
    "total": "log_total",
}
_PRIOR_PARAMS = tuple(_PRIOR_PARAMS_BY_NAME.values())


class BayesianMatchupClassifier(PersistenceMixin, ClassifierMixin, BaseEstimator):
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
    log_sd_stst_loc, log_sd_stst_scale : float, default -1.0, 0.5
        Prior on the log of the starter-vs-starter spread.
    log_sd_stsp_loc, log_sd_stsp_scale : float, default -1.5, 0.5
        Prior on the log of the spread shared by starter-vs-spec and
        spec-vs-starter effects.
    log_sd_spsp_loc, log_sd_spsp_scale : float, default -2.0, 0.5
        Prior on the log of the spec-vs-spec spread. The deck defaults are
        tighter than the seed's N(0, 0.5) for every spread (`SEED_PRIORS`
        restores it): centred near 0.37, 0.22 and 0.14, so the sum of 16
        deck effects has about the player spread a priori. They forecast the
        real tournaments better out of sample (see docs/model-choice.md).
    time_varying : bool, default False
        Let each player's skill follow a Gaussian random walk over rating
        periods (needs a ``period`` column); forecasts use the latest skill,
        widened by one step.
    synergy : bool, default False
        Add within-deck starter-spec and spec-spec pair effects (deck strength).
    familiarity : bool, default False
        Add player-starter and player-spec effects, shrunk hard.
    prior : {"lognormal", "balanced"}, default "lognormal"
        ``"balanced"``: a total log-odds spread (``log_total_loc``,
        ``log_total_scale``) split equally a priori between skill and decks.
        With ``sampler="auto"`` it is sampled by PyMC's NUTS, which builds its
        model in seconds where nutpie's backend takes minutes.
    log_sd_syn_loc, log_sd_syn_scale, log_sd_fam_loc, log_sd_fam_scale, \
log_sd_step_loc, log_sd_step_scale, log_total_loc, log_total_scale : float
        Priors of the optional blocks' log-spreads and of the balanced prior's
        log total spread.
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
        What deck strings are read against. By default the training table's own
        ``X.attrs["catalogue"]`` (a table from
        `skcodex.datasets.load_codex_matches` carries it), else base Codex.
        Decks given as `skcodex.codex.Deck` values need no catalogue.
    cores : int, optional
        Chains run in parallel on this many cores (default: as many as allowed).
    method : {"nuts", "advi"}, default "nuts"
        ``"advi"`` replaces MCMC by ``draws * chains`` independent draws from a
        variational approximation fitted on minibatches (see
        `skcodex.approximate`): minutes instead of hours for very large tables.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``[0, 1]``: column 1 of `predict_proba` is P(player 1 wins).
    idata_ : arviz.InferenceData
        The posterior, with named coordinates ``player``, ``starter1``,
        ``starter2``, ``spec1``, ``spec2`` and ``spread``.
    vocabulary_ : skcodex.data.Vocabulary
        Players, starters and specs seen in fit.
    catalogue_ : Catalogue or None
        The catalogue the training decks were read against (``catalogue``, or
        the table's ``X.attrs["catalogue"]``); later tables without a catalogue
        of their own are read against it.
    layout_ : skcodex.model.Layout
    effect_draws_ : ndarray of shape (n_draws, n_effects)
        Every effect for every posterior draw (the flat ``theta`` of `Layout`).
    spread_draws_ : ndarray of shape (n_draws, n_spreads)
        The spreads per draw: player, stst, stsp, spsp, then those of the
        optional blocks switched on (syn, fam, step).
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
        **{f"{name}_loc": [Interval(Real, None, None, closed="neither")] for name in _PRIOR_PARAMS},
        **{f"{name}_scale": [Interval(Real, 0, None, closed="neither")] for name in _PRIOR_PARAMS},
        "time_varying": ["boolean"],
        "synergy": ["boolean"],
        "familiarity": ["boolean"],
        "prior": [StrOptions(set(PRIORS))],
        "draws": [Interval(Integral, 1, None, closed="left")],
        "tune": [Interval(Integral, 0, None, closed="left")],
        "chains": [Interval(Integral, 1, None, closed="left")],
        "target_accept": [Interval(Real, 0, 1, closed="neither")],
        "sampler": [StrOptions(set(SAMPLERS))],
        "method": [StrOptions(set(METHODS))],
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
        log_sd_stst_loc: float = -1.0,
        log_sd_stst_scale: float = 0.5,
        log_sd_stsp_loc: float = -1.5,
        log_sd_stsp_scale: float = 0.5,
        log_sd_spsp_loc: float = -2.0,
        log_sd_spsp_scale: float = 0.5,
        time_varying: bool = False,
        synergy: bool = False,
        familiarity: bool = False,
        prior: str = "lognormal",
        log_sd_syn_loc: float = -1.5,
        log_sd_syn_scale: float = 0.5,
        log_sd_fam_loc: float = -2.0,
        log_sd_fam_scale: float = 0.5,
        log_sd_step_loc: float = -2.0,
        log_sd_step_scale: float = 0.5,
        log_total_loc: float = 0.5,
        log_total_scale: float = 0.5,
        draws: int = 1000,
        tune: int = 1000,
        chains: int = 4,
        target_accept: float = 0.8,
        sampler: str = "auto",
        random_state: Any = None,
        progressbar: bool = False,
        catalogue: Catalogue | None = None,
        cores: int | None = None,
        method: str = "nuts",
    ):
        self.log_sd_player_loc = log_sd_player_loc
        self.log_sd_player_scale = log_sd_player_scale
        self.log_sd_stst_loc = log_sd_stst_loc
        self.log_sd_stst_scale = log_sd_stst_scale
        self.log_sd_stsp_loc = log_sd_stsp_loc
        self.log_sd_stsp_scale = log_sd_stsp_scale
        self.log_sd_spsp_loc = log_sd_spsp_loc
        self.log_sd_spsp_scale = log_sd_spsp_scale
        self.time_varying = time_varying
        self.synergy = synergy
        self.familiarity = familiarity
        self.prior = prior
        self.log_sd_syn_loc = log_sd_syn_loc
        self.log_sd_syn_scale = log_sd_syn_scale
        self.log_sd_fam_loc = log_sd_fam_loc
        self.log_sd_fam_scale = log_sd_fam_scale
        self.log_sd_step_loc = log_sd_step_loc
        self.log_sd_step_scale = log_sd_step_scale
        self.log_total_loc = log_total_loc
        self.log_total_scale = log_total_scale
        self.draws = draws
        self.tune = tune
        self.chains = chains
        self.target_accept = target_accept
        self.sampler = sampler
        self.random_state = random_state
        self.progressbar = progressbar
        self.catalogue = catalogue
        self.cores = cores
        self.method = method

    # -- fitting -------------------------------------------------------------

    @property
    def options(self) -> ModelOptions:
        """The model extensions the parameters switch on."""
        return ModelOptions(
            time_varying=bool(self.time_varying),
            synergy=bool(self.synergy),
            familiarity=bool(self.familiarity),
            prior=self.prior,
        )

    @property
    def priors(self) -> SpreadPriors:
        """The spread priors the parameters describe, in the model's order."""
        names = [_PRIOR_PARAMS_BY_NAME[n] for n in self.options.prior_names]
        return SpreadPriors(
            loc=tuple(float(getattr(self, f"{n}_loc")) for n in names),
            scale=tuple(float(getattr(self, f"{n}_scale")) for n in names),
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
        catalogue = table_catalogue(X, self.catalogue)
        table = check_match_table(X, catalogue)
        outcome = check_outcome(y, len(table)).astype(float)
        if luck is not None:
            outcome = outcome - check_luck(luck, len(table))
        vocab = Vocabulary.from_table(table)
        codes = encode(table, vocab)
        model_options = self.options
        if model_options.time_varying and codes.epoch is None:
            raise MatchTableError(
                "time_varying=True needs a 'period' column (rating period or tournament)"
            )
        n_epochs = max(codes.n_epochs, 2) if model_options.time_varying else 1
        layout = Layout(*vocab.sizes, vocab.specs_per_deck, model_options, n_epochs)
        rng = check_random_state(self.random_state)
        seed, self._unseen_seed = (int(s) for s in rng.randint(0, 2**31 - 1, size=2))
        options = SamplingOptions(
            draws=self.draws,
            tune=self.tune,
            chains=self.chains,
            target_accept=self.target_accept,
            # The balanced prior's model takes minutes to build for nutpie's numba
            # backend; PyMC's NUTS (C backend) builds it in seconds.
            sampler="pymc"
            if self.sampler == "auto" and model_options.prior == "balanced"
            else self.sampler,
            seed=seed,
            progressbar=self.progressbar,
            cores=self.cores,
        )
        index = layout.index_matrix(codes)
        if self.method == "nuts":
            idata = sample_posterior(index, outcome, layout, self.priors, options)
        else:
            idata = fit_approximate(index, outcome, layout, self.priors, options, self.method)
        periods = list(pd.unique(table["period"])) if "period" in table.columns else []
        self.idata_ = _name_coordinates(idata, vocab, layout, periods)
        post = self.idata_.posterior
        sd = np.asarray(post["sd"]).reshape(-1, len(layout.spreads))
        z = np.asarray(post["z"]).reshape(sd.shape[0], -1)
        self.spread_draws_ = sd
        theta = layout.theta(z, sd)
        _add_log_likelihood(self.idata_, theta, layout.index_matrix(codes), layout.signs, outcome)
        self.effect_draws_, self.layout_ = _current_effects(theta, sd, layout, self._unseen_seed)
        self.vocabulary_ = vocab
        self.catalogue_ = catalogue
        self.classes_ = np.array([0, 1])
        self.feature_names_in_ = np.asarray(table.columns, dtype=object)
        self.n_features_in_ = len(self.feature_names_in_)
        # MCMC diagnostics (R-hat, ESS, divergences) apply to NUTS draws; the approximate
        # methods check their own optimisation and warn from fit_approximate.
        self.convergence_problems_ = (
            warn_if_not_converged(self.idata_) if self.method == "nuts" else []
        )
        return self

    # -- prediction ----------------------------------------------------------

    def _effects_for(self, X: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, Layout]:
        """Effect draws extended with fresh population draws for unseen levels, and the index."""
        check_is_fitted(self, "effect_draws_")
        catalogue = table_catalogue(X, self.catalogue) or getattr(self, "catalogue_", None)
        table = check_match_table(X, catalogue)
        codes = encode(table, self.vocabulary_)
        layout = Layout(
            codes.n_players,
            codes.n_starters,
            codes.n_specs,
            self.layout_.specs_per_deck,
            self.layout_.options,
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


def _add_log_likelihood(idata, theta, index, signs, outcome) -> None:
    """Store each match's log-likelihood per draw (for PSIS-LOO) when it fits in memory."""
    import xarray as xr

    n_chains, n_draws = idata.posterior.sizes["chain"], idata.posterior.sizes["draw"]
    if theta.shape[0] * len(index) > _MAX_LOG_LIKELIHOOD:
        return
    loglik = np.empty((theta.shape[0], len(index)))
    step = max(1, 2**23 // (theta.shape[0] * index.shape[1]))  # 64 MB of gathered effects
    for start in range(0, len(index), step):
        q = theta[:, index[start : start + step]] @ signs
        r = outcome[start : start + step]
        loglik[:, start : start + step] = r * log_expit(q) + (1 - r) * log_expit(-q)
    values = loglik.reshape(n_chains, n_draws, len(index))
    idata.add_groups(
        log_likelihood=xr.Dataset({"outcome": (("chain", "draw", "match"), values)}),
    )


def _current_effects(
    theta: np.ndarray, sd: np.ndarray, layout: Layout, seed: int
) -> tuple[np.ndarray, Layout]:
    """Effects for forecasting the next period, in the static layout.

    Without a skill walk this is ``theta`` itself. With one, each player's
    skill becomes their skill at the last training epoch plus one more step of
    the walk, a fresh N(0, sd_step) per draw: a player who sat out recent
    periods already carries their extra steps, so forecasts widen with the
    time since a player last played.
    """
    if not layout.options.time_varying:
        return theta, layout
    static = layout.static()
    blocks = layout.unflatten(theta)
    step = sd[:, layout.spreads.index("step")]
    rng = np.random.default_rng([seed, 1])
    noise = rng.standard_normal(blocks["skill"].shape) * step[:, None]
    current = {name: blocks[name] for name, _ in static.blocks}
    current["skill"] = blocks["skill"] + blocks["walk"][..., -1] + noise
    return static.flatten(current), static


def _name_coordinates(idata, vocab: Vocabulary, layout: Layout, periods: list):
    """Label the posterior's dimensions with the vocabulary's names."""
    names = {
        "player": list(vocab.players),
        "starter1": list(vocab.starters),
        "starter2": list(vocab.starters),
        "spec1": list(vocab.specs),
        "spec2": list(vocab.specs),
        "spread": list(layout.spreads),
    }
    if layout.options.time_varying:
        labels = [*periods, *(f"epoch {i}" for i in range(layout.n_epochs))]
        names["epoch"] = labels[: layout.n_epochs]
    data = idata.posterior
    present = {k: v for k, v in names.items() if k in data.dims}
    idata.posterior = data.assign_coords(present)
    return idata
