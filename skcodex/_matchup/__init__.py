"""The matchup model: from encoded matches to a posterior, and from a posterior to forecasts.

Its modules, in the order data flows: ``blocks`` (what an effect block is,
declared once), ``options`` (which parts are switched on), ``walk`` (the skill
walk's path), ``layout`` (the flat vector of effects, the index matrix),
``deck_pairs`` (the deck sum for every pair of decks), ``priors`` (the balanced
prior's spreads), ``graph`` (the PyMC model), ``geometry`` (how NUTS samples the
effects), ``loglik_op`` and ``effects_op`` (the model's compiled kernels),
``numba_cache`` (numba's kernels cached on disk), ``debut`` (the debut deck
factor), ``padding`` (the layout a model is compiled for),
``compile_cache`` (each padded layout's model compiled once), ``sampling``
(``FitProblem`` and NUTS), ``nutpie_compile``,
``approximation`` (ADVI), ``fitting`` (one call from a problem to a posterior),
``readers`` (a fitted posterior read in the layout it was sampled in),
``prediction`` (win probabilities from effect draws), ``never_seen`` (levels never
seen in fit, and the forecasts over them), ``convergence_stats`` (R-hat and ESS),
``diagnostics`` (the convergence checks) and ``part_choice`` (which optional parts
a table supports).

Import rule: the model reads the checked, encoded table and the compatibility
shims; it never imports the estimators, the file format, the report or the
command line, which sit above it.

May import: skcodex._compat, skcodex._docstrings, skcodex.codex, skcodex.data, skcodex.model_selection
"""  # noqa: E501
