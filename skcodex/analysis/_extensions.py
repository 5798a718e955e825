"""The fitted values of the model's optional parts, each a single number with its interval."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from skcodex._matchup import debut as debut_decks
from skcodex._matchup.blocks import SPREAD_TABLE
from skcodex.analysis._base import INTERVAL, check_fitted, quantiles

__all__ = ["extension_table", "half_life_evidence", "part_evidence"]

#: The optional spreads by name (those an option switches on), with their labels.
_OPTIONAL_SPREADS = {s.name: s.label for s in SPREAD_TABLE if s.option is not None}


def extension_table(clf: Any, interval: float = INTERVAL) -> pd.DataFrame:
    """The single numbers the fitted model's options add, with credible intervals.

    One row for each that the fitted model has:

    - an effect with a prior of its own, on the log-odds scale: the first-move
      effect (``first_move``, what player 1 gains) and the debut offset
      (``debut``, what a player gains or loses in their first rating period);
    - the debut deck factor (``debut_deck_factor``), by which the deck matchup
      of a match where a side debuts is multiplied;
    - the spread of an optional block, named ``sd_`` and the spread's name:
      the skill walk's step per rating period (``sd_step``), the per-period
      offsets (``sd_period``), synergy (``sd_syn``) and familiarity
      (``sd_fam``) effects.

    The seed model has none of them: its table is empty.

    Parameters
    ----------
    clf : BayesianMatchupClassifier
        Fitted.
    interval : float, default 0.9
        Width of the equal-tailed credible intervals.

    Returns
    -------
    pandas.DataFrame
        Indexed by the names above, with columns ``what`` (in words),
        ``scale`` (``"log-odds"``, ``"factor"`` or ``"spread"``), ``mean``,
        ``lower`` and ``upper``.

    Examples
    --------
    >>> from skcodex import BayesianMatchupClassifier
    >>> from skcodex.datasets import make_matches
    >>> data = make_matches(n_players=8, n_matches=60, random_state=0)
    >>> clf = BayesianMatchupClassifier(first_move=True, draws=100, tune=100, chains=2)
    >>> table = extension_table(clf.fit(data.X, data.y))  # doctest: +SKIP
    >>> list(table.index)  # doctest: +SKIP
    ['first_move']
    """
    check_fitted(clf)
    quantiles(np.zeros((1, 1)), interval)  # refuses an interval outside (0, 1) first
    layout = clf.layout_.static()  # the layout of effect_draws_
    rows: dict[str, tuple[str, str, np.ndarray]] = {}
    for block in layout.declared:
        if block.spread is not None or block.name not in layout.offsets:
            continue
        start = layout.offsets[block.name]
        draws = clf.effect_draws_[:, start : start + int(np.prod(layout.shapes[block.name]))]
        if block.form == "baseline":  # the first level is the baseline, fixed at 0
            draws = draws[:, 1:]
        if draws.shape[1] == 1:
            rows[block.name] = (block.label, "log-odds", draws[:, 0])
    factor = debut_decks.factor_draws(clf.idata_) if debut_decks.has_factor(clf.layout_) else None
    if factor is not None:
        rows[debut_decks.FACTOR] = (
            "debut deck factor (times the deck matchup in a match where a side debuts)",
            "factor",
            factor,
        )
    for i, name in enumerate(clf.layout_.spreads):
        if name in _OPTIONAL_SPREADS:
            what = f"spread of the {_OPTIONAL_SPREADS[name]}"
            rows[f"sd_{name}"] = (what, "spread", clf.spread_draws_[:, i])
    out = pd.DataFrame(
        columns=["what", "scale", "mean", "lower", "upper"], index=pd.Index([], dtype=object)
    )
    for name, (what, scale, draws) in rows.items():
        lower, upper = quantiles(draws, interval)
        out.loc[name] = [what, scale, float(np.mean(draws)), float(lower), float(upper)]
    return out.astype({"mean": float, "lower": float, "upper": float})


def part_evidence(clf: Any) -> pd.DataFrame:
    """How the fitted model's ``"auto"`` parts were decided: the forward evidence.

    With ``part_selection="forward"`` (asked for; the default is ``"none"``) a fit
    tries every combination of the ``"auto"`` parts the table can hold on the
    table's own latest rating periods, each forecast by the candidate fitted on
    the matches before it, and keeps a richer candidate only when its forward log
    score beats the static model's by more than two standard errors (see
    [Choosing a model](../model-choice.md#letting-the-table-decide)).

    Parameters
    ----------
    clf : BayesianMatchupClassifier
        Fitted.

    Returns
    -------
    pandas.DataFrame
        One row per candidate: ``candidate`` (its parts in words), ``parts``,
        ``matches`` forecast, the mean forward ``log score`` and ``brier``, the
        summed ``log score - simplest`` and its standard error ``se``, and
        ``chosen``. Empty (with those columns) when no part was decided by
        evidence: every part given as True or False, none the table could
        hold, or ``part_selection="none"``. ``attrs["note"]`` says why a table
        too short to test on kept the static model.

    Examples
    --------
    >>> import warnings; warnings.simplefilter("ignore")
    >>> from skcodex import BayesianMatchupClassifier
    >>> from skcodex.analysis import part_evidence
    >>> from skcodex.datasets import make_matches
    >>> X, y = make_matches(n_players=10, n_matches=120, n_tournaments=5, random_state=0,
    ...                     return_X_y=True)
    >>> clf = BayesianMatchupClassifier(part_selection="forward", draws=40, tune=40, chains=2,
    ...                                 random_state=0).fit(X, y)
    >>> part_evidence(clf)["candidate"].tolist()
    ['static', 'walk', 'debut', 'debut + walk']
    """
    return _evidence(clf, "part_evidence_")


def half_life_evidence(clf: Any) -> pd.DataFrame:
    """How an ``"auto"`` half-life (recent matches counted more) was decided.

    With ``half_life="auto"`` and ``part_selection="forward"`` a fit tries
    half-lives of 8, 4 and 2 rating periods against no weighting, with the
    ``"auto"`` parts as `part_evidence` chose them, on the same forward folds and
    by the same rule: a half-life is kept only when its forward log score beats
    no weighting by more than two standard errors (see
    [Choosing a model](../model-choice.md#counting-recent-matches-more)).

    Parameters
    ----------
    clf : BayesianMatchupClassifier
        Fitted.

    Returns
    -------
    pandas.DataFrame
        The columns of `part_evidence`, one row per half-life, ``"no
        weighting"`` first. Empty (with those columns) when the half-life was
        not decided by evidence. ``clf.half_life_`` is the half-life fitted.

    Examples
    --------
    >>> import warnings; warnings.simplefilter("ignore")
    >>> from skcodex import BayesianMatchupClassifier
    >>> from skcodex.analysis import half_life_evidence
    >>> from skcodex.datasets import make_matches
    >>> X, y = make_matches(n_players=10, n_matches=120, n_tournaments=5, random_state=0,
    ...                     return_X_y=True)
    >>> clf = BayesianMatchupClassifier(half_life="auto", part_selection="forward", debut=False,
    ...                                 time_varying=False, draws=40, tune=40, chains=2,
    ...                                 random_state=0).fit(X, y)
    >>> half_life_evidence(clf)["candidate"].tolist()
    ['no weighting', 'half-life 8', 'half-life 4', 'half-life 2']
    """
    return _evidence(clf, "half_life_evidence_")


def _evidence(clf: Any, attribute: str) -> pd.DataFrame:
    """A copy of the fitted ``clf``'s forward-evidence table ``attribute`` (or its empty table)."""
    from skcodex._matchup.part_choice import EVIDENCE_COLUMNS

    check_fitted(clf)
    evidence = getattr(clf, attribute, None)
    if evidence is None:
        return pd.DataFrame(columns=list(EVIDENCE_COLUMNS))
    return evidence.copy()
