"""Games other than Codex: decks of k >= 0 side components, plain notation, first-move effect."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from skcodex import BayesianMatchupClassifier, MatchupEncoder, analysis, load
from skcodex._compat import posterior
from skcodex._matchup.graph import Layout, ModelOptions
from skcodex._matchup.priors import balanced_spreads
from skcodex.codex import CatalogueFileError, Deck, DeckParseError, PlainCatalogue, parse_deck
from skcodex.data import MatchTableError, Vocabulary, check_match_table, encode
from skcodex.datasets import make_game_matches

from command_process import in_process as _run  # isort: skip

HEROES = ["Tala", "Zane", "Oku", "Mira"]
COLOURS = ["Red", "Blue", "Green", "Black", "White"]

# Phrases that belong to Codex only, and must not appear in another game's report.
CODEX_ONLY = (
    "Codex",
    "Mono",
    "three specs",
    "16 component",
    "6 sd_stsp",
    "F20",
    "forfeit",
    "timeout",
)


def _fit(X, y, catalogue=None, **kwargs):
    params = {"draws": 150, "tune": 150, "chains": 1, "random_state": 0, "catalogue": catalogue}
    params.update(kwargs)
    clf = BayesianMatchupClassifier(**params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return clf.fit(X, y)


@pytest.fixture(scope="module")
def fighting():
    data = make_game_matches(
        n_players=16, n_matches=300, n_tournaments=3, starters=6, first_move=0.4, random_state=1
    )
    return data, _fit(data.X, data.y, data.catalogue, first_move=True)


@pytest.fixture(scope="module")
def heroes():
    data = make_game_matches(
        n_players=16,
        n_matches=300,
        n_tournaments=3,
        starters=HEROES,
        components=COLOURS,
        specs_per_deck=2,
        random_state=2,
    )
    return data, _fit(data.X, data.y, data.catalogue)


# -- decks and notation ------------------------------------------------------------------


def test_deck_without_side_components():
    assert Deck("char00") == Deck("char00", ()) == Deck("char00", [])
    assert Deck("char00").specs == ()
    assert str(Deck("char00")) == "char00"
    with pytest.raises(TypeError, match="sequence of strings"):
        Deck("char00", 3)


def test_plain_catalogue_reads_decks_in_the_games_terms():
    cat = PlainCatalogue(HEROES, COLOURS, 2, starter_word="hero", component_word="colour")
    assert parse_deck("tala/white/red", cat) == Deck("Tala", ("Red", "White"))
    assert cat.format(Deck("Tala", ("White", "Red"))) == "Tala/Red/White"
    with pytest.raises(DeckParseError, match=r"unknown hero 'Tal'.*did you mean 'Tala'"):
        parse_deck("Tal/Red/Blue", cat)
    with pytest.raises(DeckParseError, match=r"has 1 colour\(s\).*a deck here has 2 colours"):
        parse_deck("Tala/Red", cat)
    with pytest.raises(DeckParseError, match="unknown colour 'Purple'"):
        parse_deck("Tala/Red/Purple", cat)
    with pytest.raises(DeckParseError, match="repeats the colour Red"):
        parse_deck("Tala/Red/red", cat)
    with pytest.raises(DeckParseError, match="starts with the colour 'Red', not a hero"):
        parse_deck("Red/Tala/Blue", PlainCatalogue(None, COLOURS, 2, "hero", "colour"))
    with pytest.raises(DeckParseError, match="empty name"):
        parse_deck("Tala//Red", cat)


def test_open_catalogue_takes_every_name():
    cat = PlainCatalogue()
    assert cat.is_open
    assert parse_deck("anyone", cat) == Deck("anyone")
    assert parse_deck("hero/x/y", cat) == Deck("hero", ("x", "y"))
    with pytest.raises(DeckParseError, match="has 1 component"):
        parse_deck("hero/x", PlainCatalogue(specs_per_deck=0))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"starters": "Ryu"}, "single string"),
        ({"starters": ["Ryu", "ryu"]}, "more than once"),
        ({"starters": ["a/b"]}, "without surrounding spaces or '/'"),
        ({"starters": ["Ryu"], "components": ["ryu"]}, "both as starter and component"),
        ({"specs_per_deck": -1}, "specs_per_deck"),
    ],
)
def test_plain_catalogue_rejects_bad_names(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        PlainCatalogue(**kwargs)


def test_catalogue_file(tmp_path):
    path = tmp_path / "heroes.csv"
    rows = ["kind,name", "# heroes and colours"]
    rows += [f"starter,{h}" for h in HEROES] + [f"component,{c}" for c in COLOURS]
    path.write_text("\n".join([*rows, "specs_per_deck,2"]) + "\n")
    cat = PlainCatalogue.from_file(path)
    assert cat.starters == tuple(HEROES) and cat.components == tuple(COLOURS)
    assert cat.specs_per_deck == 2
    assert PlainCatalogue.from_file(path, specs_per_deck=1).specs_per_deck == 1
    with path.open("a") as f:
        f.write("starter_word,hero\ncomponent_word,colour\n")
    named = PlainCatalogue.from_file(path)
    with pytest.raises(DeckParseError, match="unknown colour 'Pink'"):
        parse_deck("Tala/Red/Pink", named)
    fighters = tmp_path / "fighters.csv"
    fighters.write_text("kind,name\nstarter,Ryu\nstarter,Ken\n")
    assert PlainCatalogue.from_file(fighters).specs_per_deck == 0
    bad = tmp_path / "bad.csv"
    for text, message in [
        ("name\nRyu\n", "header 'kind,name'"),
        ("kind,name\nfighter,Ryu\n", r"line 2: kind must be 'starter' or 'component'"),
        ("kind,name\ncomponent,Red\n", "lists no starter"),
        ("kind,name\nstarter,Ryu\nspecs_per_deck,two\n", "line 3: specs_per_deck"),
        ("kind,name\nstarter,Ryu,Ken\n", "line 2: expected 'kind,name'"),
    ]:
        bad.write_text(text)
        with pytest.raises(CatalogueFileError, match=message):
            PlainCatalogue.from_file(bad)
    with pytest.raises(CatalogueFileError, match="does not exist"):
        PlainCatalogue.from_file(tmp_path / "missing.csv")


def test_match_table_of_decks_with_no_or_two_components():
    data = make_game_matches(n_players=6, n_matches=30, n_tournaments=2, random_state=0)
    table = check_match_table(data.X, data.catalogue)
    vocab = Vocabulary.from_table(table)
    assert vocab.specs_per_deck == 0 and vocab.specs == ()
    # The decks played, most played first, with their counts.
    counts = pd.Series([*table["deck1"], *table["deck2"]]).value_counts()
    assert vocab.deck_counts == tuple(sorted(vocab.deck_counts, reverse=True))
    assert dict(zip(vocab.decks, vocab.deck_counts)) == counts.to_dict()
    codes = encode(table, vocab)
    assert codes.specs1.shape == (30, 0)
    mixed = data.X.astype({"deck1": object})
    mixed.loc[0, "deck1"] = Deck("char00", ("x",))
    with pytest.raises(MatchTableError, match=r"has 1 component.* gives every deck 0 components"):
        check_match_table(mixed, data.catalogue)  # a Deck value is checked against it
    as_decks = data.X.assign(deck1=[mixed.loc[0, "deck1"], *table["deck1"][1:]])
    as_decks = as_decks.assign(deck2=list(table["deck2"]))
    with pytest.raises(MatchTableError, match="same number of specs"):
        check_match_table(as_decks)  # no catalogue: Deck values are taken as they are


# -- the model ---------------------------------------------------------------------------


@pytest.mark.parametrize("k", [0, 1, 2, 3])
@pytest.mark.parametrize("first_move", [False, True])
def test_log_odds_match_the_formula_for_every_k(k, first_move):
    """q from the index matrix equals the seed's sum, computed independently, for k = 0..3."""
    rng = np.random.default_rng(k)
    comps = [f"c{i}" for i in range(5)]
    data = make_game_matches(
        n_players=5, n_matches=40, n_tournaments=2, starters=3,
        components=comps if k else (), specs_per_deck=k, random_state=k,
    )  # fmt: skip
    table = check_match_table(data.X, data.catalogue)
    vocab = Vocabulary.from_table(table)
    codes = encode(table, vocab)
    layout = Layout(*vocab.sizes, k, ModelOptions(first_move=first_move))
    assert layout.n_deck_effects == 1 + 2 * k + k * k
    index = layout.index_matrix(codes)
    assert index.shape == (40, 2 + layout.n_deck_effects + first_move)
    z = rng.normal(size=layout.n_free)
    sd = np.array([0.9, 0.5, 0.3, 0.2])
    theta = layout.theta(z, sd)
    q = theta[index] @ layout.signs
    b = layout.unflatten(theta)
    expected = []
    for i in range(40):
        g, t = codes.starter1[i], codes.starter2[i]
        h, u = codes.specs1[i], codes.specs2[i]
        m = b["stst"][g, t] + b["stsp"][g, u].sum() + b["spst"][h, t].sum()
        m += b["spsp"][np.ix_(h, u)].sum()
        m += b["skill"][codes.player1[i]] - b["skill"][codes.player2[i]]
        expected.append(m + (b["first_move"] if first_move else 0.0))
    np.testing.assert_allclose(q, expected)
    if first_move:  # the first-move effect is z's own entry, not scaled by a spread
        assert b["first_move"] == z[layout.offsets["first_move"]]


