"""The matchup model's posterior for very large match tables: variational inference.

NUTS explores the posterior faithfully, but each of its thousands of draws
takes tens of gradient evaluations over every match; with hundreds of
thousands of matches and thousands of players that is hours. Automatic
differentiation variational inference (ADVI, Kucukelbir et al. 2017) instead
fits a normal distribution with a diagonal covariance to the posterior of
every free parameter (the unconstrained spread parameters and the
standard-normal effects ``z``, the parameterisation NUTS samples), by
stochastic gradient ascent on the evidence lower bound.

This is PyMC's own ADVI (``pm.fit(method="advi")``, Adam step sizes) on the
model of `skcodex._matchup.graph.build_model` reading a minibatch of matches per step,
whose log-likelihood is scaled up to the whole table (the likelihood is a
potential, the binomial quasi-likelihood that also takes luck-adjusted
outcomes, so the scale is set by hand), so a step costs the same whatever the
size of the table. Three things are added to PyMC's fit:

- **Minibatches without replacement.** A callback sets the next step's rows:
  consecutive slices of a fresh shuffle of the table, so every match is read
  once per pass. (``pm.Minibatch`` draws rows independently at every step,
  which left about twice as much noise in the averaged parameters on the
  200,000-match benchmark.)

- **Iterate averaging.** The approximation's parameters (means and PyMC's
  ``rho``) are averaged over the last third of the steps (Polyak averaging),
  which removes most of the noise the minibatches leave in the last iterate;
  the averages are the result.
- **A convergence check.** If the average over the first half of that window
  lies further from the average over the second half than `TOLERANCE`
  posterior standard deviations (root mean square over the parameters), fit
  warns with a ConvergenceWarning.

Draws from the approximation go through the model's own deterministics, so
they have the same variables, shapes and dimension names as the NUTS
posterior and every prediction and analysis works on them unchanged.

Why not a Laplace approximation around the posterior mode? In this
parameterisation the joint mode of ``(log sd, z)`` is not where the posterior
mass is: shrinking ``z`` and growing ``sd`` leaves ``theta`` unchanged and
raises the N(0, 1) density of ``z``, so the mode sits at far too large spreads
(about 20 times the truth for the player spread on 200,000 synthetic matches),
which makes forecasts for never-seen players nearly certain. The centred
parameterisation has the opposite fault, a mode at zero spread when each
level has few matches. The ELBO's entropy term accounts for the volume that
the mode ignores.

Mean-field ADVI understates posterior uncertainty (it ignores correlations
between effects) and, worse, shrinks the spreads of effect blocks whose levels
the data pin down only weakly: in this parameterisation a block's effects are
``z * sd``, and a diagonal normal cannot follow the posterior's trade-off
between ``sd`` and its ``z``, so its optimum puts ``sd`` near zero and leaves
the ``z`` at their prior. After a mean-field fit, `shrunk_blocks` finds the
blocks in that state from the fit itself (their ``z`` kept most of their prior
spread) and fit warns with an `ApproximationWarning` naming them.
A normal with a full covariance matrix (PyMC's ``FullRankADVI``,
``advi_posterior(..., full_rank=True)``) could follow those correlations, but
on the 773 free parameters of a 40-player metagame it was slower than NUTS
and, after 1,500 steps, further from it (``benchmarks/advi_spreads.py``
measures both against NUTS and the truth; [Speed](../speed.md) has the table), so it
is not offered as a ``method``.

Draws from either approximation are independent, so they come as one chain of
``draws * chains`` draws. It is a tool for tables too large for NUTS; check it
against NUTS on a subsample, as ``benchmarks/large_data.py`` does.
"""

from __future__ import annotations

import logging
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from skcodex._compat import posterior
from skcodex._matchup.compile_cache import ieee_float_math
from skcodex._matchup.graph import Layout, build_model
from skcodex._matchup.sampling import FitProblem

__all__ = [
    "APPROXIMATIONS",
    "METHODS",
    "ApproximationWarning",
    "advi_posterior",
    "fit_approximate",
    "shrunk_blocks",
]

#: Every value of `BayesianMatchupClassifier`'s ``method``.
METHODS = ("nuts", "advi")
#: The approximate methods this module implements.
APPROXIMATIONS = ("advi",)

