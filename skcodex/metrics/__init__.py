"""Brier scores of match forecasts, their calibration, and a scorer for model selection.

`brier_score` and `brier_skill_score` score forecasts; `reliability_table` and
`brier_decomposition` say where a score comes from (calibration against
resolution); `calibration_error`, `calibration_slope` and `overconfidence`
measure calibration in one number each; `brier_scorer` plugs the score into
scikit-learn's model selection. Forecasts of games with draws (three outcomes)
are scored by `ranked_probability_score` and `multiclass_brier_score`, and
their scorers `ranked_probability_scorer` and `multiclass_brier_scorer`.

Import rule (checked by the tests):
May import: skcodex._docstrings
"""

from skcodex.metrics._calibration import (
    brier_decomposition,
    calibration_error,
    calibration_slope,
    overconfidence,
    reliability_table,
)
from skcodex.metrics._draws import (
    multiclass_brier_score,
    multiclass_brier_scorer,
    ranked_probability_score,
    ranked_probability_scorer,
)
from skcodex.metrics._scores import (
    COIN_FLIP_BRIER,
    brier_score,
    brier_scorer,
    brier_skill_score,
    positive_class_probability,
)

__all__ = [
    "COIN_FLIP_BRIER",
    "brier_decomposition",
    "brier_score",
    "brier_scorer",
    "brier_skill_score",
    "calibration_error",
    "calibration_slope",
    "multiclass_brier_score",
    "multiclass_brier_scorer",
    "overconfidence",
    "positive_class_probability",
    "ranked_probability_score",
    "ranked_probability_scorer",
    "reliability_table",
]
