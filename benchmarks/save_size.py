"""Saved-model size and load time of a default fit on the real data.

Fits `BayesianMatchupClassifier` with its defaults (4 chains x 1,000 draws)
to the 771 default-filtered codexdata matches, saves it, and reports

- the file's size and the size of each member (metadata, arrays, posterior);
- what the posterior would take stored the way earlier versions stored it
  (float64 effect blocks beside the standard normals ``z``, a second flat
  copy of every effect and spread draw, and the pointwise log-likelihood),
  computed from the same draws, for the ratio;
- load time (median of 5 loads in this process) and the time to the first
  prediction after loading (the log-likelihood is recomputed on load);
- that the loaded model predicts bit for bit what the fitted one does, and
  that ArviZ's LOO on the loaded ``idata_`` equals LOO on the fitted one.

Usage::

    python benchmarks/save_size.py            # the real data (needs ../shared)
    python benchmarks/save_size.py --quick    # 2 x 200 draws, a smoke test

Writes ``benchmarks/results/save_size-<python>.json`` and prints a table.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import warnings
import zipfile
from pathlib import Path

import numpy as np

from skcodex import BayesianMatchupClassifier, load
from skcodex._compat import posterior

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from fit_speed import load_real, machine, write_results  # noqa: E402


def earlier_layout_bytes(clf) -> int:
    """Bytes the same draws took in the earlier layout (all float64, stored twice)."""
    post = posterior.group(clf.idata_, "posterior")
    n = post.sizes["chain"] * post.sizes["draw"]
    blocks = sum(int(np.prod(post[v].shape)) for v in post.data_vars)
    z = clf.layout_.n_free * n
    flat = clf.effect_draws_.size + clf.spread_draws_.size
    loglik = posterior.group(clf.idata_, "log_likelihood")
    ll = 0 if loglik is None else int(np.prod(loglik["outcome"].shape))
    return 8 * (blocks + z + flat + ll)


def elpd(loo) -> float:
    """elpd_loo of ``az.loo``'s result on either ArviZ line."""
    return float(loo.elpd if hasattr(loo, "elpd") else loo["elpd_loo"])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 chains x 200 draws")
    args = parser.parse_args(argv)
    X, y, catalogue = load_real()
    options = {"draws": 200, "tune": 200, "chains": 2} if args.quick else {}
    clf = BayesianMatchupClassifier(random_state=0, catalogue=catalogue, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, y)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "model.skcodex"
        t0 = time.perf_counter()
        clf.save(path)
        save_s = time.perf_counter() - t0
        size = path.stat().st_size
        with zipfile.ZipFile(path) as archive:
            members = {info.filename: info.file_size for info in archive.infolist()}
        loads, first = [], []
        for _ in range(5):
            t0 = time.perf_counter()
            again = load(path)
            loads.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            p_again = again.predict_proba(X)
            first.append(time.perf_counter() - t0)
    same = bool(np.array_equal(p_again, clf.predict_proba(X)))
    import arviz as az

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loo_fit = elpd(az.loo(clf.idata_))
        loo_loaded = elpd(az.loo(again.idata_))
    post = posterior.group(clf.idata_, "posterior")
    result = {
        "machine": machine(),
        "matches": len(X),
        "draws": int(post.sizes["chain"] * post.sizes["draw"]),
        "file_mb": size / 1e6,
        "members_mb": {k: v / 1e6 for k, v in members.items()},
        "earlier_layout_mb": earlier_layout_bytes(clf) / 1e6,
        "save_s": save_s,
        "load_s_median": float(np.median(loads)),
        "first_predict_s_median": float(np.median(first)),
        "identical_predictions": same,
        "loo_elpd_fitted": loo_fit,
        "loo_elpd_loaded": loo_loaded,
    }
    tag = "quick" if args.quick else f"py{sys.version_info.major}{sys.version_info.minor}"
    out = write_results(f"save_size-{tag}", result)
    print("| matches | draws | file MB | earlier layout MB | save s | load s | first predict s |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    print(
        f"| {len(X)} | {result['draws']} | {result['file_mb']:.1f} | "
        f"{result['earlier_layout_mb']:.1f} | {save_s:.2f} | {result['load_s_median']:.2f} | "
        f"{result['first_predict_s_median']:.2f} |"
    )
    print("members (MB):", json.dumps({k: round(v, 2) for k, v in result["members_mb"].items()}))
    print(f"identical predictions after load: {same}; LOO elpd {loo_fit:.3f} vs {loo_loaded:.3f}")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