#: Matches per minibatch (smaller tables are used whole at every step).
BATCH_SIZE = 10_000
#: Optimisation steps.
STEPS = 6_000
#: Adam's learning rate.
LEARNING_RATE = 0.02
#: How far (in posterior standard deviations, root mean square over the
#: parameters) the averaged parameters may move between the last two sixths of
#: the steps before a ConvergenceWarning is issued.
TOLERANCE = 0.1
#: The approximation's standard deviation of every parameter at the start.
START_SD = float(np.exp(-2.0))
#: A block's spread counts as shrunk by mean-field ADVI when the approximate posterior
#: sd of its standard normals ``z`` (the root mean square over the levels the matches
#: read) is above this: the data then barely move them from their N(0, 1) prior. On
#: the 5,000-match metagame of ``benchmarks/advi_spreads.py`` the three deck blocks
#: had 0.82 (stst), 0.77 (stsp), 0.95 (spsp) and spreads 48%, 24% and 61% below
#: NUTS's (stsp's effect sds 29% below); the player block had 0.19 and its spread 10%
#: below. The threshold was chosen on that one benchmark.
SHRUNK_Z_SD = 0.75


class ApproximationWarning(UserWarning):
    """The fitted approximation is known to understate part of the posterior."""


class _Batches:
    """A ``pm.fit`` callback choosing the next step's minibatch: slices of a fresh shuffle.

    Every match is read once per pass through the table (sampling without
    replacement), which leaves far less noise in the averaged parameters than
    independent random minibatches.
    """

    def __init__(self, rows, n: int, size: int, rng: np.random.Generator) -> None:
        self.rows, self.n, self.size, self.rng = rows, n, size, rng
        self.order, self.at = rng.permutation(n), 0
        self.rows.set_value(self.order[: self.size])

    def __call__(self, approx, losses, i) -> None:
        self.at += self.size
        if self.at + self.size > self.n:
            self.order, self.at = self.rng.permutation(self.n), 0
        self.rows.set_value(self.order[self.at : self.at + self.size])


