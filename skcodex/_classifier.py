"""BayesianMatchupClassifier: the scikit-learn face of the hierarchical matchup model."""

from __future__ import annotations

import dataclasses
import warnings
import weakref
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from skcodex._compat import posterior
from skcodex._compat.scikit_learn import (
    Interval,
    StrOptions,
    fit_context,
    validate_parameter_constraints,
)
from skcodex._format.persistence import PersistenceMixin
from skcodex._matchup import debut as debut_decks
from skcodex._matchup import draws as draws_model
from skcodex._matchup import fitting, never_seen, part_choice
from skcodex._matchup import readers as fit_readers
from skcodex._matchup.approximation import METHODS
from skcodex._matchup.blocks import BLOCK_TABLE, SPREAD_TABLE
from skcodex._matchup.diagnostics import warn_if_not_converged
from skcodex._matchup.graph import PRIORS, Layout, ModelOptions, SpreadPriors
from skcodex._matchup.sampling import SAMPLERS, FitProblem, SamplingOptions
from skcodex.codex import Catalogue, PlainCatalogue
from skcodex.data import (
    MatchCodes,
    MatchTableError,
    Vocabulary,
    adjust_for_luck,
    check_luck,
    check_match_table,
    encode,
    table_catalogue,
)
from skcodex.data._catalogues import (
    WALK_STEPS_SLOW,
    checked_with_catalogue,
    spelled_alike,
    warn_if_walk_is_large,
    warn_unseen_names,
)
from skcodex.data._codes import period_labels, walk_size
from skcodex.data._table import TimeOrder, check_dated


def _missing_date(table: pd.DataFrame) -> bool:
    """Whether the table's ``date`` column is missing a value (no column: False)."""
    return "date" in table.columns and bool(table["date"].isna().any())


#: The seed model's priors: N(0, 0.5) on every log-spread.
SEED_PRIORS = {
    "log_sd_player_loc": 0.0,
    "log_sd_stst_loc": 0.0,
    "log_sd_stsp_loc": 0.0,
    "log_sd_spsp_loc": 0.0,
}

