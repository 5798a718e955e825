"""What the classifier's parameters say: the model's options and priors, and the fit's plan.

`ModelParameters` is the half of `skcodex.BayesianMatchupClassifier` that turns its
parameters into what a fit needs: the model's options (`options`, each ``"auto"`` part
decided by the table's forward evidence, `skcodex._matchup.part_choice`), the spread
priors (`priors`), the layout of the training table and the sampler's options. It reads
the parameters only; `fit` (in `skcodex._classifier`) calls it.
"""

from __future__ import annotations

import dataclasses
import warnings
from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.base import clone

from skcodex._compat.scikit_learn import Interval, StrOptions
from skcodex._matchup import draws as draws_model
from skcodex._matchup import part_choice, recency
from skcodex._matchup.approximation import METHODS
from skcodex._matchup.blocks import BLOCK_TABLE, SPREAD_TABLE
from skcodex._matchup.graph import PRIORS, Layout, ModelOptions, SpreadPriors
from skcodex._matchup.newcomers import NEWCOMER_SKILLS
from skcodex._matchup.sampling import SAMPLERS, SamplingOptions
from skcodex.codex import Catalogue, PlainCatalogue
from skcodex.data import MatchCodes, MatchTableError, Vocabulary, encode
from skcodex.data._catalogues import (
    WALK_STEPS_SLOW,
    checked_with_catalogue,
    spelled_alike,
    warn_if_walk_is_large,
)
from skcodex.data._codes import walk_size
from skcodex.data._table import TimeOrder, check_dated

__all__ = ["PARAMETER_CONSTRAINTS", "PRIOR_PARAMS", "FitPlan", "ModelParameters"]


def _missing_date(table: pd.DataFrame) -> bool:
    """Whether the table's ``date`` column is missing a value (no column: False)."""
    return "date" in table.columns and bool(table["date"].isna().any())


# Constructor prefixes of each prior's loc/scale, by the model's prior names; their
# defaults are `skcodex._matchup.blocks.PRIOR_DEFAULTS` (a test checks the signature agrees).
PRIOR_PARAMS_BY_NAME = {
    **{s.name: f"log_sd_{s.name}" for s in SPREAD_TABLE},
    "total": "log_total",
    **{b.name: b.name for b in BLOCK_TABLE if b.spread is None},
}
PRIOR_PARAMS = tuple(PRIOR_PARAMS_BY_NAME.values())
#: The spreads ``spec_prior`` gives its family: the spec blocks' (starter v spec, spec v spec).
SPEC_SPREADS = ("stsp", "spsp")


@dataclasses.dataclass(frozen=True)
class FitPlan:
    """What a fit samples: the model's parts and each match's weight, and why."""

    #: The model's options, each ``"auto"`` part decided.
    options: ModelOptions
    #: The forward evidence that decided the ``"auto"`` parts (None: none did).
    part_evidence: pd.DataFrame | None
    #: The half-life the matches are weighed by, in rating periods (None: no weighting).
    half_life: float | None
    #: The forward evidence that decided an ``"auto"`` half-life (None: none did).
    half_life_evidence: pd.DataFrame | None
    #: Each match's weight in the likelihood (None: one each).
    weights: np.ndarray | None


