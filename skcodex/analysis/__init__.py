"""What users came for, from a fitted `BayesianMatchupClassifier`.

Every summary here is computed draw by draw from the posterior and then
summarised, so each comes with its uncertainty. One module a question:

- player skills with intervals, P(best) and rank
  distribution (`skill_table`), and how much a match depends on skill rather
  than decks (`skill_versus_decks`);
- P(player 1 wins) for every pair of decks, at
  equal skill or for named players (`matchup_draws`, `matchup_table`), for
  single matches (`match_forecast`), and decks ranked against a field
  (`deck_ranking`);
- the deck-choice game of the matchup matrix solved
  per draw (`nash_equilibria`, `nash_weights`, `solve_matrix_game`);
- the player-skill spread against the
  deck-matchup spread, in the posterior and under the prior alone;
- the fitted values of the model's optional
  parts, each a single number (`extension_table`), and the forward evidence that
  decided its ``"auto"`` parts (`part_evidence`) and half-life (`half_life_evidence`);
- which decks the analyses look at by default;
- which of a player's decks to bring against a field (`deck_advice`): win rate
  and the chance to win the event.

Analyses read a fitted estimator only through its public attributes and
methods (``vocabulary_``, ``layout_``, ``effect_draws_``, ``spread_draws_``,
``effect_draws_for``, ``predict_proba_draws``). Calibration
(`reliability_table`, `brier_decomposition`) lives in `skcodex.metrics`,
`convergence_summary` with the model's convergence checks, and the deck helpers
(`deck_label`, `monocolour_decks`) in `skcodex.codex`; all are importable from
here too. Intervals are equal-tailed credible intervals, 90% unless asked
otherwise.
"""

from skcodex._matchup.diagnostics import convergence_summary
from skcodex.analysis._advice import deck_advice
from skcodex.analysis._base import INTERVAL
from skcodex.analysis._decks import (
    DECK_KEYWORDS,
    N_DEFAULT_DECKS,
    default_decks,
    most_played_decks,
)
from skcodex.analysis._extensions import extension_table, half_life_evidence, part_evidence
from skcodex.analysis._matchups import deck_ranking, match_forecast, matchup_draws, matchup_table
from skcodex.analysis._nash import (
    NASH_DRAWS,
    NashEquilibria,
    nash_equilibria,
    nash_weights,
    solve_matrix_game,
)
from skcodex.analysis._skills import skill_table, skill_versus_decks
from skcodex.analysis._spreads import (
    PRIOR_DRAWS,
    deck_spread_draws,
    describe_prior,
    prior_spread_comparison_draws,
    prior_spread_draws,
    spread_comparison_draws,
)
from skcodex.codex import deck_label, monocolour_decks
from skcodex.metrics import brier_decomposition, reliability_table

__all__ = [
    "DECK_KEYWORDS",
    "INTERVAL",
    "NASH_DRAWS",
    "N_DEFAULT_DECKS",
    "PRIOR_DRAWS",
    "NashEquilibria",
    "brier_decomposition",
    "convergence_summary",
    "deck_advice",
    "deck_label",
    "deck_ranking",
    "deck_spread_draws",
    "default_decks",
    "describe_prior",
    "extension_table",
    "half_life_evidence",
    "match_forecast",
    "matchup_draws",
    "matchup_table",
    "monocolour_decks",
    "most_played_decks",
    "nash_equilibria",
    "nash_weights",
    "part_evidence",
    "prior_spread_comparison_draws",
    "prior_spread_draws",
    "reliability_table",
    "skill_table",
    "skill_versus_decks",
    "solve_matrix_game",
    "spread_comparison_draws",
]
