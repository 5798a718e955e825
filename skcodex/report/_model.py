"""What the report says of the fitted model: its method, sampler, options and priors in words.

The options are read from the model's own options (every switch of
``ModelOptions``, as fitted), so an option added to the model is described
without a change here.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import numpy as np

from skcodex import analysis
from skcodex._compat import posterior as posterior
from skcodex._pages.words import game_words, is_symmetric

__all__ = ["describe_model", "extension_names", "unrecorded_model"]

#: Options of the model that are a property of the game, not an extension of the seed model.
_GAME_OPTIONS = ("symmetric",)
#: Options of the model that say how it is sampled, not what it is (set from the priors).
_SAMPLING_OPTIONS = ("signed_spreads",)


def extension_names(options: Any) -> tuple[str, ...]:
    """The model's optional parts, as `describe_model` names them: the switches of its options."""
    return tuple(
        f.name
        for f in dataclasses.fields(options)
        if isinstance(f.default, bool) and f.name not in (*_GAME_OPTIONS, *_SAMPLING_OPTIONS)
    )


def unrecorded_model() -> dict[str, Any]:
    """What the page says of a model whose options were not recorded (every part off)."""
    from skcodex import BayesianMatchupClassifier

    options = BayesianMatchupClassifier().options
    return {
        "method": "nuts",
        "sampler": None,
        **dict.fromkeys(extension_names(options), False),
        **dict.fromkeys(_GAME_OPTIONS, False),
        "n_epochs": 0,
        "draw": None,
        "late_arrivals": 0,
        "half_life": None,
        "prior_kind": "unrecorded",
        "prior_name": "its prior",
        "prior_lognormal": True,
        "prior_text": "prior not recorded",
    }


#: How the report names each kind of spread prior.
_PRIOR_NAMES = {
    "balanced": "the balanced prior",
    "default": "the default log-normal prior",
    "seed": "the seed model's log-normal prior",
    "custom": "a custom log-normal prior",
}


#: The seed's priors named for a game other than Codex (the seed model is Codex's).
_NEUTRAL_SEED_PRIOR = "the log-normal prior N(0, 0.5) on every log-spread"


def _prior_kind(clf: Any, options: Any) -> str:
    """``"balanced"``, or whether the log-normal priors are the defaults, the seed's or custom."""
    if options.prior == "balanced":
        return "balanced"
    from skcodex import SEED_PRIORS

    structure = {name: getattr(options, name) for name in extension_names(options)}
    # the priors of the spreads the fitted model has (none of absent spec blocks)
    names = getattr(clf, "layout_", None) or options
    own = clf._priors_for(names)
    for kind, priors in (("default", {}), ("seed", SEED_PRIORS)):
        reference = type(clf)(**structure, **priors)._priors_for(names)
        if (own.loc, own.scale, own.family) == (reference.loc, reference.scale, reference.family):
            return kind
    return "custom"


def _prior_name(kind: str, codex: bool, lognormal: bool) -> str:
    """The prior in a few words: its kind's name, the seed's named for any game."""
    if kind == "seed" and not codex:
        return _NEUTRAL_SEED_PRIOR
    if kind == "custom" and not lognormal:
        return "a custom prior"
    return _PRIOR_NAMES[kind]


