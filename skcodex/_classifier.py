"""BayesianMatchupClassifier: the scikit-learn face of the hierarchical matchup model."""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state

from skcodex._compat.scikit_learn import fit_context
from skcodex._format.persistence import PersistenceMixin
from skcodex._matchup import draws as draws_model
from skcodex._matchup import fitting, newcomers
from skcodex._matchup.diagnostics import warn_if_not_converged
from skcodex._matchup.forecasts import PosteriorForecasts
from skcodex._matchup.parameters import PARAMETER_CONSTRAINTS, ModelParameters
from skcodex._matchup.sampling import FitProblem
from skcodex.codex import Catalogue
from skcodex.data import adjust_for_luck, check_luck, check_sample_weight
from skcodex.data._catalogues import checked_with_catalogue, spelled_alike
from skcodex.data._codes import period_labels

#: The seed model's priors: N(0, 0.5) on every log-spread.
SEED_PRIORS = {
    "log_sd_player_loc": 0.0,
    "log_sd_stst_loc": 0.0,
    "log_sd_stsp_loc": 0.0,
    "log_sd_spsp_loc": 0.0,
}


class BayesianMatchupClassifier(
    ModelParameters, PosteriorForecasts, PersistenceMixin, ClassifierMixin, BaseEstimator
):
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
        periods (needs a ``period`` column). A player's walk starts in the
        first period they played (a newcomer's skill is drawn from the
        population, however late they arrive) and takes a step only into the
        later periods they played, of spread ``sd_step * sqrt(gap)`` (the
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
        drift at all, so the data decide whether skills move; sampled through
        zero, it needs more draws to mix (see [Choosing a model](../model-choice.md)).
    sd_step_mean : float, default 0.15
        Mean of the exponential prior on the step spread
        (``step_prior="exponential"``).
    spec_prior : {"lognormal", "exponential"}, default "lognormal"
        The prior family of the spec blocks' spreads (starter v spec, spec v
        spec): log-normal from ``log_sd_stsp_*`` and ``log_sd_spsp_*``, or
        ``"exponential"``, each ``sd ~ Exponential`` of mean ``exp(loc)``
        (the scales unused), whose mode is no effect at all, so the data
        decide whether specs matter; sampled through zero (see
        [Choosing a model](../model-choice.md)). Only with ``prior="lognormal"``.
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
    newcomer_skill : {"late arrivals", "population"}, default "late arrivals"
        What a player never seen in fit has their skill drawn around in a
        forecast. ``"late arrivals"``: the mean skill of the training table's
        players who did not play in its first period (they joined a table that
        already existed, as a newcomer does), shrunk towards 0 by a normal prior
        of sd 0.5, with the population's spread; ``late_arrivals_`` lists them.
        ``"population"``: 0, the mean of every player. Only forecasts move
        (never the fit), and only where a never-seen player meets a seen one; a
        table without a ``period`` column has no late arrivals, and with the
        debut option the model's own debut offset is used instead (see
        [Choosing a model](../model-choice.md)).
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
    half_life : float, "auto" or None, default None
        Count recent matches more: a match ``age`` rating periods older than the
        table's latest weighs ``0.5 ** (age / half_life)`` in the likelihood
        (times its ``sample_weight``); ``half_life_`` keeps the one fitted.
        None: every match alike. ``"auto"``: 8, 4 or 2 periods or none, decided
        after the ``"auto"`` parts when ``part_selection="forward"`` (otherwise
        none; ``half_life_evidence_``). Needs a ``period`` column and NUTS.
    part_selection : {"none", "forward"}, default "none"
        How the ``"auto"`` parts (``debut``, ``time_varying``, ``half_life``) are decided.
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
    half_life_ : float or None
        The half-life, in rating periods, the matches were weighed by
        (``half_life``); None when every match counted alike.
    half_life_evidence_ : pandas.DataFrame or None
        How an ``"auto"`` half-life was decided: the columns of
        ``part_evidence_``, one row per half-life (``"no weighting"`` first).
        None when the half-life was not decided by evidence.
    late_arrivals_ : ndarray of int
        The training table's late arrivals (``newcomer_skill``): positions in
        ``vocabulary_.players`` of the players who did not play in its first
        period; empty without a ``period`` column.

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
        "late_arrivals_",
        "half_life_",
        "half_life_evidence_",
    )
    #: Fitted attributes files of earlier versions may lack (None when absent).
    _optional_state: ClassVar[tuple[str, ...]] = (
        "part_evidence_",
        "late_arrivals_",
        "half_life_",
        "half_life_evidence_",
    )

    _parameter_constraints: ClassVar[dict] = PARAMETER_CONSTRAINTS

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
        spec_prior: str = "lognormal",
        log_total_loc: float = 0.5,
        log_total_scale: float = 0.5,
        first_move: bool = False,
        first_move_loc: float = 0.0,
        first_move_scale: float = 0.5,
        symmetric: bool = False,
        debut: bool | str = "auto",
        newcomer_skill: str = "late arrivals",
        debut_loc: float = 0.0,
        debut_scale: float = 0.5,
        period_offset: bool = False,
        log_sd_period_loc: float = -1.5,
        log_sd_period_scale: float = 0.5,
        experience: bool = False,
        log_sd_experience_loc: float = -1.0,
        log_sd_experience_scale: float = 0.5,
        half_life: float | str | None = None,
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
        self.spec_prior = spec_prior
        self.log_total_loc = log_total_loc
        self.log_total_scale = log_total_scale
        self.first_move = first_move
        self.first_move_loc = first_move_loc
        self.first_move_scale = first_move_scale
        self.symmetric = symmetric
        self.debut = debut
        self.newcomer_skill = newcomer_skill
        self.debut_loc = debut_loc
        self.debut_scale = debut_scale
        self.period_offset = period_offset
        self.log_sd_period_loc = log_sd_period_loc
        self.log_sd_period_scale = log_sd_period_scale
        self.experience = experience
        self.log_sd_experience_loc = log_sd_experience_loc
        self.log_sd_experience_scale = log_sd_experience_scale
        self.half_life = half_life
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

    @fit_context(prefer_skip_nested_validation=True)
    def fit(
        self, X: pd.DataFrame, y: Any, *, luck: Any = None, sample_weight: Any = None
    ) -> BayesianMatchupClassifier:
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
        sample_weight : array-like of shape (n_matches,), optional
            How much each match counts in the likelihood, each at least 0
            (2: as much as two such matches; 0: not at all), for example more
            for recent matches (docs: "Weighting matches"). NUTS only.

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
        weights = None if sample_weight is None else check_sample_weight(sample_weight, len(table))
        outcome = observed if luck is None else adjust_for_luck(table, observed, luck)
        time, vocab, codes = self._training_codes(table)
        rng = check_random_state(self.random_state)
        seed, never_seen_seed, select_seed = (int(s) for s in rng.randint(0, 2**31 - 1, size=3))
        plan = self._fit_plan(table, codes, observed, luck, weights, select_seed)
        model_options = dataclasses.replace(plan.options, draws=drawn)
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
            weights=plan.weights,
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
            part_evidence_=plan.part_evidence,
            half_life_=plan.half_life,
            half_life_evidence_=plan.half_life_evidence,
            late_arrivals_=newcomers.late_arrivals(table, vocab.players, periods),
        )
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        tags.non_deterministic = False
        # Binary outcomes only: player 1 wins or loses.
        tags.classifier_tags.multi_class = False
        return tags