def test_balanced_prior_without_side_components():
    sd = balanced_spreads(np.log(2.0), 0.5, np.array([0.2, 0.3, 0.5]), 0)
    # Half of the variance 4 to the skill difference (2 sd_player^2), half to stst.
    np.testing.assert_allclose(sd[:2], [1.0, np.sqrt(2.0)])
    assert np.all(np.isfinite(sd))


def test_synthetic_probabilities_follow_the_truth():
    data = make_game_matches(
        n_players=8, n_matches=60, n_tournaments=2, starters=HEROES, components=COLOURS,
        specs_per_deck=2, first_move=0.3, random_state=4,
    )  # fmt: skip
    p = data.params
    q = []
    for _, row in data.X.iterrows():
        d1, d2 = (parse_deck(row[c], data.catalogue) for c in ("deck1", "deck2"))
        h, u = list(d1.specs), list(d2.specs)
        m = p["stst"].loc[d1.starter, d2.starter] + p["stsp"].loc[d1.starter, u].sum()
        m += p["spst"].loc[h, d2.starter].sum() + p["spsp"].loc[h, u].to_numpy().sum()
        q.append(0.3 + p["skill"][row["player1"]] - p["skill"][row["player2"]] + m)
    np.testing.assert_allclose(data.p_win, expit(np.array(q)))
    with pytest.raises(ValueError, match="exceeds the number of components"):
        make_game_matches(components=["a"], specs_per_deck=2)