#: The constructor parameters' constraints (scikit-learn's parameter validation).
PARAMETER_CONSTRAINTS: dict = {
    # Prior bounds on the log of a spread: a loc of +-10 is a spread of e^10 (20,000
    # log-odds) or e^-10; a scale below 1e-3 pins the spread (and makes the sampler's
    # step sizes underflow), one above 5 spans e^+-15 within 3 scales.
    **{f"{name}_loc": [Interval(Real, -10, 10, closed="both")] for name in PRIOR_PARAMS},
    **{f"{name}_scale": [Interval(Real, 1e-3, 5, closed="both")] for name in PRIOR_PARAMS},
    "time_varying": ["boolean", StrOptions({"auto"})],
    "step_prior": [StrOptions({"exponential", "lognormal"})],
    # a mean step of 1e-3 log-odds pins the walk at none; one of 5 is a coin toss a period
    "sd_step_mean": [Interval(Real, 1e-3, 5, closed="both")],
    "spec_prior": [StrOptions({"exponential", "lognormal"})],
    "synergy": ["boolean"],
    "familiarity": ["boolean"],
    "prior": [StrOptions(set(PRIORS))],
    "first_move": ["boolean"],
    "symmetric": ["boolean"],
    "debut": ["boolean", StrOptions({"auto"})],
    "newcomer_skill": [StrOptions(set(NEWCOMER_SKILLS))],
    "period_offset": ["boolean"],
    "experience": ["boolean"],
    "part_selection": [StrOptions({"forward", "none"})],
    # a half-life of 1e-3 periods weighs all but the latest period at nothing
    "half_life": [Interval(Real, 1e-3, None, closed="left"), StrOptions({"auto"}), None],
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


class ModelParameters:
    """The model's options, priors and fit plan from the estimator's parameters (a mixin)."""

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
            signed_spreads="exponential" in (self.step_prior, self.spec_prior),
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
        names = [PRIOR_PARAMS_BY_NAME[n] for n in options.prior_names]
        loc = [float(getattr(self, f"{n}_loc")) for n in names]
        scale = [float(getattr(self, f"{n}_scale")) for n in names]
        family = ["lognormal"] * len(names)
        if self.step_prior == "exponential" and "step" in options.prior_names:
            # the walk's step spread: Exponential of mean sd_step_mean (mode 0: no drift)
            at = options.prior_names.index("step")
            loc[at], scale[at], family[at] = float(np.log(self.sd_step_mean)), 1.0, "exponential"
        if self.spec_prior == "exponential":
            if self.prior == "balanced":
                raise ValueError(
                    'spec_prior="exponential" needs prior="lognormal": the balanced prior '
                    "shares one total spread out among the decks' spreads"
                )
            # the spec blocks' spreads: Exponential of mean exp(loc) (mode 0: no effect)
            for at, name in enumerate(options.prior_names):
                if name in SPEC_SPREADS:
                    scale[at], family[at] = 1.0, "exponential"
        return SpreadPriors(loc=tuple(loc), scale=tuple(scale), family=tuple(family))

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

    @staticmethod
    def _training_codes(table: pd.DataFrame) -> tuple[TimeOrder, Vocabulary, MatchCodes]:
        """The checked ``table``'s time order, vocabulary and codes: the one time a fit
        orders the table in time."""
        time = TimeOrder.of(table)
        vocab = Vocabulary.from_table(table, time=time)
        return time, vocab, encode(table, vocab, time=time)

    def _forward_fits(self, X: pd.DataFrame, y=None) -> tuple[list[np.ndarray], int, dict]:
        """The short fits a fit of ``X`` makes for its forward evidence, before it fits.

        Returns the training rows of each forward fold, the candidates fitted on
        each (the ``"auto"`` parts' combinations the table can hold, then the
        ``"auto"`` half-lives, the parts taken as the simplest) and their sampling
        (`part_choice.SELECTION_SAMPLING`, at most the fit's own): ``([], 0, {})``
        when the fit decides nothing by evidence. ``y`` (optional) tells a table
        with draws, whose parts are not decided.
        """
        if self.part_selection != "forward":
            return [], 0, {}
        if y is not None and draws_model.has_draws(np.asarray(y, dtype=float)):
            return [], 0, {}
        table, catalogue = checked_with_catalogue(X, self.catalogue)
        _, _, codes = self._training_codes(spelled_alike(table, catalogue))
        tried: list[str] = []

        def simplest_of(combos: list) -> pd.DataFrame:  # evidence choosing the first candidate
            return pd.DataFrame({"chosen": [True] + [False] * (len(combos) - 1)})

        def record(parts: list[str]) -> pd.DataFrame:
            tried.extend(parts)
            return simplest_of(part_choice.candidates(parts))

        options, _ = self._resolved_options(table, codes, record)
        _, half_lives = self._resolved_half_life(codes, options, simplest_of)
        parts = len(part_choice.candidates(tried)) if tried else 0
        # "no weighting" reuses the chosen parts' forecasts when there are any
        weightings = 0 if half_lives is None else len(half_lives) - (1 if parts else 0)
        fits = parts + weightings
        if not fits:  # without a period column no part or half-life is tried
            return [], 0, {}
        from skcodex.model_selection import TournamentSplit

        folds, _ = part_choice._folds(table, TournamentSplit)
        return [train for train, _ in folds], fits, self._selection_sampling()

    def _selection_sampling(self) -> dict:
        """The candidates' sampling: `part_choice.SELECTION_SAMPLING`, at most the fit's own."""
        return {k: min(v, getattr(self, k)) for k, v in part_choice.SELECTION_SAMPLING.items()}

    def _fit_plan(
        self,
        table: pd.DataFrame,
        codes: MatchCodes,
        observed: np.ndarray,
        luck: np.ndarray | None,
        weights: np.ndarray | None,
        seed: int,
    ) -> FitPlan:
        """The model's parts and the matches' weights for a fit on ``table``.

        Each ``"auto"`` part, then an ``"auto"`` half-life (with the parts as
        chosen), is decided by the table's forward evidence when
        ``part_selection="forward"``; with draws among the outcomes they stay off
        (the forward evidence scores wins only). ``weights`` (the user's
        ``sample_weight``, checked) are multiplied by the recency weights.
        """
        if isinstance(self.half_life, (bool, np.bool_)):  # a Real to scikit-learn's check
            raise ValueError(
                "half_life is a number of rating periods, 'auto' or None, "
                f"got {self.half_life!r}: half_life='auto' lets the table decide"
            )
        if self.half_life == "auto" and self.part_selection != "forward":
            warnings.warn(
                "half_life='auto' is decided by the table's forward evidence, which "
                "part_selection='none' skips: every match counts alike "
                "(part_selection='forward' decides it)",
                UserWarning,
                stacklevel=4,
            )
        if self.method != "nuts":
            if weights is not None:
                raise ValueError(f"sample_weight needs method='nuts', got method={self.method!r}")
            if self.half_life not in (None, "auto"):
                raise ValueError(f"half_life needs method='nuts', got method={self.method!r}")
        if self.half_life not in (None, "auto") and "period" not in table.columns:
            raise MatchTableError(
                "half_life counts a match's age in rating periods: it needs a 'period' column"
            )
        evidence_for = None
        if self.part_selection == "forward" and not draws_model.has_draws(observed):
            forecaster = self._candidate_forecaster(table, observed, luck, seed, weights)

            def evidence_for(combos: list[dict]) -> pd.DataFrame:
                return part_choice.candidate_evidence(table, observed, combos, forecaster)

        model_options, part_evidence = self._resolved_options(
            table,
            codes,
            None if evidence_for is None else lambda p: evidence_for(part_choice.candidates(p)),
        )
        half_life, half_life_evidence = self._resolved_half_life(codes, model_options, evidence_for)
        recent = recency.recency_weights(codes, half_life)
        return FitPlan(
            model_options,
            part_evidence,
            half_life,
            half_life_evidence,
            recency.weighted(weights, recent),
        )

    def _resolved_half_life(
        self, codes: MatchCodes, model_options: ModelOptions, evidence_for=None
    ) -> tuple[float | None, pd.DataFrame | None]:
        """The half-life the fit weighs matches by (None: none), and its evidence.

        ``"auto"`` tries `recency.HALF_LIVES` against no weighting, with the
        ``"auto"`` parts as already decided, where the table has two epochs or
        more and ``evidence_for`` (the forward evidence) is given; otherwise
        there is no weighting.
        """
        if self.half_life != "auto":
            return (None if self.half_life is None else float(self.half_life)), None
        if evidence_for is None or codes.n_epochs < 2 or self.method != "nuts":
            return None, None
        parts = {
            name: bool(getattr(model_options, name))
            for name in ("debut", "time_varying")
            if getattr(self, name) == "auto"
        }
        combos = recency.candidates(parts)
        evidence = evidence_for(combos)
        row = int(np.flatnonzero(evidence["chosen"].to_numpy())[0])
        return combos[row]["half_life"], evidence

    def _candidate_forecaster(
        self,
        table: pd.DataFrame,
        observed: np.ndarray,
        luck: np.ndarray | None,
        seed: int,
        weights: np.ndarray | None,
    ):
        """``fit_and_forecast(candidate, train, test)`` for `part_choice`'s evidence.

        Each candidate is this estimator with the candidate's parameters, fitted
        with short chains (`part_choice.SELECTION_SAMPLING`, at most the fit's own)
        on the rows ``train`` of ``table``; it returns P(player 1 wins) for the rows
        ``test``. A candidate already fitted on the same rows (the parts' choice,
        then the half-life's simplest candidate) is not fitted again.
        """
        seeds = iter(np.random.default_rng(seed).integers(0, 2**31 - 1, size=10_000))
        done: dict = {}
        sampling = self._selection_sampling()

        def fit_and_forecast(candidate: dict, train: np.ndarray, test: np.ndarray):
            if self.half_life == "auto":  # a candidate without a half-life: no weighting
                candidate = {"half_life": None, **candidate}
            key = (*sorted(candidate.items()), train.tobytes(), test.tobytes())
            if key not in done:
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
                        sample_weight=None if weights is None else weights[train],
                    )
                    done[key] = est.predict_proba(table.iloc[test])[:, 1]
            return done[key]

        return fit_and_forecast

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
        layout = Layout(
            *vocab.sizes,
            vocab.specs_per_deck,
            model_options,
            n_epochs,
            walk_steps,
            n_periods,
            column_counts=tuple((kind, c.n_levels) for kind, c in codes.columns.items()),
            walk_anchor="first played" if model_options.time_varying else "first period",
        )
        if model_options.signed_spreads and not self._priors_for(layout).exponential.any():
            # no spread this table has takes an exponential prior (a walk's step without a
            # walk, spec spreads without specs): it fits exactly as without the option
            return self._training_layout(
                vocab, codes, dataclasses.replace(model_options, signed_spreads=False)
            )
        return layout

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
