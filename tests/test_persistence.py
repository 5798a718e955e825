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
from skcodex import BayesianMatchupClassifier, EloClassifier, Glicko2Classifier
from skcodex._compat import posterior
from skcodex._format.persistence import FORMAT_VERSION, PersistenceError, load, save
from skcodex.codex import CODEX, Deck
from skcodex.datasets import make_matches
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


def _rewrite(src, dst, change_meta=None, change_member=None, add=None, fix=True):
    """Copy a saved file, editing its metadata or one member.

    With ``fix`` the manifest's digests are recomputed, as the author of a
    hostile file would; without it the edit shows as damage.
    """
    with zipfile.ZipFile(src) as zin:
        blobs = {name: zin.read(name) for name in zin.namelist()}
    for name, blob in list(blobs.items()):
        if name == "metadata.json" and change_meta:
            meta = json.loads(blob)
            change_meta(meta)
            blobs[name] = json.dumps(meta).encode()
        elif change_member and name == change_member[0]:
            blobs[name] = change_member[1](blob)
    if add:
        blobs[add[0]] = add[1] if isinstance(add[1], bytes) else add[1].encode()
    if fix:
        manifest = json.loads(blobs["manifest.json"])
        manifest["members"] = {
            name: {"sha256": hashlib.sha256(blob).hexdigest(), "bytes": len(blob)}
            for name, blob in blobs.items()
            if name not in ("manifest.json", "signature")
        }
        blobs["manifest.json"] = json.dumps(manifest).encode()
    with zipfile.ZipFile(dst, "w") as zout:
        for name, blob in blobs.items():
            method = zipfile.ZIP_DEFLATED if name.endswith(".json") else zipfile.ZIP_STORED
            zout.writestr(name, blob, compress_type=method)


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
        manifest = json.loads(archive.read("manifest.json"))
        meta = json.loads(archive.read("metadata.json"))
        assert manifest["format"] == meta["format"] == "skcodex-model"
        assert manifest["format_version"] == meta["format_version"] == FORMAT_VERSION
        assert meta["skcodex_version"] == skcodex.__version__
        assert meta["estimator"] == "BayesianMatchupClassifier"
        assert set(meta["state"]) == set(BayesianMatchupClassifier._persisted_state)
        # every member but the manifest itself, the metadata included, has its digest
        assert set(archive.namelist()) == {"manifest.json", *manifest["members"]}
        assert "metadata.json" in manifest["members"]
        for name, record in manifest["members"].items():
            blob = archive.read(name)
            assert hashlib.sha256(blob).hexdigest() == record["sha256"]
            assert len(blob) == record["bytes"]
            info = archive.getinfo(name)
            if not name.endswith(".json"):  # numeric members are stored as is
                assert info.compress_type == zipfile.ZIP_STORED
        nc = [n for n in manifest["members"] if n.endswith(".nc")]
        assert len(nc) == 1 and archive.read(nc[0])[:4] == b"\x89HDF"  # NetCDF-4 / HDF5
        with np.load(io.BytesIO(archive.read("arrays.npz")), allow_pickle=False) as npz:
            assert all(npz[k].dtype != object for k in npz.files)