# -- fitted models -------------------------------------------------------------------------


def test_fit_predict_and_save_a_fighting_game(fighting, tmp_path):
    data, clf = fighting
    assert clf.layout_.specs_per_deck == 0 and "first_move" in posterior.group(
        clf.idata_, "posterior"
    )
    p = clf.predict_proba(data.X)
    assert p.shape == (len(data.X), 2) and np.all((p > 0) & (p < 1))
    # A character the catalogue does not list is refused, written or given as a Deck.
    for nobody in ("nobody", Deck("nobody")):
        new = data.X.iloc[:2].assign(deck1=pd.Series([nobody] * 2, dtype=object))
        with pytest.raises(MatchTableError, match="unknown starter 'nobody' in deck 'nobody'"):
            clf.predict_proba(new)
    path = clf.save(tmp_path / "fighting.skcodex")
    back = load(path)
    assert back.catalogue == clf.catalogue
    np.testing.assert_allclose(back.predict_proba(data.X), p)


def test_save_and_load_a_hero_game(heroes, tmp_path):
    data, clf = heroes
    back = load(clf.save(tmp_path / "heroes.skcodex"))
    assert back.layout_.specs_per_deck == 2 and back.vocabulary_.decks == clf.vocabulary_.decks
    np.testing.assert_allclose(back.predict_proba(data.X), clf.predict_proba(data.X))
    pd.testing.assert_frame_equal(
        analysis.matchup_table(back, n_draws=20), analysis.matchup_table(clf, n_draws=20)
    )


