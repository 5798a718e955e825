"""Whether a sample can be trusted: the convergence checks of a fitted posterior.

`monitored_draws` picks the parameters a fit is judged on, `convergence_problems`
and `warn_if_not_converged` check them (rank-normalised R-hat, bulk and tail
effective sample sizes and divergences, computed by `convergence_stats.py`),
`convergence_summary` summarises a fitted estimator, and `grouped_problems` says the
failed checks in a few lines.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from skcodex._matchup import blocks
from skcodex._matchup.convergence_stats import convergence_statistics
from skcodex._matchup.debut import FACTOR_LOGIT

__all__ = [
    "convergence_problems",
    "convergence_summary",
    "forecast_convergence",
    "grouped_problems",
    "monitored_draws",
    "parameter_labels",
    "problem_family",
    "warn_if_not_converged",
]

# -- convergence checks of a fitted posterior ----------------------------------


def _walks() -> set[str]:
    """The blocks that are random walks, judged by their steps."""
    return {b.name for b in blocks.BLOCK_TABLE if b.form == "walk"}


# The model's free parameters, under either spread prior.
_FREE_VARIABLES = (
    "log_sd",
    "log_total",
    "skill_share_logit",
    "deck_split_logits",
    "log_sd_extra",
    FACTOR_LOGIT,
    "draw_log_threshold",  # a model with draws (`skcodex._matchup.draws`)
    "z",
)


def monitored_draws(idata, layout: Any = None) -> dict[str, np.ndarray]:
    """The draws convergence is judged on, each variable as a (chains, draws, n) array.

    These are the spread parameters as sampled (``log_sd``, or the balanced
    prior's ``log_total``, ``skill_share_logit``, ``deck_split_logits`` and
    ``log_sd_extra``) and, for every effect block, its standardised effects
    (each effect over its spread; for the skill walk, each step over the step
    spread): the sampler's own coordinates, so the checks are those of the
    parameters it moved, named as the effects they scale.

    Given the fitted ``layout`` (a `skcodex._matchup.layout.Layout`), the cells it
    does not draw freely (in a symmetric game: a mirrored cell, a diagonal,
    a block tied to another) are NaN, so each free effect is judged once and
    the positions still name the block's cells.
    """
    from skcodex._compat import posterior

    post = posterior.group(idata, "posterior")
    out = {}
    for var in _FREE_VARIABLES:
        if var in post:
            values = post[var].transpose("chain", "draw", ...).to_numpy()
            out[var] = values.reshape(values.shape[0], values.shape[1], -1)
    spreads = set(post["sd"].coords["spread"].values.tolist()) if "sd" in post else set()
    for block in blocks.BLOCK_TABLE:
        var = block.name
        if var not in post:
            continue
        values = post[var].transpose("chain", "draw", *block.dims).to_numpy()
        values = values.astype(np.float64)
        if values[0, 0].size == 0:  # no levels of this kind (decks without side parts)
            continue
        if layout is not None:
            values = _free_only(values, layout, block)
        if block.form == "walk":
            values = np.diff(values, axis=-1)
            # the integrated walk stays put through unplayed periods: no step to judge there
            moved = (values != 0).any(axis=(0, 1))
            values = np.where(moved, values, np.nan)
        spread = block.spread
        if spread in spreads:  # an unscaled effect (first move) is sampled as it is
            sd = post["sd"].sel(spread=spread).transpose("chain", "draw").to_numpy()
            values = values / sd.reshape(*sd.shape, *[1] * (values.ndim - 2))
        out[var] = values.reshape(values.shape[0], values.shape[1], -1)
    return out


def _free_only(values: np.ndarray, layout: Any, block: Any) -> np.ndarray:
    """``values`` (chains, draws, *block shape) with the cells that are not free set to NaN."""
    if layout.mirror_of(block) is None or block.name not in layout.shapes:
        return values
    free = np.zeros(values.shape[2:], dtype=bool)
    free[layout.free_cells(block)] = True
    return np.where(free, values, np.nan)


def parameter_labels(idata, var: str, positions) -> list[str]:
    """Names such as ``spsp[Anarchy, Law]`` for flat positions of a posterior variable."""
    from skcodex._compat import posterior

    data = posterior.group(idata, "posterior")[var]
    dims = [d for d in data.dims if d not in ("chain", "draw")]
    if not dims:
        return [var for _ in positions]
    shape = [data.sizes[d] for d in dims]
    step = var in _walks()  # judged by its steps: step e moves from epoch e - 1 to e
    if step:
        shape[-1] -= 1
    labels = []
    for pos in positions:
        where = list(np.unravel_index(int(pos), shape))
        if step:
            where[-1] += 1
        names = [
            str(data.coords[d].values[i]) if d in data.coords else str(i)
            for d, i in zip(dims, where)
        ]
        labels.append(f"{var}[{', '.join(names)}]")
    return labels


def convergence_problems(
    idata, min_ess: float = 400.0, max_rhat: float = 1.01, layout: Any = None
) -> list[str]:
    """Plain-language descriptions of every failed convergence check (empty when all pass).

    Parameters are named by their coordinates (``spsp[Anarchy, Law]``), worst first.
    """
    from skcodex._compat import posterior

    problems = []
    for var, draws in monitored_draws(idata, layout).items():
        kind = "spread" if var in _FREE_VARIABLES else "effect"
        found = []
        stats = convergence_statistics(draws)
        rhat, ess = stats["rhat"], stats["ess_bulk"]
        if draws.shape[0] > 1:
            bad = np.flatnonzero(rhat > max_rhat)
            if len(bad):
                bad = bad[np.argsort(-rhat[bad], kind="stable")]
                found.append((f"R-hat above {max_rhat:g}", bad, f"worst {rhat[bad[0]]:.3f}"))
        bad = np.flatnonzero(ess < min_ess)
        if len(bad):
            bad = bad[np.argsort(ess[bad], kind="stable")]
            found.append((f"bulk ESS below {min_ess:g}", bad, f"lowest {ess[bad[0]]:.0f}"))
        for what, bad, extreme in found:
            shown = ", ".join(parameter_labels(idata, var, bad[:5]))
            more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
            problems.append(f"{what} for {len(bad)} {kind} parameter(s) ({shown}{more}; {extreme})")
    stats = posterior.group(idata, "sample_stats")
    if stats is not None and "diverging" in stats:
        n_div = int(np.asarray(stats["diverging"]).sum())
        if n_div:
            problems.append(f"{n_div} divergent transition(s)")
    return problems


# The model-selection call (a grid search, a cross-validation) last warned in, and the
# kinds of problems it warned of: its other fits with the same kinds stay quiet. The
# call is held by its frame object itself, not by the frame's id: a finished call's id
# can be reused by the next call's frame, which would then never warn. The frame is let
# go at the first fit after its call has returned.
_SEARCH_WARNED: dict[str, Any] = {}


def _model_selection_call() -> Any:
    """The frame of the outermost scikit-learn model-selection call running now, if any."""
    import inspect

    frame, outermost = inspect.currentframe(), None
    while frame is not None:
        if frame.f_globals.get("__name__", "").startswith("sklearn.model_selection"):
            outermost = frame
        frame = frame.f_back
    return outermost


def _running(frame: Any) -> bool:
    """Whether ``frame`` is on the current call stack."""
    import inspect

    current = inspect.currentframe()
    while current is not None:
        if current is frame:
            return True
        current = current.f_back
    return False


def _kinds(problems: list[str]) -> tuple:
    """What failed, without counts, values or names: R-hat of effects, ESS of spreads, ..."""
    return tuple(sorted({re.sub(r"\d+(\.\d+)?", "#", p.split(" (")[0]) for p in problems}))


def warn_if_not_converged(idata, layout: Any = None) -> list[str]:
    """Issue one ConvergenceWarning naming every failed check and what to do.

    Inside a scikit-learn model-selection call (``GridSearchCV``,
    ``cross_val_score``, ...) the first fit with problems warns and the
    search's other fits with the same kinds of problems do not: a grid search
    warns once, not once per fold. Every fit still lists its own problems in
    ``convergence_problems_``.
    """
    if "call" in _SEARCH_WARNED and not _running(_SEARCH_WARNED["call"]):
        _SEARCH_WARNED.clear()  # that search has returned: let its frame go
    problems = convergence_problems(idata, layout=layout)
    if not problems:
        return problems
    call = _model_selection_call()
    if call is not None:
        if _SEARCH_WARNED.get("call") is call and _SEARCH_WARNED.get("kinds") == _kinds(problems):
            return problems
        _SEARCH_WARNED.update(call=call, kinds=_kinds(problems))
    more = (
        " Other fits of this search with the same kinds of problems are not reported "
        "again (each fitted estimator lists its own in convergence_problems_)."
        if call is not None
        else ""
    )
    warnings.warn(
        "the posterior sample may not be reliable: "
        + "; ".join(problems)
        + ". Increase draws and tune (more draws raise ESS), raise target_accept "
        "towards 0.95 (fewer divergences), or tighten the spread priors." + more,
        ConvergenceWarning,
        stacklevel=3,
    )
    return problems


def convergence_summary(clf: Any, X: Any = None) -> dict[str, Any]:
    """How trustworthy a fitted estimator's posterior sample is, in numbers and plain words.

    The statistics of this module over the parameters the sampler moved
    (`monitored_draws`), read from the estimator's ``idata_``. Given the
    fitted match table ``X`` and a failed check, the checks are also applied
    to the win probabilities of its matches (`forecast_convergence`), to say
    whether forecasts are affected.

    Parameters
    ----------
    clf : BayesianMatchupClassifier
        A fitted estimator, with its posterior sample in ``idata_``.
    X : pandas.DataFrame or None, default None
        The match table it was fitted on, to check its forecasts too.

    Returns
    -------
    dict
        ``chains``, ``draws`` (per chain), ``max_rhat`` (None with one chain),
        ``min_ess_bulk``, ``min_ess_tail``, ``divergences`` over the free
        parameters (the spread parameters and every effect), and
        ``problems``, the failed checks of
        `convergence_problems` (empty when all pass), ``groups``, the same
        one line per parameter family (`grouped_problems`), and
        ``forecasts``, the checks of the win probabilities (None without
        ``X`` or without a failed check).
    """
    from sklearn.utils.validation import check_is_fitted

    from skcodex._compat import posterior

    check_is_fitted(clf, "idata_")
    layout = getattr(clf, "layout_", None)
    draws = np.concatenate(list(monitored_draws(clf.idata_, layout).values()), axis=2)
    chains, n_draws = draws.shape[:2]
    values = convergence_statistics(draws, tail=True)
    max_rhat = float(np.nanmax(values["rhat"])) if chains > 1 else None
    ess_bulk = float(np.nanmin(values["ess_bulk"]))
    ess_tail = float(np.nanmin(values["ess_tail"]))
    stats = posterior.group(clf.idata_, "sample_stats")
    divergences = 0
    if stats is not None and "diverging" in stats:
        divergences = int(np.asarray(stats["diverging"]).sum())
    problems = getattr(clf, "convergence_problems_", None)
    if problems is None:
        problems = convergence_problems(clf.idata_, layout=layout)
    return {
        "chains": int(chains),
        "draws": int(n_draws),
        "max_rhat": max_rhat,
        "min_ess_bulk": ess_bulk,
        "min_ess_tail": ess_tail,
        "divergences": divergences,
        "problems": list(problems),
        "groups": grouped_problems(list(problems)),
        "forecasts": forecast_convergence(clf, X) if X is not None and problems else None,
    }


# -- the failed checks in a few lines ------------------------------------------

#: The parameter families failed checks are grouped by, each variable's family in words.
_SPREAD_VARIABLES = ("log_sd", "log_total", "skill_share_logit", "deck_split_logits")
_FAMILIES = {
    **dict.fromkeys((*_SPREAD_VARIABLES, "log_sd_extra"), "spreads"),
    **dict.fromkeys(("skill", "walk", "period_skill", "debut"), "player skills"),
    **dict.fromkeys(("stst", "stsp", "spst", "spsp", "syn_stsp", "syn_spsp"), "deck matchups"),
    **dict.fromkeys(("fam_st", "fam_sp"), "familiarity"),
    "first_move": "first move",
    FACTOR_LOGIT: "debut deck factor",
    "draw_log_threshold": "draw threshold",
}
_FAMILY_ORDER = (
    "spreads",
    "player skills",
    "deck matchups",
    "familiarity",
    "first move",
    "debut deck factor",
    "draw threshold",
)
_PROBLEM = re.compile(
    r"^(?P<what>.+?) for (?P<n>\d+) (?:spread|effect) parameter\(s\) "
    r"\((?P<var>[A-Za-z_]+)[^;]*; (?P<extreme>[^)]*)\)$"
)


def problem_family(problem: str) -> str:
    """The parameter family a failed check of `convergence_problems` is about.

    ``"spreads"``, ``"player skills"``, ``"deck matchups"``, ``"familiarity"``,
    ``"first move"``, ``"debut deck factor"``; ``"sampler"`` for divergent
    transitions.
    """
    match = _PROBLEM.match(problem)
    if match is None:
        return "sampler"
    return _FAMILIES.get(match["var"], match["var"])


def grouped_problems(problems: list[str], deck_word: str = "deck") -> list[str]:
    """The failed checks of `convergence_problems`, one short line per parameter family.

    ``"deck matchups: R-hat above 1.01 for 12 (worst 1.041); bulk ESS below 400
    for 40 (lowest 120)"``, the matchups named in ``deck_word`` (a game's own word:
    ``"race matchups"``); divergent transitions as ``"sampler: 3 divergent
    transition(s)"``. Families in the model's order, checks in the order found.
    """
    found: dict[str, dict[str, list]] = {}
    for problem in problems:
        family = problem_family(problem)
        match = _PROBLEM.match(problem)
        checks = found.setdefault(family, {})
        if match is None:
            checks.setdefault(problem, [0, ""])
            continue
        count, extreme = checks.setdefault(match["what"], [0, match["extreme"]])
        worse = _worse(extreme, match["extreme"])
        checks[match["what"]] = [count + int(match["n"]), worse]
    order = [f for f in _FAMILY_ORDER if f in found] + [f for f in found if f not in _FAMILY_ORDER]
    lines = []
    for family in order:
        parts = [
            what if not extreme else f"{what} for {count} ({extreme})"
            for what, (count, extreme) in found[family].items()
        ]
        named = f"{deck_word} matchups" if family == "deck matchups" else family
        lines.append(f"{named}: " + "; ".join(parts))
    return lines


def _worse(a: str, b: str) -> str:
    """The more extreme of two ``"worst 1.041"`` / ``"lowest 120"`` notes of one check."""
    if not a:
        return b
    x, y = float(a.split()[-1]), float(b.split()[-1])
    return a if (x >= y if a.startswith("worst") else x <= y) else b


def forecast_convergence(
    clf: Any, X: Any, min_ess: float = 400.0, max_rhat: float = 1.01, max_matches: int = 2000
) -> dict[str, Any]:
    """The convergence checks applied to the win probabilities of fitted matches.

    What a forecast reads is a win probability, a function of many parameters
    at once: it can be estimated well while single effects are not. Its draws
    are checked as the parameters are, for up to ``max_matches`` distinct
    matches of ``X`` (the latest ones).

    Returns
    -------
    dict
        ``matches`` checked, ``failed`` (how many fail a check), ``max_rhat``
        (None with one chain), ``min_ess_bulk`` and ``sentence``, whether
        forecasts are affected, in words.
    """
    table = X.iloc[-max_matches:] if len(X) > max_matches else X
    draws = np.asarray(clf.predict_proba_draws(table), dtype=float)
    from skcodex._compat import posterior

    chains = posterior.group(clf.idata_, "posterior").sizes["chain"]
    draws = draws.reshape(chains, draws.shape[0] // chains, -1)
    stats = convergence_statistics(draws)
    bad = stats["ess_bulk"] < min_ess
    max_r = None
    if chains > 1:
        bad = bad | (stats["rhat"] > max_rhat)
        max_r = float(np.nanmax(stats["rhat"]))
    n, failed = draws.shape[2], int(bad.sum())
    lowest = float(np.nanmin(stats["ess_bulk"]))
    measured = f"smallest ESS {lowest:,.0f}" + (
        "" if max_r is None else f", largest R-hat {max_r:.3f}"
    )
    if failed == 0:
        sentence = (
            f"Forecasts: the win probabilities of the {n:,} fitted matches checked pass both "
            f"checks ({measured}), so forecasts are not affected."
        )
    else:
        sentence = (
            f"Forecasts: the win probabilities of {failed:,} of the {n:,} fitted matches "
            f"checked fail them too ({measured}), so forecasts may be off by more than their "
            "intervals say."
        )
    return {
        "matches": n,
        "failed": failed,
        "max_rhat": max_r,
        "min_ess_bulk": lowest,
        "sentence": sentence,
    }