def test_loading_never_unpickles(bayes, ratings, data, tmp_path, monkeypatch):
    paths = [bayes.save(tmp_path / "b.skcodex"), ratings[2].save(tmp_path / "g.skcodex")]

    def refuse(*args, **kwargs):
        raise AssertionError("load() must not unpickle anything")

    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "Unpickler", refuse)
    for path, model in zip(paths, (bayes, ratings[2])):
        again = load(path)
        assert type(again) is type(model) and again.get_params() == model.get_params()
        X = data.X.iloc[:20]
        assert np.array_equal(again.predict_proba(X), model.predict_proba(X))


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

    def bump(blob):
        manifest = json.loads(blob)
        manifest["format_version"] = FORMAT_VERSION + 1
        return json.dumps(manifest).encode()

    _rewrite(good, bad, change_member=("manifest.json", bump), fix=False)
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
    _rewrite(good, bad, change_member=("arrays.npz", _flip), fix=False)
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
        (lambda m: m["state"].update(__class__="x"), "'__class__', which is not a fitted"),
        (lambda m: m["state"].update(__dict__={}), "'__dict__', which is not a fitted"),
        (lambda m: m["state"].update(predict_proba=1), "'predict_proba', which is not a"),
        (lambda m: m["state"].update(save=None), "'save', which is not a fitted"),
        (lambda m: m["params"].update(__class__="x"), "does not have"),
        (lambda m: m["params"].update(tau="fast"), "invalid parameter"),
        (lambda m: m.update(estimator="PersistenceError"), "unknown estimator class"),
        (lambda m: m.update(estimator="load"), "unknown estimator class"),
        (lambda m: m.update(estimator=["x"]), "unknown estimator class"),
        (lambda m: m.update(state=[]), "no fitted state"),
        (lambda m: m["state"].update(_mu={"__skcodex__": "tuple", "items": 3}), "malformed"),
        (lambda m: m["state"].update(_mu={"__skcodex__": "ndarray", "key": "a999"}), "missing"),
        (lambda m: m["state"].update(_mu={"__skcodex__": ["list"]}), "unrecognised"),
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
    with pytest.raises(PersistenceError, match=r"unexpected member 'payload\.pkl'"):
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
    with pytest.raises(PersistenceError, match=r"EloClassifier\.extra_.*not among the fitted"):
        broken.save(path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["model.skcodex"]


# -- hostile files -----------------------------------------------------------------------


def test_edited_metadata_is_damage(ratings, new_matches, tmp_path):
    """The metadata is covered by the manifest: editing it without the digest is refused."""
    good = ratings[0].save(tmp_path / "good.skcodex")
    bad = tmp_path / "bad.skcodex"
    _rewrite(good, bad, change_meta=lambda m: m["params"].update(k_factor=99.0), fix=False)
    with pytest.raises(PersistenceError, match=r"(checksum|size) of metadata\.json does not"):
        load(bad)


def test_version_one_file_is_refused_with_a_reason(ratings, tmp_path):
    old = tmp_path / "v1.skcodex"
    with zipfile.ZipFile(old, "w") as archive:
        archive.writestr("metadata.json", json.dumps({"format": "skcodex-model"}))
    with pytest.raises(PersistenceError, match="format version 1"):
        load(old)


@pytest.mark.parametrize("depth", [65, 5_000, 200_000])
def test_deeply_nested_json_is_refused(ratings, tmp_path, depth):
    good = ratings[0].save(tmp_path / "good.skcodex")
    bad = tmp_path / "deep.skcodex"
    nested = "[" * depth + "]" * depth

    def deepen(blob):
        return blob.replace(b'"state": {', b'"junk": ' + nested.encode() + b', "state": {', 1)

    _rewrite(good, bad, change_member=("metadata.json", deepen))
    with pytest.raises(PersistenceError, match="nested"):
        load(bad)


def test_a_declared_state_cannot_shadow_the_class():
    for name in ("predict_proba", "__class__", "save", "classes_x", "_persisted_state"):
        if name == "classes_x":
            continue
        with pytest.raises(TypeError, match="not a plain instance attribute"):
            type("Hostile", (EloClassifier,), {"_persisted_state": (name,)})


def _zip_with(path, members, method=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w") as archive:
        for name, blob in members.items():
            archive.writestr(name, blob, compress_type=method)


def _members(path):
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _with_manifest(members):
    manifest = {
        "format": "skcodex-model",
        "format_version": FORMAT_VERSION,
        "members": {
            n: {"sha256": hashlib.sha256(b).hexdigest(), "bytes": len(b)}
            for n, b in members.items()
            if n not in ("manifest.json", "signature")
        },
    }
    return {**members, "manifest.json": json.dumps(manifest).encode()}


def test_zip_bomb_declared_size_is_refused_before_reading(tmp_path):
    bomb = tmp_path / "bomb.skcodex"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open("metadata.json", "w", force_zip64=True) as fh:
            block = b"\0" * (1 << 20)
            for _ in range(200):  # 200 MB of zeros, about 200 kB in the file
                fh.write(block)
        archive.writestr("manifest.json", "{}")
    assert bomb.stat().st_size < 1_000_000
    with pytest.raises(PersistenceError, match="claims 209715200 bytes"):
        load(bomb)


def test_zip_bomb_lying_about_its_size_is_cut_off(tmp_path):
    """A member that claims 1 kB but inflates to 200 MB is read no further than 1 kB."""
    import struct
    import tracemalloc

    bomb = tmp_path / "liar.skcodex"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.json", b"\0" * (200 << 20))
    raw = bytearray(bomb.read_bytes())
    local = raw.index(b"PK\x03\x04")
    central = raw.index(b"PK\x01\x02")
    struct.pack_into("<I", raw, local + 22, 1000)  # uncompressed size in the local header
    struct.pack_into("<I", raw, central + 24, 1000)  # and in the central directory
    bomb.write_bytes(bytes(raw))
    tracemalloc.start()
    try:
        with pytest.raises(PersistenceError):
            load(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 << 20, peak


def _npy(header_shape, data: bytes) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buffer, {"descr": "<f8", "fortran_order": False, "shape": header_shape}
    )
    return buffer.getvalue() + data


@pytest.mark.parametrize(
    ("shape", "message"),
    [((10**12,), "claims 8000000000000 bytes"), ((10**9, 10**9), "claims"), ((3,), "claims 24")],
)
def test_npz_header_claiming_a_huge_array_is_refused(ratings, tmp_path, shape, message):
    good = ratings[0].save(tmp_path / "good.skcodex")
    members = _members(good)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as npz:
        with zipfile.ZipFile(io.BytesIO(members["arrays.npz"])) as real:
            for name in real.namelist():
                npz.writestr(name, real.read(name))
        npz.writestr("a99.npy", _npy(shape, b"\0" * 16))
    members["arrays.npz"] = buffer.getvalue()
    bad = tmp_path / "huge.skcodex"
    _zip_with(bad, _with_manifest(members))
    with pytest.raises(PersistenceError, match=message):
        load(bad)


def test_compressed_or_pickled_arrays_are_refused(ratings, tmp_path):
    good = ratings[0].save(tmp_path / "good.skcodex")
    for arrays, message in (
        ({"a0": np.zeros(5)}, "compressed"),
        ({"a0": np.array([print], dtype=object)}, "dtype object"),
    ):
        members = _members(good)
        buffer = io.BytesIO()
        if message == "compressed":
            np.savez_compressed(buffer, **arrays)
        else:
            np.savez(buffer, **arrays)
        members["arrays.npz"] = buffer.getvalue()
        bad = tmp_path / "arrays.skcodex"
        _zip_with(bad, _with_manifest(members))
        with pytest.raises(PersistenceError, match=message):
            load(bad)


@pytest.mark.parametrize("kind", ["device", "fifo", "folder", "symlink to a device"])
def test_only_regular_files_are_read(tmp_path, kind):
    import os

    if kind == "device":
        path = "/dev/zero"
    elif kind == "fifo":
        path = tmp_path / "pipe"
        os.mkfifo(path)
    elif kind == "folder":
        path = tmp_path
    else:
        path = tmp_path / "link.skcodex"
        path.symlink_to("/dev/zero")
    if not os.path.exists(path):
        pytest.skip("no such device here")
    with pytest.raises(PersistenceError, match=r"not a regular file|is a folder"):
        load(path)


def test_size_limit(ratings, tmp_path):
    path = ratings[0].save(tmp_path / "model.skcodex")
    with pytest.raises(PersistenceError, match="more than the 100 bytes"):
        load(path, max_bytes=100)
    again = load(path, max_bytes=path.stat().st_size)  # exactly the file's size is allowed
    assert type(again) is EloClassifier and again.ratings_.equals(ratings[0].ratings_)


def test_concurrent_saves_all_succeed(ratings, tmp_path):
    import threading

    path = tmp_path / "model.skcodex"
    errors = []

    def work(model):
        for _ in range(5):
            try:
                model.save(path)
            except Exception as err:
                errors.append(err)

    threads = [threading.Thread(target=work, args=(ratings[i],)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    again = load(path)  # the last save to finish: one of the four, whole
    assert any(type(again) is type(m) and again.get_params() == m.get_params() for m in ratings)
    assert [p.name for p in tmp_path.iterdir()] == ["model.skcodex"]


# -- signatures --------------------------------------------------------------------------


def test_signed_file_verifies_with_its_key_only(ratings, new_matches, tmp_path):
    model = ratings[2]
    path = model.save(tmp_path / "signed.skcodex", key=b"secret")
    again = load(path, key=b"secret")
    assert np.array_equal(again.predict_proba(new_matches), model.predict_proba(new_matches))
    unkeyed = load(path)  # the signature is only checked when a key is given
    assert np.array_equal(unkeyed.predict_proba(new_matches), model.predict_proba(new_matches))
    with pytest.raises(PersistenceError, match="signature does not match"):
        load(path, key=b"another")
    unsigned = model.save(tmp_path / "unsigned.skcodex")
    with pytest.raises(PersistenceError, match="not signed"):
        load(unsigned, key=b"secret")
    # an author without the key can recompute every digest, but not the signature
    forged = tmp_path / "forged.skcodex"
    _rewrite(path, forged, change_meta=lambda m: m["params"].update(tau=0.9))
    assert load(forged).tau == 0.9
    with pytest.raises(PersistenceError, match="signature does not match"):
        load(forged, key=b"secret")
    with pytest.raises(TypeError, match="key must be non-empty"):
        model.save(tmp_path / "x.skcodex", key=b"")


# -- HDF5 self-containment ---------------------------------------------------------------


def _hdf5(path, kind, target):
    import h5py

    with h5py.File(path, "w") as fh:
        fh.create_dataset("fine", data=np.arange(4.0))
        group = fh.create_group("posterior")
        if kind == "external storage":
            group.create_dataset("skill", shape=(8,), dtype="u1", external=[(str(target), 0, 8)])
        elif kind == "virtual dataset":
            layout = h5py.VirtualLayout(shape=(4,), dtype="f8")
            layout[:] = h5py.VirtualSource(str(target), "data", shape=(4,))
            group.create_virtual_dataset("skill", layout)
        elif kind == "external link":
            group["skill"] = h5py.ExternalLink(str(target), "/data")


@pytest.mark.parametrize("kind", ["external storage", "virtual dataset", "external link"])
def test_hdf5_reaching_outside_the_file_is_refused(tmp_path, kind):
    import h5py

    from skcodex._format.persistence import check_hdf5_self_contained

    secret = tmp_path / "secret.h5"
    with h5py.File(secret, "w") as fh:
        fh.create_dataset("data", data=np.arange(4.0))
    path = tmp_path / "hostile.nc"
    _hdf5(path, kind, secret)
    with pytest.raises(PersistenceError, match=kind.split()[0]):
        check_hdf5_self_contained(path)
    plain = tmp_path / "plain.nc"
    _hdf5(plain, "none", secret)
    assert check_hdf5_self_contained(plain) == 32
    with pytest.raises(PersistenceError, match="more than 16 bytes"):
        check_hdf5_self_contained(plain, max_bytes=16)


def test_posterior_with_external_storage_is_refused_on_load(bayes, tmp_path):
    """The posterior member of a real file, rewritten to pull in a local file's bytes."""
    import h5py

    good = bayes.save(tmp_path / "good.skcodex")
    members = _members(good)
    member = next(n for n in members if n.endswith(".nc"))
    nc = tmp_path / "posterior.nc"
    nc.write_bytes(members[member])
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"private!" * 4)
    with h5py.File(nc, "a") as fh:
        del fh["posterior/sd"]
        fh["posterior"].create_dataset(
            "sd", shape=(32,), dtype="u1", external=[(str(secret), 0, 32)]
        )
    members[member] = nc.read_bytes()
    bad = tmp_path / "bad.skcodex"
    _zip_with(bad, _with_manifest(members))
    with pytest.raises(PersistenceError, match="external file"):
        load(bad)


# -- random damage -----------------------------------------------------------------------

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_damage = st.one_of(
    st.tuples(st.just("flip"), st.floats(0, 1, exclude_max=True), st.integers(1, 255)),
    st.tuples(st.just("truncate"), st.floats(0, 1, exclude_max=True), st.just(0)),
    st.tuples(st.just("insert"), st.floats(0, 1), st.integers(0, 255)),
    st.tuples(st.just("delete"), st.floats(0, 1, exclude_max=True), st.just(0)),
)


def _damaged(blob: bytes, damage) -> bytes:
    kind, at, value = damage
    if not blob and kind != "insert":
        return blob
    pos = min(int(len(blob) * at), len(blob) - (kind != "insert"))
    if kind == "flip":
        return blob[:pos] + bytes([blob[pos] ^ value]) + blob[pos + 1 :]
    if kind == "truncate":
        return blob[:pos]
    if kind == "insert":
        return blob[:pos] + bytes([value]) + blob[pos:]
    return blob[:pos] + blob[pos + 1 :]


@pytest.fixture(scope="module")
def saved_kinds(bayes, ratings, data, tmp_path_factory):
    root = tmp_path_factory.mktemp("damage")
    models = {
        "bayes": bayes,
        "elo": ratings[1],
        "glicko": ratings[2],
        "encoder": MatchupEncoder().fit(data.X),
    }
    return {
        kind: _Saved(model, model.save(root / f"{kind}.skcodex")) for kind, model in models.items()
    }


class _Saved:
    """A model and its file's bytes (with a short repr for hypothesis's reports)."""

    def __init__(self, model, path):
        self.model, self.blob = model, path.read_bytes()

    def __iter__(self):
        return iter((self.model, self.blob))

    def __repr__(self):
        return f"<saved {type(self.model).__name__}>"


def _same_model(again, model, X) -> None:
    assert type(again) is type(model) and again.get_params() == model.get_params()
    if isinstance(model, MatchupEncoder):
        assert (again.transform(X) != model.transform(X)).nnz == 0
    else:
        assert np.array_equal(again.predict_proba(X), model.predict_proba(X))


@pytest.mark.parametrize("kind", ["bayes", "elo", "glicko", "encoder"])
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(damage=st.lists(_damage, min_size=1, max_size=3))
def test_random_damage_gives_an_error_or_the_same_model(
    saved_kinds, new_matches, tmp_path, kind, damage
):
    model, blob = saved_kinds[kind]
    for step in damage:
        blob = _damaged(blob, step)
    path = tmp_path / "damaged.skcodex"
    path.write_bytes(blob)
    try:
        again = load(path)
    except PersistenceError:
        return
    _same_model(again, model, new_matches)


def test_posterior_that_would_inflate_is_refused(bayes, tmp_path):
    """Unwritten HDF5 chunks take no space in the file but all of it once read."""
    import h5py

    good = bayes.save(tmp_path / "good.skcodex")
    members = _members(good)
    member = next(n for n in members if n.endswith(".nc"))
    nc = tmp_path / "posterior.nc"
    nc.write_bytes(members[member])
    with h5py.File(nc, "a") as fh:
        fh["posterior"].create_dataset("huge", shape=(10**10,), chunks=(10**5,), dtype="f8")
    members[member] = nc.read_bytes()
    assert len(members[member]) < 10 * 1024**2
    bad = tmp_path / "bad.skcodex"
    _zip_with(bad, _with_manifest(members))
    with pytest.raises(PersistenceError, match="would take more than"):
        load(bad)


def test_unsavable_text_is_a_persistence_error(ratings, tmp_path):
    model = copy.deepcopy(ratings[0])
    model.ratings_ = model.ratings_.assign(
        player=pd.Series(["bad\udc80"] * len(model.ratings_), dtype=object)
    )
    with pytest.raises(PersistenceError, match="cannot save this EloClassifier"):
        model.save(tmp_path / "x.skcodex")
    assert not list(tmp_path.iterdir())
