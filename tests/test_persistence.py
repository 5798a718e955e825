"""Saving and loading fitted estimators: exact round trips, no pickle, clear refusals."""

import copy
import hashlib
import io
import json
import pickle
import subprocess
import sys
import warnings
import zipfile

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.linear_model import LogisticRegression

import skcodex
from skcodex import BayesianMatchupClassifier, EloClassifier, Glicko2Classifier, posterior
from skcodex.codex import CODEX, Deck
from skcodex.datasets import make_matches
from skcodex.persistence import FORMAT_VERSION, PersistenceError, load, save
from skcodex.preprocessing import MatchupEncoder

# The same data and settings as tests/test_classifier.py, so one compiled model serves both.
TINY = {"draws": 100, "tune": 100, "chains": 2, "random_state": 0}


@pytest.fixture(scope="module")
def data():
    return make_matches(n_players=16, n_matches=240, n_tournaments=4, random_state=5)


@pytest.fixture(scope="module")
def new_matches(data):
    """Matches with a player, a starter-spec pairing and a spec never seen in fit."""
    X = data.X.iloc[:6].copy()
    X["deck1"] = X["deck1"].astype(object)
    X.loc[X.index[0], "player1"] = "newcomer"
    X.loc[X.index[1], "deck2"] = "[Anarchy]/Law/Peace"
    X.loc[X.index[2], "deck1"] = Deck("Red", ("Anarchy", "Blood", "DemonBash"))
    return X