def test_analyses_default_to_the_most_played_decks(heroes):
    data, clf = heroes
    decks = analysis.default_decks(clf)
    table = check_match_table(data.X, data.catalogue)
    counts = pd.Series([*table["deck1"], *table["deck2"]]).value_counts()
    assert len(decks) == min(analysis.N_DEFAULT_DECKS, len(counts))
    assert [counts[d] for d in decks] == sorted(counts.to_numpy(), reverse=True)[: len(decks)]
    m = analysis.matchup_table(clf, n_draws=50)
    assert set(m["deck1"]) == {analysis.deck_label(d, clf.catalogue) for d in decks}
    # The labels it prints are decks one can pass back in.
    again = analysis.matchup_table(clf, list(m["deck1"].unique()[:2]), n_draws=50)
    np.testing.assert_allclose(again["mean"], m.set_index(["deck1", "deck2"]).loc[
        list(zip(again["deck1"], again["deck2"])), "mean"])  # fmt: skip
    weights = analysis.nash_weights(clf, "most played", n_draws=10)
    assert np.allclose(weights.groupby("role")["mean"].sum(), 1.0)
    assert len(analysis.deck_ranking(clf, n_draws=50)) == len(decks)
    with pytest.raises(ValueError, match="not Codex decks"):
        analysis.matchup_table(clf, "monocolour")


def test_deck_spread_of_a_game_without_components(fighting):
    _, clf = fighting
    draws = analysis.spread_comparison_draws(clf)
    np.testing.assert_allclose(draws["sd_deck"], clf.spread_draws_[:, 1])


@pytest.mark.parametrize("game", ["fighting", "heroes"])
def test_report_holds_no_codex_only_text(game, request, tmp_path):
    from skcodex.report import write_report

    data, clf = request.getfixturevalue(game)
    page = write_report(clf, data.X, data.y, tmp_path, nash_draws=10)
    text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", page.read_text())
    for phrase in CODEX_ONLY:
        assert phrase not in text, phrase
    k = clf.layout_.specs_per_deck
    assert f"{1 + 2 * k + k * k} component" in text or k == 0
    assert "<title>Skills and matchups</title>" in text


# -- the encoder ---------------------------------------------------------------------------


def test_encoder_dense_and_pandas_output(heroes):
    data, _ = heroes
    enc = MatchupEncoder(data.catalogue).fit(data.X)
    sparse = enc.transform(data.X)
    dense = MatchupEncoder(data.catalogue, sparse_output=False).fit(data.X).transform(data.X)
    np.testing.assert_array_equal(dense, sparse.toarray())
    # Each row: two skill entries (+1, -1) and 1 + 2k + k^2 = 9 deck effects.
    np.testing.assert_array_equal(np.abs(dense).sum(axis=1), 2 + 9)
    frame = MatchupEncoder(data.catalogue).set_output(transform="pandas").fit_transform(data.X)
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == list(enc.get_feature_names_out())
    model = LogisticRegression(C=1.0, max_iter=500).fit(frame, data.y)
    assert model.predict_proba(frame).shape == (len(data.X), 2)


def test_encoder_for_characters_alone(fighting):
    data, _ = fighting
    enc = MatchupEncoder(data.catalogue).fit(data.X)
    X = enc.transform(data.X)
    n_chars = len(enc.vocabulary_.starters)
    assert X.shape == (len(data.X), len(enc.vocabulary_.players) + n_chars**2)


# -- recovery of known truth -----------------------------------------------------------------