def describe_model(clf: Any) -> dict[str, Any]:
    """How a fitted classifier's numbers were made, for the report's words.

    The model's structure is read from what was fitted (``layout_.options``),
    so parameters changed after the fit do not change it, and so is an
    approximation's method (the posterior records it); NUTS's sampler and
    the priors are read from the classifier's parameters.

    Parameters
    ----------
    clf : BayesianMatchupClassifier
        Fitted (or, for its parameters alone, unfitted).

    Returns
    -------
    dict
        ``method`` (``"nuts"`` or ``"advi"``), ``sampler`` (``"nutpie"``,
        ``"PyMC"``, or None for ADVI), the extensions ``time_varying``,
        ``synergy``, ``familiarity`` and ``first_move`` (bool), ``symmetric``
        (bool: matchups the same from either side), ``effects`` (the fitted
        effect blocks in words, as the model labels them, in the game's
        nouns; empty when unfitted), ``n_epochs``
        (rating periods of the skill walk), ``prior`` (``"lognormal"`` or
        ``"balanced"``), ``prior_kind`` (``"balanced"``, ``"default"``,
        ``"seed"`` or ``"custom"``), ``prior_name`` and ``prior_text`` (the
        prior in words), and the one-line summaries ``extensions`` and
        ``fitting``; for a model fitted with draws, ``draw`` (the posterior
        mean and 90% interval of the threshold and of the draw rate between
        equal sides, as `BayesianMatchupClassifier.draw_` gives them);
        ``late_arrivals`` (how many players a never-seen player's skill is centred
        on, 0 when it is the population's); ``half_life`` (the half-life in rating
        periods the matches were weighed by, None when every match counted alike).
    """
    params = clf.get_params()
    layout = getattr(clf, "layout_", None)
    options = layout.options if layout is not None else clf.options
    fitted_method, n_epochs = None, 0
    if getattr(clf, "idata_", None) is not None:  # the posterior records an approximation
        post = posterior.group(clf.idata_, "posterior")
        fitted_method = post.attrs.get("inference_method")
        params = _as_fitted(params, post)
    if options.time_varying and layout is not None:  # ``layout_`` is the layout as sampled
        n_epochs = int(layout.n_epochs)
    names = extension_names(options)
    extensions = [name for name in names if getattr(options, name)]
    symmetric = is_symmetric(clf)
    if symmetric:
        extensions.append("symmetric")
    codex = layout is None or game_words(clf)["codex"]
    method = fitted_method or params["method"]
    sampler = params["sampler"]
    if sampler == "auto":  # the fit's rule: PyMC for the balanced prior, else the fastest
        from skcodex._matchup.sampling import resolve_sampler

        sampler = "pymc" if options.prior == "balanced" else resolve_sampler("auto")
        setting = f"auto: {sampler}"
    else:
        setting = sampler
    if method == "nuts":
        fitting = (
            f"NUTS ({setting} sampler), {params['chains']} chains of {params['draws']} draws "
            f"after {params['tune']} tuning steps, target acceptance "
            f"{params['target_accept']}, seed {params['random_state']}"
        )
    else:
        fitting = f"{method} approximation, {params['draws']} draws, seed {params['random_state']}"
    applies = getattr(clf, "_late_arrivals_apply", None)
    late = len(clf.late_arrivals_) if layout is not None and applies and applies() else 0
    kind = _prior_kind(clf, options)
    # a spread may take the exponential prior (step_prior, spec_prior): not all log-normal
    lognormal = (
        "exponential" not in clf._priors_for(layout if layout is not None else options).family
    )
    return {
        "method": method,
        "sampler": {"nutpie": "nutpie", "pymc": "PyMC"}[sampler] if method == "nuts" else None,
        **{name: bool(getattr(options, name)) for name in names},
        "symmetric": symmetric,
        "effects": _effect_words(clf),
        "n_epochs": n_epochs if options.time_varying else 0,
        "prior": options.prior,
        "late_arrivals": late,
        "half_life": getattr(clf, "half_life_", None) if layout is not None else None,
        "prior_kind": kind,
        "prior_name": _prior_name(kind, codex, lognormal),
        "prior_lognormal": lognormal,
        "prior_text": analysis.describe_prior(clf),
        "extensions": ", ".join(extensions) or ("none (the seed model)" if codex else "none"),
        "fitting": fitting,
        "draw": _draw_words(clf, options),
    }


def _draw_words(clf: Any, options: Any) -> dict | None:
    """The fitted draw threshold and even draw rate, as numbers (None without draws)."""
    if not getattr(options, "draws", False) or getattr(clf, "idata_", None) is None:
        return None
    summary = clf.draw_
    return {
        row: {k: float(summary.loc[row, k]) for k in ("mean", "lower", "upper")}
        for row in ("threshold", "draw_rate_even")
    }


def _as_fitted(params: dict, post: Any) -> dict:
    """The sampling parameters as the posterior was drawn, where it records them.

    Chains and draws are the posterior's own dimensions; tuning steps and target
    acceptance are kept in its attributes. The seed is
    the parameter's when it still gives the sampler seed the fit used, else
    ``"changed after the fit"``.
    """
    params = dict(params)
    if "chain" in post.sizes and "draw" in post.sizes:
        params["chains"], params["draws"] = int(post.sizes["chain"]), int(post.sizes["draw"])
    attrs = post.attrs
    for name in ("tune", "target_accept"):
        if f"fitted_{name}" in attrs:
            value = attrs[f"fitted_{name}"]
            params[name] = value.item() if hasattr(value, "item") else value
    if "fitted_seed" in attrs:
        from sklearn.utils import check_random_state

        state = params.get("random_state")
        # the estimator's fit draws its sampler seed first from its random_state
        if isinstance(state, (int, np.integer)) and not isinstance(state, bool):
            first = int(check_random_state(state).randint(0, 2**31 - 1, size=2)[0])
            if first != int(attrs["fitted_seed"]):
                params["random_state"] = "changed after the fit"
    return params


def _effect_words(clf: Any) -> list[str]:
    """The fitted layout's effect blocks in words, as the model's blocks label them.

    "starter" and "spec" become the game's own nouns; blocks with no effect
    in this game (no specs) and blocks without a label are left out.
    """
    layout = getattr(clf, "layout_", None)
    if layout is None:
        return []
    words = game_words(clf)
    nouns = {"starter": words["starter_word"], "spec": words["spec_word"]}
    return [
        re.sub(r"\b(starter|spec)\b", lambda found: nouns[found[1]], block.label)
        for block in layout.declared
        if block.label and np.prod(layout.shapes[block.name]) > 0
    ]
