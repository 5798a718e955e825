"""The private scikit-learn names skcodex relies on, imported in this one module.

scikit-learn's estimator machinery (parameter validation, the fit context that
runs it, the ``set_output`` configuration) has no public import path yet. Every
module of skcodex takes these names from here, so a scikit-learn release that
moves them is met by one change in this file; ``pyproject.toml`` caps
scikit-learn below 2 until such a release has been tested.
"""

from __future__ import annotations

from typing import Any

from sklearn.base import _fit_context as fit_context
from sklearn.utils import _safe_indexing as safe_indexing
from sklearn.utils._param_validation import (
    Interval,
    InvalidParameterError,
    StrOptions,
    validate_parameter_constraints,
)

__all__ = [
    "Interval",
    "InvalidParameterError",
    "StrOptions",
    "dense_output_requested",
    "fit_context",
    "safe_indexing",
    "validate_parameter_constraints",
]


def dense_output_requested(estimator: Any) -> bool:
    """Whether ``set_output`` (or the global config) asks for pandas or polars output.

    Such output needs a dense array. scikit-learn's own helper answers for the
    estimator's setting; where it is missing this falls back to the public
    global ``transform_output`` setting.

    Parameters
    ----------
    estimator : object
        The transformer whose ``set_output`` setting is read.

    Returns
    -------
    bool
        True when the transform output is configured as anything but the default.
    """
    try:
        from sklearn.utils._set_output import _get_output_config
    except ImportError:  # a scikit-learn without the helper: the public setting
        from sklearn import get_config

        return get_config().get("transform_output", "default") != "default"
    return _get_output_config("transform", estimator)["dense"] != "default"