class _Averager:
    """A ``pm.fit`` callback summing the approximation's parameters over the last third."""

    def __init__(self, steps: int) -> None:
        self.first = steps - steps // 3  # steps after this one are averaged
        self.middle = self.first + (steps // 3) // 2
        self.steps = steps
        self.sums: dict[str, list[np.ndarray]] = {}

    def __call__(self, approx, losses, i) -> None:
        # PyMC calls back after each step with i = 1, 2, ... (the step just taken)
        if i <= self.first:
            return
        half = 0 if i <= self.middle else 1
        for name, shared in approx.params_dict.items():
            value = shared.get_value()
            pair = self.sums.setdefault(name, [np.zeros_like(value), np.zeros_like(value)])
            pair[half] += value

    def result(self, approx) -> float:
        """Set the approximation to the averages; return how far the two halves lie apart."""
        n_early = self.middle - self.first
        n_late = self.steps - self.middle
        for name, shared in approx.params_dict.items():
            early, late = self.sums[name]
            shared.set_value((early + late) / (n_early + n_late))
            if name == "mu":
                moved = (late / n_late - early / n_early) / np.asarray(approx.std.eval())
        return float(np.sqrt(np.mean(moved**2)))


def advi_posterior(
    problem: FitProblem,
    *,
    full_rank: bool = False,
    steps: int | None = None,
    batch_size: int | None = None,
    learning_rate: float | None = None,
):
    """Draws from an ADVI approximation of the model's posterior.

    Parameters
    ----------
    problem : FitProblem
        One row per match (not `FitProblem.collapsed`: the minibatches draw
        matches), any layout without the time-varying skill walk. Of its
        sampling options, ``draws * chains`` independent draws are made and
        ``seed`` seeds the optimisation, the minibatches and the draws; the
        others do not apply.
    full_rank : bool, default False
        Fit a normal with a full covariance matrix (PyMC's ``FullRankADVI``)
        instead of a diagonal one (``ADVI``, mean-field). Its cost per step
        grows with the square of the number of parameters; measured, not offered
        as a ``method`` (see the module's notes).
    steps : int, optional
        Optimisation steps, at least 6 (default `STEPS`).
    batch_size : int, optional
        Matches per step, all of them when the table is smaller (default `BATCH_SIZE`).
    learning_rate : float, optional
        Adam's step size (default `LEARNING_RATE`).

    Returns
    -------
    dict of str to xarray.Dataset
        A ``posterior`` group with one chain and the same variables and
        dimensions as the NUTS posterior; its attributes record the method
        and the optimisation's settings and diagnostics.

    Warns
    -----
    ConvergenceWarning
        If the averaged parameters still moved by more than `TOLERANCE`
        posterior standard deviations between the last two sixths of the steps.
    """
    import pymc as pm
    import pytensor

    index, y, layout = problem.index, problem.outcome, problem.layout
    options = problem.sampling
    if problem.trials is not None:
        raise ValueError("ADVI draws minibatches of matches: give one index row per match")
    if problem.weights is not None:
        raise ValueError("method='advi' does not support sample_weight; use method='nuts'")
    if layout.options.time_varying:
        raise ValueError(
            "method='advi' does not support time_varying=True (the skill walk); use method='nuts'"
        )
    steps = STEPS if steps is None else int(steps)
    if steps < 6:
        raise ValueError(f"ADVI needs at least 6 steps, got {steps}")
    batch_size = min(BATCH_SIZE if batch_size is None else int(batch_size), len(y))
    learning_rate = LEARNING_RATE if learning_rate is None else float(learning_rate)
    method = "fullrank_advi" if full_rank else "advi"
    rng = np.random.default_rng(options.seed)
    seeds = rng.integers(0, 2**31 - 1, size=2)
    rows = pytensor.shared(np.arange(batch_size, dtype=np.int64), name="batch_rows")
    model = build_model(index, y, layout, problem.priors, batch_rows=rows)
    batches = _Batches(rows, len(y), batch_size, rng)
    averager = _Averager(steps)
    quiet = logging.getLogger("pymc.variational.inference")
    level = quiet.level
    quiet.setLevel(logging.WARNING)  # not PyMC's "Finished [100%]: Average Loss" line
    try:
        with model, ieee_float_math():
            inference = _inference(model, full_rank, int(seeds[0]))
            approx = inference.fit(
                n=steps,
                obj_optimizer=pm.adam(learning_rate=learning_rate),
                callbacks=[batches, averager],
                progressbar=False,
            )
    finally:
        quiet.setLevel(level)
    if not np.all(np.isfinite(approx.hist)):
        raise FloatingPointError(
            "the variational objective is not finite; check the data and priors"
        )
    moved = averager.result(approx)
    if moved > TOLERANCE:
        warnings.warn(
            "the variational approximation may not have converged: its parameters still "
            f"moved by {moved:.2f} posterior standard deviations over the last steps. "
            "Use more steps (skcodex._matchup.approximation.advi_posterior) or method='nuts'.",
            ConvergenceWarning,
            stacklevel=3,
        )
    n_draws = int(options.draws) * int(options.chains)
    with model, ieee_float_math(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        drawn = approx.sample(n_draws, random_seed=int(seeds[1]))
    post = posterior.group(drawn, "posterior")
    keep = [v for v in post.data_vars if not str(v).endswith("__")]
    out = post[keep].to_dataset() if hasattr(post[keep], "to_dataset") else post[keep]
    out = out.assign_coords(chain=[0], draw=np.arange(n_draws))
    out.attrs = {
        "inference_method": method,
        "advi_steps": steps,
        "advi_batch_size": batch_size,
        "advi_learning_rate": learning_rate,
        "advi_elbo": float(-np.mean(approx.hist[-max(1, steps // 10) :])),
        "advi_movement": moved,
    }
    return {"posterior": out}


def _inference(model, full_rank: bool, seed: int):
    """PyMC's ADVI or FullRankADVI, every parameter starting with sd `START_SD`."""
    import pymc as pm

    if not full_rank:
        return pm.ADVI(random_seed=seed, start_sigma={v.name: START_SD for v in model.value_vars})
    inference = pm.FullRankADVI(random_seed=seed)
    # The Cholesky factor's diagonal is stored through softplus; start it at START_SD.
    (group,) = inference.approx.groups
    tril = group.params_dict["L_tril"]
    start = tril.get_value()
    rows, cols = np.tril_indices(group.ddim)
    start[rows == cols] = np.log(np.expm1(START_SD))
    tril.set_value(start)
    return inference


def shrunk_blocks(post, index: np.ndarray, layout: Layout) -> list[str]:
    """The effect blocks whose spread a mean-field fit has likely shrunk towards zero.

    A diagonal normal cannot follow the posterior's trade-off between a block's
    spread ``sd`` and its standard normals ``z`` (the effects are ``z * sd``).
    Where the data pin the effects down, the ``z`` are pinned too and the
    trade-off is narrow; where they do not, the mean-field optimum puts ``sd``
    near zero and leaves the ``z`` near their N(0, 1) prior. A block is
    reported when the root mean square of its ``z``'s approximate posterior sd,
    over the levels the matches read, is above `SHRUNK_Z_SD`.

    Parameters
    ----------
    post : xarray.Dataset
        The approximation's draws, with ``z`` (dimension of length ``layout.n_free``).
    index : ndarray of int, shape (n_matches, n_columns)
        What each match reads, ``layout.index_matrix(codes)``.
    layout : Layout

    Returns
    -------
    list of str
        Names of the spreads (``layout.spreads``) of the blocks found shrunk.
    """
    z = post["z"].to_numpy().reshape(-1, layout.n_free)
    # The standard normals in the positions of theta (a symmetric block's cells read its
    # free effects with a sign, a walk sums its steps): theta at unit spreads.
    z_sd = layout.theta(z, np.ones((len(z), len(layout.spreads)))).std(axis=0)
    read = np.zeros(layout.size, dtype=bool)
    read[np.unique(index)] = True
    levels_by_spread: dict[str, list[np.ndarray]] = {}  # stsp and spst share one
    for name, spread in layout.blocks:
        if spread < 0:  # an effect without a spread
            continue
        start = layout.offsets[name]
        stop = start + int(np.prod(layout.shapes[name]))
        levels = np.flatnonzero(read[start:stop]) + start
        levels_by_spread.setdefault(layout.spreads[spread], []).append(levels)
    found = []
    for spread, parts in levels_by_spread.items():
        levels = np.concatenate(parts)
        if levels.size and np.sqrt(np.mean(z_sd[levels] ** 2)) > SHRUNK_Z_SD:
            found.append(spread)
    return found


def fit_approximate(problem: FitProblem):
    """The model's posterior by an approximate method: what ``method=`` selects in fit.

    Parameters
    ----------
    problem : FitProblem
        As for `advi_posterior`; its ``method`` is ``"advi"``, mean-field
        ADVI.

    Returns
    -------
    dict of str to xarray.Dataset
        Posterior draws (group ``posterior``) with the same variables and
        dimensions as NUTS gives.

    Warns
    -----
    ApproximationWarning
        After a mean-field fit, when `shrunk_blocks` finds blocks whose spread it
        has likely shrunk; the message names their spreads.
    """
    if problem.method not in APPROXIMATIONS:
        raise ValueError(f"method must be one of {APPROXIMATIONS}, got {problem.method!r}")
    groups = advi_posterior(problem)
    post = groups["posterior"]
    if post.attrs["inference_method"] == "advi":  # mean-field
        shrunk = shrunk_blocks(post, problem.index, problem.layout)
        if shrunk:
            names = ", ".join(f"sd_{name}" for name in shrunk)
            warnings.warn(
                f"mean-field ADVI has likely shrunk the spread(s) {names} and so "
                "underestimated those effects and their uncertainty: the data barely "
                "inform these effects one by one, and a diagonal approximation then "
                "pulls their spread towards zero. Use method='nuts' (on a subsample "
                "if the table is too large) for these spreads.",
                ApproximationWarning,
                # fit_approximate, fitting (2), the estimator's fit and scikit-learn's
                # wrapper around it: the warning points at the caller's line
                stacklevel=6,
            )
    groups["posterior"] = post.drop_vars("z")
    return groups