def _recovery(data, clf):
    post = posterior.group(clf.idata_, "posterior")
    skill = post["skill"].mean(("chain", "draw")).to_series()
    r_skill = np.corrcoef(skill, data.params["skill"][skill.index])[0, 1]
    decks = analysis.default_decks(clf, 12)
    p = data.params
    truth = np.empty((len(decks), len(decks)))
    for i, a in enumerate(decks):
        for j, b in enumerate(decks):
            h, u = list(a.specs), list(b.specs)
            m = p["stst"].loc[a.starter, b.starter]
            if h:
                m += p["stsp"].loc[a.starter, u].sum() + p["spst"].loc[h, b.starter].sum()
                m += p["spsp"].loc[h, u].to_numpy().sum()
            truth[i, j] = m + p["first_move"]
    fitted = analysis.matchup_draws(clf, decks)
    logit = np.log(fitted / (1 - fitted)).mean(axis=0)
    r_cells = np.corrcoef(logit.ravel(), truth.ravel())[0, 1]
    return r_skill, r_cells


@pytest.mark.slow
def test_recovers_a_fighting_game_with_a_first_move_effect():
    data = make_game_matches(
        n_players=30, n_matches=2000, n_tournaments=6, starters=8, first_move=0.35,
        sd_stst=0.5, random_state=11,
    )  # fmt: skip
    clf = _fit(data.X, data.y, data.catalogue, draws=400, tune=400, chains=2, first_move=True)
    r_skill, r_cells = _recovery(data, clf)
    assert r_skill > 0.9
    assert r_cells > 0.7
    effect = np.asarray(posterior.group(clf.idata_, "posterior")["first_move"]).ravel()
    lo, hi = np.quantile(effect, [0.01, 0.99])
    assert lo < 0.35 < hi
    # The learned first-move effect and character cells forecast close to the truth.
    brier = np.mean((clf.predict_proba(data.X)[:, 1] - data.y) ** 2)
    oracle = np.mean((data.p_win - data.y) ** 2)
    assert brier < oracle + 0.01


@pytest.mark.slow
def test_recovers_a_hero_and_two_colours_game():
    data = make_game_matches(
        n_players=30, n_matches=2000, n_tournaments=6, starters=HEROES, components=COLOURS,
        specs_per_deck=2, sd_stst=0.4, sd_stsp=0.3, sd_spsp=0.2, decks_per_player=3,
        random_state=12,
    )  # fmt: skip
    clf = _fit(data.X, data.y, data.catalogue, draws=400, tune=400, chains=2)
    r_skill, r_cells = _recovery(data, clf)
    assert r_skill > 0.9
    assert r_cells > 0.7


# -- the command line --------------------------------------------------------------------------

FAST = ["--draws", "100", "--chains", "1", "--no-progress", "--no-holdout", "--nash-draws", "10"]


def _one_line_error(code, err, pattern):
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert re.search(pattern, lines[0]), lines[0]


@pytest.fixture(scope="module")
def game_csvs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("games")
    fight = make_game_matches(n_players=10, n_matches=120, n_tournaments=2, random_state=5)
    fight.X.assign(y=fight.y).to_csv(folder / "fight.csv", index=False)
    hero = make_game_matches(
        n_players=10, n_matches=120, n_tournaments=2, starters=HEROES, components=COLOURS,
        specs_per_deck=2, random_state=6,
    )  # fmt: skip
    winner = np.where(hero.y == 1, hero.X["player1"], hero.X["player2"])
    hero.X.assign(winner=winner).to_csv(folder / "heroes.csv", index=False)
    rows = ["kind,name", *(f"starter,{h}" for h in HEROES), *(f"component,{c}" for c in COLOURS)]
    (folder / "heroes_catalogue.csv").write_text("\n".join(rows) + "\n")
    return folder