# Constructor prefixes of each prior's loc/scale, by the model's prior names; their
# defaults are `skcodex._matchup.blocks.PRIOR_DEFAULTS` (a test checks the signature agrees).
_PRIOR_PARAMS_BY_NAME = {
    **{s.name: f"log_sd_{s.name}" for s in SPREAD_TABLE},
    "total": "log_total",
    **{b.name: b.name for b in BLOCK_TABLE if b.spread is None},
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
    a log-normal prior ``log sd ~ N(loc, scale)``. Decks of other games may
    hold any fixed number k >= 0 of specs (side components), giving
    ``1 + 2k + k^2`` deck effects (one character-vs-character effect for
    k = 0); see [Other games](../other-games.md).

    Parameters
    ----------
    log_sd_player_loc : float, default 0.0
        Mean of the normal prior on the log of the player-skill spread.
    log_sd_player_scale : float, default 0.5
        Standard deviation of the normal prior on the log of the player-skill spread.
    log_sd_stst_loc : float, default -1.0
        Mean of the prior on the log of the starter-vs-starter spread (a spread
        near 0.37 a priori).
    log_sd_stst_scale : float, default 0.5
        Standard deviation of the prior on the log of the starter-vs-starter spread.
    log_sd_stsp_loc : float, default -1.5
        Mean of the prior on the log of the spread shared by starter-vs-spec and
        spec-vs-starter effects (near 0.22 a priori).
    log_sd_stsp_scale : float, default 0.5
        Standard deviation of the prior on the log of the starter-vs-spec spread.
    log_sd_spsp_loc : float, default -2.0
        Mean of the prior on the log of the spec-vs-spec spread (near 0.14 a
        priori). The deck defaults are tighter than the seed's N(0, 0.5) for
        every spread (`SEED_PRIORS` restores it), so the sum of 16 deck effects
        has about the player spread a priori; they forecast the real tournaments
        better out of sample (see [Choosing a model](../model-choice.md)).
    log_sd_spsp_scale : float, default 0.5
        Standard deviation of the prior on the log of the spec-vs-spec spread.
    time_varying : bool or "auto", default "auto"
        Let each player's skill follow a Gaussian random walk over rating
        periods (needs a ``period`` column). The walk takes a step only into
        the periods a player played, of spread ``sd_step * sqrt(gap)`` (the
        same walk with the other periods integrated out); forecasts use the
        skill of the last period played, widened by the walk from there to
        the period after training. ``"auto"`` (the default) leaves the walk
        out unless ``part_selection="forward"`` and the table's own forward
        evidence favours it; it is tried only on a table with a ``period``
        column of two periods or more, no ``date`` missing, a walk of fewer
        than 4,000 steps (one per player and period played after their first;
        past that it is slow to fit and mix) and ``method="nuts"``.
        ``layout_.options.time_varying`` says which was fitted.
    synergy : bool, default False
        Add within-deck starter-spec and spec-spec pair effects (deck strength).
    familiarity : bool, default False
        Add player-starter and player-spec effects, shrunk hard.
    prior : {"lognormal", "balanced"}, default "lognormal"
        ``"balanced"``: a total log-odds spread (``log_total_loc``,
        ``log_total_scale``) split equally a priori between skill and decks.
        With ``sampler="auto"`` it is sampled by PyMC's NUTS, which builds its
        model in seconds where nutpie's backend takes minutes.
    log_sd_syn_loc : float, default -1.5
        Mean of the prior on the log of the synergy spread (``synergy=True``).
    log_sd_syn_scale : float, default 0.5
        Standard deviation of the prior on the log of the synergy spread.
    log_sd_fam_loc : float, default -2.0
        Mean of the prior on the log of the familiarity spread (``familiarity=True``).
    log_sd_fam_scale : float, default 0.5
        Standard deviation of the prior on the log of the familiarity spread.
    log_sd_step_loc : float, default -2.0
        Mean of the prior on the log of the skill walk's step spread
        (``time_varying=True``).
    log_sd_step_scale : float, default 0.25
        Standard deviation of the prior on the log of the skill walk's step
        spread (``step_prior="lognormal"``; steps between 0.08 and 0.22
        log-odds per period a priori,
        95%): tighter than the other spreads' priors, for few players walk
        long enough to pin it, and at 0.5 it mixes too slowly for 4 chains
        of 1,000 draws on the Codex forum data. It holds a faster drift
        below its size (a true step of 0.5 is estimated at about 0.3-0.45):
        for periods in which skills move more, such as years, widen it
        (0.5) and raise ``log_sd_step_loc``, with more draws.
    step_prior : {"lognormal", "exponential"}, default "lognormal"
        The prior family of the walk's step spread. ``"lognormal"``:
        ``log sd_step ~ N(log_sd_step_loc, log_sd_step_scale)``.
        ``"exponential"``: ``sd_step ~ Exponential`` of mean
        ``sd_step_mean``, a penalised-complexity prior whose mode is no
        drift at all, so the data decide whether skills move; it needs more
        draws to mix (see [Choosing a model](../model-choice.md)).
    sd_step_mean : float, default 0.15
        Mean of the exponential prior on the step spread
        (``step_prior="exponential"``).
    log_total_loc : float, default 0.5
        Mean of the prior on the log of the total log-odds spread
        (``prior="balanced"``).
    log_total_scale : float, default 0.5
        Standard deviation of the prior on the log of the total log-odds spread.
    first_move : bool, default False
        Add one first-move effect shared by every match: the log-odds player 1
        gains from moving first, beyond what the ordered deck effects carry.
    first_move_loc : float, default 0.0
        Mean of the normal prior on the first-move effect (``first_move=True``).
    first_move_scale : float, default 0.5
        Standard deviation of the normal prior on the first-move effect.
    symmetric : bool, default False
        For games where no side moves first (player 1 is only the side listed
        first): the matchup of deck a against deck b is minus that of b
        against a, with one effect per unordered pair of components and
        mirror matchups exactly zero. Swapping the two sides of any match then
        gives exactly ``1 - p``. Cannot be combined with ``first_move=True``.
    debut : bool or "auto", default "auto"
        Add one learned offset to a player's skill in the matches of their
        first rating period (their debut): the log-odds a debutant gains or
        loses against a seasoned player of the same skill. A player never
        seen in fit is a debutant in every forecast; a player seen in fit is
        one in the matches of the period they first played in. The same
        option learns the debut deck factor, ``debut_deck_factor`` in the
        posterior: in a match where either side debuts, the deck part of the
        log-odds is multiplied by a factor between 0 and 2 (prior centred on
        1), and so is a never-seen player's in every forecast. Needs a
        ``period`` column to tell debuts in training; without one neither is
        in the fitted model (``layout_.options.debut`` is False). ``"auto"``
        (the default) leaves both out unless ``part_selection="forward"`` and
        the table (two periods or more) shows they forecast its own latest
        periods better.
    debut_loc : float, default 0.0
        Mean of the normal prior on the debut offset (``debut=True``).
    debut_scale : float, default 0.5
        Standard deviation of the normal prior on the debut offset.
    period_offset : bool, default False
        Shift each player's skill in each rating period by an effect of its
        own, pooled by its own spread (``log_sd_period_loc``,
        ``log_sd_period_scale``): a player's form in one tournament. A
        forecast for a period never seen in fit integrates the new offsets
        out. Needs a ``period`` column; without one the offsets are left out
        of the fitted model.
    log_sd_period_loc : float, default -1.5
        Mean of the prior on the log of the per-period offsets' spread
        (``period_offset=True``).
    log_sd_period_scale : float, default 0.5
        Standard deviation of the prior on the log of the per-period offsets' spread.
    experience : bool, default False
        Move each player's skill by how many rating periods they played before
        the match's period: none or one (the baseline, 0), two or three, four to
        seven, eight or more, each level's effect pooled by its own spread
        (``log_sd_experience_loc``, ``log_sd_experience_scale``): a learning
        curve, ``experience`` in the posterior. A player never seen in fit has
        played none before any forecast; a seen player's forecast counts every
        training period they played. With ``debut=True`` the debut offset tells
        a first period from a second. Needs a ``period`` column; without one
        the effect is left out of the fitted model.
    log_sd_experience_loc : float, default -1.0
        Mean of the prior on the log of the experience effects' spread
        (``experience=True``).
    log_sd_experience_scale : float, default 0.5
        Standard deviation of the prior on the log of the experience effects' spread.
    part_selection : {"none", "forward"}, default "none"
        How the ``"auto"`` parts (``debut``, ``time_varying``) are decided.
        ``"none"``: they are off, the static model (the parts did not pass the
        rule for changing a default, see [Choosing a model](../model-choice.md)).
        ``"forward"``: by the table's own evidence. Every combination of the
        parts the table can hold is fitted (2 chains of 250 draws, never more
        than the fit's own) on the matches before each of its last three
        rating periods and forecasts that period; a part is in the fitted
        model only when the richer model's forward log score beats the model
        without it by more than two standard errors (`part_evidence_` keeps
        the table). It costs about one more fit. Parts set to True or False
        are never tested.
    draws : int, default 1000
        Posterior draws kept per chain. ``fit`` refuses, before sampling,
        ``chains * draws`` whose draws would not fit in the memory available.
    tune : int, default 1000
        Tuning steps per chain, discarded.
    chains : int, default 4
        Independent Markov chains; the convergence checks compare them.
    target_accept : float, default 0.8
        NUTS target acceptance rate; raise it if there are divergences.
    sampler : {"auto", "nutpie", "pymc"}, default "auto"
        ``"auto"`` uses nutpie when installed (``pip install skcodex[fast]``),
        otherwise PyMC's NUTS.
    random_state : int, RandomState instance or None, default None
        Seeds the sampler and the draws for levels never seen in fit.
    progressbar : bool, default False
        Show the sampler's progress bar.
    catalogue : Catalogue, PlainCatalogue or None, default None
        What deck strings are read against. By default the training table's own
        ``X.attrs["catalogue"]`` (a table from
        `skcodex.datasets.load_codex_matches` carries it), else base Codex. A
        `skcodex.codex.PlainCatalogue` reads another game's plain notation
        (``starter/component/...``). Decks given as `skcodex.codex.Deck`
        values need no catalogue.
    cores : int or None, default None
        Chains run in parallel on this many cores (None: as many as allowed).
    method : {"nuts", "advi"}, default "nuts"
        ``"advi"`` replaces MCMC by ``draws * chains`` independent draws from a
        variational approximation fitted on minibatches (PyMC's ADVI, with
        iterate averaging): minutes instead of hours for very large tables.

    Attributes
    ----------
    classes_ : ndarray of shape (2,) or (3,)
        ``[0, 1]``: column 1 of `predict_proba` is P(player 1 wins). Fitted
        on outcomes with a draw (0.5), ``[0, 0.5, 1]``: the columns are
        P(player 2 wins), P(draw), P(player 1 wins) (see `draw_`).
    idata_ : arviz.InferenceData or xarray.DataTree
        The posterior's one home: an ``InferenceData`` under ArviZ 0.x, a
        ``DataTree`` under ArviZ 1.x, with the groups ``posterior`` (the
        spread parameters, ``sd`` and every effect block, with named
        coordinates ``player``, ``starter1``, ``starter2``, ``spec1``,
        ``spec2``, ``spread`` and, with the skill walk, ``epoch``; draws in
        single precision), ``sample_stats``, ``log_likelihood`` (for
        PSIS-LOO), ``observed_data`` and ``constant_data``. ArviZ's own
        functions (``summary``, ``ess``, ``rhat``, ``loo``, ``plot_forest``)
        work on it; skcodex reads it on either line of ArviZ (0.x and 1.x).
    vocabulary_ : skcodex.data.Vocabulary
        Players, starters and specs seen in fit.
    catalogue_ : Catalogue or None
        The catalogue the training decks were read against (``catalogue``, or
        the table's ``X.attrs["catalogue"]``); later tables without a catalogue
        of their own are read against it.
    layout_ : Layout
        The model as it was sampled: its options (the extensions switched
        on), its sizes, and where each effect sits in the flat effect vector.
        ``layout_.static()`` (the same layout without the skill walk) is the
        layout of `effect_draws_`.
    effect_draws_ : ndarray of shape (n_draws, n_effects)
        Every effect for every posterior draw (the flat ``theta`` of
        ``layout_.static()``):
        a view computed from ``idata_`` on first use and kept in memory, never
        stored or saved separately.
    spread_draws_ : ndarray of shape (n_draws, n_spreads)
        The spreads per draw (player, stst, stsp, spsp, then those of the
        optional blocks switched on: syn, fam, step); a view of ``idata_``.
    convergence_problems_ : list of str
        Failed convergence checks (empty when R-hat, ESS and divergences are fine).
    part_evidence_ : pandas.DataFrame or None
        How the ``"auto"`` parts were decided (``part_selection="forward"``):
        one row per candidate model (``candidate``, its ``parts``), the
        forecast ``matches`` of the table's latest periods, each candidate's
        mean forward ``log score`` and ``brier``, its summed ``log score -
        simplest`` with its standard error ``se``, and which was ``chosen``;
        ``attrs["note"]`` says why a table too short to test on kept the
        simplest model. None when no part was ``"auto"`` or could be on.

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

    #: The fitted attributes a saved file holds (see `skcodex._format.persistence`).
    _persisted_state: ClassVar[tuple[str, ...]] = (
        "classes_",
        "idata_",
        "vocabulary_",
        "catalogue_",
        "layout_",
        "_unseen_seed",
        "feature_names_in_",
        "n_features_in_",
        "convergence_problems_",
        "part_evidence_",
    )
    #: Fitted attributes files of earlier versions may lack (None when absent).
    _optional_state: ClassVar[tuple[str, ...]] = ("part_evidence_",)

    _parameter_constraints: ClassVar[dict] = {
        # Prior bounds on the log of a spread: a loc of +-10 is a spread of e^10 (20,000
        # log-odds) or e^-10; a scale below 1e-3 pins the spread (and makes the sampler's
        # step sizes underflow), one above 5 spans e^+-15 within 3 scales.
        **{f"{name}_loc": [Interval(Real, -10, 10, closed="both")] for name in _PRIOR_PARAMS},
        **{f"{name}_scale": [Interval(Real, 1e-3, 5, closed="both")] for name in _PRIOR_PARAMS},
        "time_varying": ["boolean", StrOptions({"auto"})],
        "step_prior": [StrOptions({"exponential", "lognormal"})],
        # a mean step of 1e-3 log-odds pins the walk at none; one of 5 is a coin toss a period
        "sd_step_mean": [Interval(Real, 1e-3, 5, closed="both")],
        "synergy": ["boolean"],
        "familiarity": ["boolean"],
        "prior": [StrOptions(set(PRIORS))],
        "first_move": ["boolean"],
        "symmetric": ["boolean"],
        "debut": ["boolean", StrOptions({"auto"})],
        "period_offset": ["boolean"],
        "experience": ["boolean"],
        "part_selection": [StrOptions({"forward", "none"})],
        "draws": [Interval(Integral, 1, None, closed="left")],
        "tune": [Interval(Integral, 0, None, closed="left")],
        "chains": [Interval(Integral, 1, None, closed="left")],
        "target_accept": [Interval(Real, 0, 1, closed="neither")],
        "sampler": [StrOptions(set(SAMPLERS))],
        "method": [StrOptions(set(METHODS))],
        "random_state": ["random_state"],
        "progressbar": ["boolean"],
        "catalogue": [Catalogue, PlainCatalogue, None],
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
        time_varying: bool | str = "auto",
        synergy: bool = False,
        familiarity: bool = False,
        prior: str = "lognormal",
        log_sd_syn_loc: float = -1.5,
        log_sd_syn_scale: float = 0.5,
        log_sd_fam_loc: float = -2.0,
        log_sd_fam_scale: float = 0.5,
        log_sd_step_loc: float = -2.0,
        log_sd_step_scale: float = 0.25,
        step_prior: str = "lognormal",
        sd_step_mean: float = 0.15,
        log_total_loc: float = 0.5,
        log_total_scale: float = 0.5,
        first_move: bool = False,
        first_move_loc: float = 0.0,
        first_move_scale: float = 0.5,
        symmetric: bool = False,
        debut: bool | str = "auto",
        debut_loc: float = 0.0,
        debut_scale: float = 0.5,
        period_offset: bool = False,
        log_sd_period_loc: float = -1.5,
        log_sd_period_scale: float = 0.5,
        experience: bool = False,
        log_sd_experience_loc: float = -1.0,
        log_sd_experience_scale: float = 0.5,
        part_selection: str = "none",
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
        self.step_prior = step_prior
        self.sd_step_mean = sd_step_mean
        self.log_total_loc = log_total_loc
        self.log_total_scale = log_total_scale
        self.first_move = first_move
        self.first_move_loc = first_move_loc
        self.first_move_scale = first_move_scale
        self.symmetric = symmetric
        self.debut = debut
        self.debut_loc = debut_loc
        self.debut_scale = debut_scale
        self.period_offset = period_offset
        self.log_sd_period_loc = log_sd_period_loc
        self.log_sd_period_scale = log_sd_period_scale
        self.experience = experience
        self.log_sd_experience_loc = log_sd_experience_loc
        self.log_sd_experience_scale = log_sd_experience_scale
        self.part_selection = part_selection
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
        """The model extensions the parameters switch on.

        An ``"auto"`` part is read from the fitted model (``layout_.options``)
        once fitted, and counts as off before: a fit decides it from the
        training table.
        """
        return self._declared_options(getattr(self, "layout_", None))

    def _declared_options(self, fitted: Layout | None) -> ModelOptions:
        """`options`, each ``"auto"`` part read from ``fitted`` (None: counted as off)."""

        def chosen(name: str) -> bool:
            value = getattr(self, name)
            if isinstance(value, str):  # "auto"
                return fitted is not None and bool(getattr(fitted.options, name))
            return bool(value)

        return ModelOptions(
            time_varying=chosen("time_varying"),
            synergy=bool(self.synergy),
            familiarity=bool(self.familiarity),
            prior=self.prior,
            first_move=bool(self.first_move),
            symmetric=bool(self.symmetric),
            debut=chosen("debut"),
            period_offset=bool(self.period_offset),
            experience=bool(self.experience),
        )

    @property
    def priors(self) -> SpreadPriors:
        """The spread priors the parameters describe, in the model's order.

        Once fitted, those of the spreads the fitted model has (`Layout.prior_names`:
        decks without specs have no spec spreads); before, every one the options
        switch on.
        """
        layout = getattr(self, "layout_", None)
        return self._priors_for(self.options if layout is None else layout)

    def _priors_for(self, options: ModelOptions | Layout) -> SpreadPriors:
        """The priors the parameters give each entry of ``options.prior_names``."""
        names = [_PRIOR_PARAMS_BY_NAME[n] for n in options.prior_names]
        loc = [float(getattr(self, f"{n}_loc")) for n in names]
        scale = [float(getattr(self, f"{n}_scale")) for n in names]
        family = ["lognormal"] * len(names)
        if self.step_prior == "exponential" and "step" in options.prior_names:
            # the walk's step spread: Exponential of mean sd_step_mean (mode 0: no drift)
            at = options.prior_names.index("step")
            loc[at], scale[at], family[at] = float(np.log(self.sd_step_mean)), 1.0, "exponential"
        return SpreadPriors(loc=tuple(loc), scale=tuple(scale), family=tuple(family))

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: pd.DataFrame, y: Any, *, luck: Any = None) -> BayesianMatchupClassifier:
        """Sample the posterior given a match table and outcomes.

        A fit that fails (bad input, a sampler error, an interrupt) leaves a
        previously fitted estimator exactly as it was.

        Parameters
        ----------
        X : pandas.DataFrame
            The match table: ``player1``, ``player2`` (player 1 moved first),
            ``deck1``, ``deck2``; optional ``period``, ``date``.
        y : array-like of shape (n_matches,)
            1 (or True) where player 1 won, 0 (or False) where player 2 won;
            0.5 for a draw, in games that have them: the model then learns a
            draw threshold (docs: "Draws"; NUTS only, without ``luck``).
        luck : array-like of shape (n_matches,), optional
            Each match's estimated net luck for player 1 on the win-probability
            scale (see `skcodex.luck`). The model is then fitted to the
            luck-adjusted outcomes ``y - luck`` through the binomial
            quasi-likelihood, which stays valid outside [0, 1].

        Returns
        -------
        self
            The fitted estimator.
        """
        table, catalogue = checked_with_catalogue(X, self.catalogue)
        table = spelled_alike(table, catalogue)
        observed = draws_model.checked_outcome(y, len(table))
        drawn = draws_model.has_draws(observed)
        if drawn:
            draws_model.check_can_fit(self, luck)
        luck = None if luck is None else check_luck(luck, len(table))
        outcome = observed if luck is None else adjust_for_luck(table, observed, luck)
        time = TimeOrder.of(table)  # the one time the fit orders the table in time
        vocab = Vocabulary.from_table(table, time=time)
        codes = encode(table, vocab, time=time)
        rng = check_random_state(self.random_state)
        seed, never_seen_seed, select_seed = (int(s) for s in rng.randint(0, 2**31 - 1, size=3))
        model_options, evidence = self._resolved_options(
            table,
            codes,
            # with draws an "auto" part stays off: the forward evidence scores wins only
            None
            if drawn
            else lambda parts: self._forward_evidence(table, observed, luck, parts, select_seed),
        )
        model_options = dataclasses.replace(model_options, draws=drawn)
        layout = self._training_layout(vocab, codes, model_options)
        periods = period_labels(table, time=time) if "period" in table.columns else []
        problem = FitProblem(
            index=layout.index_matrix(codes),
            outcome=outcome,
            layout=layout,
            priors=self._priors_for(layout),
            sampling=self._sampling_options(seed),
            method=self.method,
            level_names=fitting.level_names(vocab, layout, periods),
        )
        idata = fitting.run(problem)
        # MCMC diagnostics (R-hat, ESS, divergences) apply to NUTS draws; the approximate
        # methods check their own optimisation and warn from fit_approximate.
        problems = warn_if_not_converged(idata, layout) if self.method == "nuts" else []
        columns = np.asarray(table.columns, dtype=object)
        # Every fitted attribute at once: an earlier fit stays whole until this line.
        self.__dict__.update(
            idata_=idata,
            vocabulary_=vocab,
            catalogue_=catalogue,
            layout_=layout,
            _unseen_seed=never_seen_seed,
            classes_=draws_model.CLASSES.copy() if drawn else np.array([0, 1]),
            feature_names_in_=columns,
            n_features_in_=len(columns),
            convergence_problems_=problems,
            part_evidence_=evidence,
        )
        return self

    def _resolved_options(
        self, table: pd.DataFrame, codes: MatchCodes, evidence_for=None
    ) -> tuple[ModelOptions, pd.DataFrame | None]:
        """The model's parts for this training table, each ``"auto"`` part decided.

        An ``"auto"`` part can be on only where the table can hold it: the
        debut option when the table has two rating periods or more; the walk
        when it also dates every match (or has no ``date`` column), stays
        under `WALK_STEPS_SLOW` steps and the method is NUTS (the approximate
        methods have no walk). Of those, ``evidence_for(parts)`` (the forward
        evidence) decides which are on; without it
        (``part_selection="none"``) they are off. Returns the options and the
        evidence table (None when nothing was decided by evidence).
        """
        model_options = self._declared_options(None)
        has_periods = "period" in table.columns
        several = has_periods and codes.n_epochs >= 2
        feasible = {
            "debut": several,
            "time_varying": several
            and self.method == "nuts"  # the approximate methods have no walk
            and not _missing_date(table)
            and walk_size(codes)[0] < WALK_STEPS_SLOW,
        }
        auto = [name for name in ("debut", "time_varying") if getattr(self, name) == "auto"]
        tried = [name for name in auto if feasible[name]]
        evidence = None
        chosen = dict.fromkeys(auto, False)
        if tried and self.part_selection == "forward" and evidence_for is not None:
            evidence = evidence_for(tried)
            row = int(np.flatnonzero(evidence["chosen"].to_numpy())[0])
            chosen.update(part_choice.candidates(tried)[row])
        model_options = dataclasses.replace(model_options, **chosen)
        if not has_periods:  # no period: no debut to tell apart, no period to offset
            model_options = dataclasses.replace(
                model_options, debut=False, period_offset=False, experience=False
            )
        if model_options.time_varying and codes.epoch is not None:
            check_dated(table)  # a skill walk follows time: refuse a match without a date
        return model_options, evidence

    def _forward_evidence(
        self,
        table: pd.DataFrame,
        observed: np.ndarray,
        luck: np.ndarray | None,
        parts: list[str],
        seed: int,
    ) -> pd.DataFrame:
        """`_matchup.part_choice.forward_evidence` for the ``"auto"`` ``parts`` on ``table``."""
        seeds = iter(np.random.default_rng(seed).integers(0, 2**31 - 1, size=10_000))

        def fit_and_forecast(candidate: dict, train: np.ndarray, test: np.ndarray):
            # at most the fit's own chains, draws and tuning steps
            sampling = {
                k: min(v, getattr(self, k)) for k, v in part_choice.SELECTION_SAMPLING.items()
            }
            est = clone(self).set_params(
                **candidate,
                **sampling,
                part_selection="none",
                progressbar=False,
                random_state=int(next(seeds)),
            )
            with warnings.catch_warnings():
                # short chains: their convergence is not what is judged
                warnings.simplefilter("ignore")
                est.fit(
                    table.iloc[train],
                    observed[train],
                    luck=None if luck is None else luck[train],
                )
                return est.predict_proba(table.iloc[test])[:, 1]

        return part_choice.forward_evidence(table, observed, parts, fit_and_forecast)

    def _training_layout(
        self, vocab: Vocabulary, codes: MatchCodes, model_options: ModelOptions | None = None
    ) -> Layout:
        """The layout to fit: ``model_options`` (by default `options`) on ``codes``."""
        model_options = self.options if model_options is None else model_options
        if model_options.time_varying and codes.epoch is None:
            raise MatchTableError(
                "time_varying=True needs a 'period' column (rating period or tournament)"
            )
        n_epochs = max(codes.n_epochs, 2) if model_options.time_varying else 1
        walk_steps = None
        if model_options.time_varying:
            warn_if_walk_is_large(codes)
            walk_steps = walk_size(codes)[0]
        n_periods = codes.n_periods if model_options.period_offset else 0
        return Layout(
            *vocab.sizes,
            vocab.specs_per_deck,
            model_options,
            n_epochs,
            walk_steps,
            n_periods,
            column_counts=tuple((kind, c.n_levels) for kind, c in codes.columns.items()),
        )

    def _sampling_options(self, seed: int) -> SamplingOptions:
        return SamplingOptions(
            draws=self.draws,
            tune=self.tune,
            chains=self.chains,
            target_accept=self.target_accept,
            sampler=self.sampler,
            seed=seed,
            progressbar=self.progressbar,
            cores=self.cores,
        )

    # -- views of the posterior --------------------------------------------------

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
            fit_readers.effect_draws(idata, sampled), sd, sampled, self._unseen_seed
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
        draw, keyed to the levels' names (the same names give the same draws).

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
            ),
            layout,
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
        )

    def predict_outcome_draws(self, X: pd.DataFrame) -> np.ndarray:
        """Each outcome's probability per posterior draw, in `classes_` order.

        For a model fitted with draws the three outcomes (player 2 wins, a draw,
        player 1 wins); otherwise the two (player 2 wins, player 1 wins). Effects
        of never-seen levels are fresh draws from their population, keyed to the
        levels' names.

        Parameters
        ----------
        X : pandas.DataFrame
            A match table.

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

    def predict_proba_draws(self, X: pd.DataFrame) -> np.ndarray:
        """P(player 1 wins) for every posterior draw.

        Parameters
        ----------
        X : pandas.DataFrame
            The match table, with the columns of the one passed to `fit`; its
            players, starters and specs may include ones never seen in fit.

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

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        """Posterior mean probabilities, columns in `classes_` order.

        The effects of a player, starter or spec never seen in fit come from
        their population distribution, N(0, sd): for each posterior draw,
        their sum in a match is integrated out exactly by Gauss-Hermite
        quadrature, so
        the forecast carries no Monte Carlo noise from them. (In a symmetric
        game, a match reading a never-seen cell of a matchup block gets fresh
        draws instead, keyed to the levels' names, as in
        `predict_proba_draws`.) A row's forecast does not depend on the other
        rows passed with it, and repeats exactly. Memory stays bounded however
        many levels are new.

        Parameters
        ----------
        X : pandas.DataFrame
            The match table, with the columns of the one passed to `fit`; its
            players, starters and specs may include ones never seen in fit.

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

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """1 where player 1 is more likely to win than not, else 0.

        Parameters
        ----------
        X : pandas.DataFrame
            The match table, with the columns of the one passed to `fit`; its
            players, starters and specs may include ones never seen in fit.

        Returns
        -------
        ndarray of shape (n_matches,)
            1 where the posterior mean P(player 1 wins) exceeds one half, else 0.
        """
        if self._fitted_with_draws():  # the most probable of the three outcomes
            return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
        return (self.predict_proba(X)[:, 1] > 0.5).astype(np.int64)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        tags.non_deterministic = False
        # Binary outcomes only: player 1 wins or loses.
        tags.classifier_tags.multi_class = False
        return tags


#: Derived views of each fitted estimator's posterior, kept out of its state.
_VIEWS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