@pytest.fixture(scope="module")
def bayes(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return BayesianMatchupClassifier(**TINY).fit(data.X, data.y)


@pytest.fixture(scope="module")
def ratings(data):
    return [
        EloClassifier().fit(data.X, data.y),
        EloClassifier(updates="period", first_mover_advantage="auto").fit(data.X, data.y),
        Glicko2Classifier(tau=0.3).fit(data.X, data.y),
        Glicko2Classifier(first_mover_advantage="auto").fit(data.X.drop(columns="period"), data.y),
    ]


def _rewrite(src, dst, change_meta=None, change_member=None, add=None):
    """Copy a saved file, editing its metadata or one member (without fixing checksums)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for name in zin.namelist():
            blob = zin.read(name)
            if name == "metadata.json" and change_meta:
                meta = json.loads(blob)
                change_meta(meta)
                blob = json.dumps(meta).encode()
            elif change_member and name == change_member[0]:
                blob = change_member[1](blob)
            zout.writestr(name, blob)
        if add:
            zout.writestr(*add)


# -- round trips -------------------------------------------------------------------------


def test_bayesian_round_trip_is_exact(bayes, new_matches, tmp_path):
    path = bayes.save(tmp_path / "model.skcodex")
    assert path == tmp_path / "model.skcodex"
    again = skcodex.load(path)
    assert type(again) is BayesianMatchupClassifier
    assert again.get_params() == bayes.get_params()
    # bit-identical, including the fresh draws for the unseen player, pairing and spec
    assert np.array_equal(again.predict_proba(new_matches), bayes.predict_proba(new_matches))
    assert np.array_equal(
        again.predict_proba_draws(new_matches), bayes.predict_proba_draws(new_matches)
    )
    for attr in ("effect_draws_", "spread_draws_", "classes_", "feature_names_in_"):
        a, b = getattr(again, attr), getattr(bayes, attr)
        assert a.dtype == b.dtype and np.array_equal(a, b), attr
    assert again.vocabulary_ == bayes.vocabulary_
    assert again.layout_ == bayes.layout_
    assert again._unseen_seed == bayes._unseen_seed
    assert again.convergence_problems_ == bayes.convergence_problems_
    assert posterior.group_names(again.idata_) == posterior.group_names(bayes.idata_)
    assert posterior.group(again.idata_, "posterior").equals(
        posterior.group(bayes.idata_, "posterior")
    )
    assert posterior.group(again.idata_, "sample_stats").equals(
        posterior.group(bayes.idata_, "sample_stats")
    )
    assert list(
        posterior.group(again.idata_, "posterior")["skill"].coords["player"].values
    ) == list(bayes.vocabulary_.players)


@pytest.mark.parametrize("index", range(4))
def test_rating_round_trip_is_exact(ratings, new_matches, tmp_path, index):
    model = ratings[index]
    again = load(model.save(tmp_path / "ratings.skcodex"))
    assert type(again) is type(model) and again.get_params() == model.get_params()
    assert np.array_equal(again.predict_proba(new_matches), model.predict_proba(new_matches))
    pd.testing.assert_frame_equal(again.ratings_, model.ratings_)
    pd.testing.assert_index_equal(again._players, model._players, exact=True)
    assert again.first_mover_advantage_ == model.first_mover_advantage_


def test_parameters_that_are_objects_round_trip(bayes, new_matches, tmp_path):
    """A custom catalogue and a RandomState survive as values, not as pickles."""
    catalogue = CODEX.with_specs({"DemonBash": "Black"}).with_nicknames(
        {"Bashers": Deck("Black", ("DemonBash", "Anarchy", "Law"))}
    )
    model = copy.deepcopy(bayes).set_params(
        catalogue=catalogue, random_state=np.random.RandomState(3)
    )
    again = load(save(model, tmp_path / "custom.skcodex"))
    assert again.catalogue == catalogue and again.catalogue.nickname("bashers") is not None
    state, expected = again.random_state.get_state(), model.random_state.get_state()
    assert state[0] == expected[0] and np.array_equal(state[1], expected[1])
    assert state[2:] == expected[2:]
    table = new_matches.assign(deck1="Bashers")
    assert np.array_equal(again.predict_proba(table), model.predict_proba(table))


def test_matchup_encoder_round_trip(data, tmp_path):
    encoder = MatchupEncoder(catalogue=CODEX.with_specs({"DemonBash": "Black"})).fit(data.X)
    again = load(save(encoder, tmp_path / "encoder.skcodex"))
    assert again.catalogue == encoder.catalogue
    assert (again.transform(data.X) != encoder.transform(data.X)).nnz == 0


def test_saving_twice_gives_identical_files(bayes, tmp_path):
    first, second = bayes.save(tmp_path / "a.skcodex"), bayes.save(tmp_path / "b.skcodex")
    assert first.read_bytes() == second.read_bytes()


def test_file_layout_and_checksums(bayes, tmp_path):
    path = bayes.save(tmp_path / "model.skcodex")
    with zipfile.ZipFile(path) as archive:
        meta = json.loads(archive.read("metadata.json"))
        assert meta["format"] == "skcodex-model"
        assert meta["format_version"] == FORMAT_VERSION
        assert meta["skcodex_version"] == skcodex.__version__
        assert meta["estimator"] == "BayesianMatchupClassifier"
        assert set(archive.namelist()) == {"metadata.json", *meta["members"]}
        for name, record in meta["members"].items():
            blob = archive.read(name)
            assert hashlib.sha256(blob).hexdigest() == record["sha256"]
            assert len(blob) == record["bytes"]
        nc = [n for n in meta["members"] if n.endswith(".nc")]
        assert len(nc) == 1 and archive.read(nc[0])[:4] == b"\x89HDF"  # NetCDF-4 / HDF5
        with np.load(io.BytesIO(archive.read("arrays.npz")), allow_pickle=False) as npz:
            assert all(npz[k].dtype != object for k in npz.files)


def test_loading_never_unpickles(bayes, ratings, tmp_path, monkeypatch):
    paths = [bayes.save(tmp_path / "b.skcodex"), ratings[2].save(tmp_path / "g.skcodex")]

    def refuse(*args, **kwargs):
        raise AssertionError("load() must not unpickle anything")

    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "Unpickler", refuse)
    for path in paths:
        assert load(path) is not None


@pytest.mark.slow
def test_load_in_a_fresh_process(bayes, new_matches, tmp_path):
    path = bayes.save(tmp_path / "model.skcodex")
    new_matches.to_pickle(tmp_path / "X.pkl")
    script = (
        "import sys, numpy as np, pandas as pd, skcodex\n"
        "clf = skcodex.load(sys.argv[1])\n"
        "np.save(sys.argv[3], clf.predict_proba(pd.read_pickle(sys.argv[2])))\n"
    )
    out = tmp_path / "p.npy"
    subprocess.run(
        [sys.executable, "-c", script, str(path), str(tmp_path / "X.pkl"), str(out)],
        check=True,
        timeout=300,
    )
    assert np.array_equal(np.load(out), bayes.predict_proba(new_matches))


# -- pickle and joblib still work -------------------------------------------------------


@pytest.mark.parametrize("dump", ["pickle", "joblib"])
def test_pickle_and_joblib(bayes, ratings, new_matches, tmp_path, dump):
    for model in (bayes, *ratings):
        path = tmp_path / "model.bin"
        if dump == "pickle":
            path.write_bytes(pickle.dumps(model))
            again = pickle.loads(path.read_bytes())
        else:
            joblib.dump(model, path)
            again = joblib.load(path)
        assert np.array_equal(again.predict_proba(new_matches), model.predict_proba(new_matches))


def test_pickles_carry_no_compiled_model_or_lock(bayes):
    blob = pickle.dumps(bayes)
    for marker in (b"nutpie", b"pytensor", b"numba", b"_thread", b"Lock"):
        assert marker not in blob, marker


# -- refusals ----------------------------------------------------------------------------


def test_other_format_version_is_refused(bayes, tmp_path):
    good = bayes.save(tmp_path / "good.skcodex")
    bad = tmp_path / "v2.skcodex"
    _rewrite(good, bad, change_meta=lambda m: m.update(format_version=FORMAT_VERSION + 1))
    with pytest.raises(PersistenceError) as err:
        load(bad)
    message = str(err.value)
    assert f"format version {FORMAT_VERSION + 1}" in message
    assert f"reads format version {FORMAT_VERSION}" in message


def _flip(blob: bytes, at: float = 0.6) -> bytes:
    pos = int(len(blob) * at)
    return blob[:pos] + bytes([blob[pos] ^ 0xFF]) + blob[pos + 1 :]


@pytest.mark.parametrize("member", ["nc", "arrays.npz", "metadata.json"])
def test_corrupted_file_is_refused(bayes, tmp_path, member):
    path = bayes.save(tmp_path / "model.skcodex")
    with zipfile.ZipFile(path) as archive:
        info = next(i for i in archive.infolist() if i.filename.endswith(member))
    raw = bytearray(path.read_bytes())
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    raw[start + info.compress_size // 2] ^= 0xFF  # one flipped byte inside the member
    path.write_bytes(bytes(raw))
    with pytest.raises(PersistenceError, match="corrupted"):
        load(path)


def test_altered_member_with_valid_zip_is_refused(bayes, tmp_path):
    good = bayes.save(tmp_path / "good.skcodex")
    bad = tmp_path / "altered.skcodex"
    _rewrite(good, bad, change_member=("arrays.npz", _flip))
    with pytest.raises(PersistenceError, match=r"checksum of arrays\.npz does not match"):
        load(bad)


@pytest.mark.parametrize("fraction", [0.0, 0.1, 0.5, 0.99])
def test_truncated_file_is_refused(ratings, tmp_path, fraction):
    path = ratings[2].save(tmp_path / "model.skcodex")
    blob = path.read_bytes()
    path.write_bytes(blob[: int(len(blob) * fraction)])
    with pytest.raises(PersistenceError, match="truncated"):
        load(path)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda m: m.update(estimator="os.system"), "unknown estimator class 'os.system'"),
        (lambda m: m.update(format="pickle"), "not a saved skcodex estimator"),
        (lambda m: m["state"].update(_mu={"__skcodex__": "eval", "x": 1}), "unrecognised"),
        (lambda m: m["state"].pop("_mu"), "lacks the fitted attribute"),
        (lambda m: m["params"].update(shell="rm -rf /"), "does not have"),
        (
            lambda m: m["state"].update(ratings_={"__skcodex__": "dataclass", "class": "Popen"}),
            "unknown value class 'Popen'",
        ),
    ],
)
def test_tampered_metadata_is_refused(ratings, tmp_path, edit, message):
    good = ratings[2].save(tmp_path / "good.skcodex")
    bad = tmp_path / "bad.skcodex"
    _rewrite(good, bad, change_meta=edit)
    with pytest.raises(PersistenceError, match=message):
        load(bad)


def test_extra_member_is_refused(ratings, tmp_path):
    good = ratings[0].save(tmp_path / "good.skcodex")
    bad = tmp_path / "bad.skcodex"
    _rewrite(good, bad, add=("payload.pkl", pickle.dumps(print)))
    with pytest.raises(PersistenceError, match=r"unexpected payload\.pkl"):
        load(bad)


def test_not_a_model_file(tmp_path):
    csv = tmp_path / "matches.csv"
    csv.write_text("player1,player2\nann,bob\n")
    with pytest.raises(PersistenceError, match="not a saved skcodex estimator"):
        load(csv)
    with pytest.raises(PersistenceError, match="is a folder"):
        load(tmp_path)
    with pytest.raises(FileNotFoundError):
        load(tmp_path / "missing.skcodex")
    with pytest.raises(TypeError, match="path must be a file name"):
        load(io.BytesIO(b""))


def test_save_refuses_unfitted_and_foreign_estimators(data, tmp_path):
    with pytest.raises(NotFittedError, match="fit it before saving"):
        EloClassifier().save(tmp_path / "x.skcodex")
    lr = LogisticRegression().fit(np.eye(2), [0, 1])
    with pytest.raises(PersistenceError, match="use joblib or pickle"):
        save(lr, tmp_path / "x.skcodex")
    assert not list(tmp_path.iterdir())


def test_failed_save_leaves_the_old_file(ratings, tmp_path):
    path = ratings[0].save(tmp_path / "model.skcodex")
    before = path.read_bytes()
    broken = copy.deepcopy(ratings[0])
    broken.extra_ = object()
    with pytest.raises(PersistenceError, match=r"EloClassifier\.extra_.*not supported"):
        broken.save(path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["model.skcodex"]