def test_command_line_fits_a_fighting_game_from_its_own_names(game_csvs, tmp_path, capsys):
    code, out, err = _run(["fit", game_csvs / "fight.csv", "--out", tmp_path, *FAST], capsys)
    assert code == 0, err
    assert "not Codex decks" in out and "0 component(s)" in out
    text = re.sub(r"base64,[A-Za-z0-9+/=]+", "", (tmp_path / "report.html").read_text())
    assert not [p for p in CODEX_ONLY if p in text]
    deck = pd.read_csv(game_csvs / "fight.csv")["deck1"].iloc[0]
    argv = ["predict", tmp_path, "--p1", "player01", "--deck1", deck, "--p2", "player02"]
    code, out, err = _run([*argv, "--deck2", deck], capsys)
    assert code == 0, err
    assert re.search(r"P\(player01 with char\d+, listed first, beats player02", out)
    code, _, err = _run([*argv, "--deck2", f"{deck}/extra"], capsys)
    _one_line_error(code, err, r"--deck2: deck '.*/extra' has 1 component\(s\).*has 0 components")


def test_command_line_fits_heroes_against_a_catalogue_file(game_csvs, tmp_path, capsys):
    argv = ["fit", game_csvs / "heroes.csv", "--catalogue", game_csvs / "heroes_catalogue.csv"]
    decks = ["--decks", "Tala/Red/White,zane/blue/red"]
    code, out, err = _run([*argv, "--out", tmp_path, "--first-move", *decks, *FAST], capsys)
    assert code == 0, err
    matchups = pd.read_csv(tmp_path / "matchups.csv")
    assert matchups["deck1"].tolist() == ["Tala/Red/White"] * 2 + ["Zane/Blue/Red"] * 2
    clf = load(tmp_path / "model.skcodex")
    assert clf.catalogue.specs_per_deck == 2 and clf.layout_.options.first_move
    text = (tmp_path / "report.html").read_text()
    assert "9 component effects" in text and "first-move effect" in text
    base = ["predict", tmp_path, "--p1", "player01", "--p2", "player02", "--deck2"]
    code, out, err = _run([*base, "Zane/Blue/Red", "--deck1", "tala/red/white"], capsys)
    assert code == 0, err
    assert "Tala/Red/White" in out
    code, _, err = _run([*base, "Zane/Blue/Red", "--deck1", "Tal/Red/White"], capsys)
    _one_line_error(code, err, r"--deck1: unknown starter 'Tal'.*did you mean 'Tala'")


def test_command_line_errors_in_the_games_terms(game_csvs, tmp_path, capsys):
    table = pd.read_csv(game_csvs / "heroes.csv")
    table.loc[3, "deck1"] = "Tala/Red"
    mixed = tmp_path / "mixed.csv"
    table.to_csv(mixed, index=False)
    code, _, err = _run(["fit", mixed, "--out", tmp_path / "o", *FAST], capsys)
    _one_line_error(code, err, r"different numbers of components.*'Tala/Red' has 1")
    code, _, err = _run(
        ["fit", game_csvs / "heroes.csv", "--specs-per-deck", "1", "--out", tmp_path, *FAST],
        capsys,
    )
    _one_line_error(code, err, r"has 2 component\(s\) after its starter; a deck here has 1")
    code, _, err = _run(
        ["fit", game_csvs / "fight.csv", "--catalogue", tmp_path / "none.csv", "--out", tmp_path],
        capsys,
    )
    _one_line_error(code, err, "catalogue file .* does not exist")


def test_ratings_take_any_games_decks(game_csvs):
    from skcodex import EloClassifier, Glicko2Classifier

    table = pd.read_csv(game_csvs / "fight.csv")
    y = table.pop("y")
    for model in (EloClassifier(), Glicko2Classifier()):
        assert model.fit(table, y).predict_proba(table).shape == (len(table), 2)


def test_dense_output_falls_back_to_the_public_setting(monkeypatch):
    """Without scikit-learn's private helper, the global transform_output still decides."""
    import sys

    import sklearn

    from skcodex._compat.scikit_learn import dense_output_requested

    monkeypatch.setitem(sys.modules, "sklearn.utils._set_output", None)
    with sklearn.config_context(transform_output="pandas"):
        assert dense_output_requested(object())
    assert not dense_output_requested(object())
