"""One log-density-and-gradient evaluation on the real data: what it costs and why.

NUTS spends nearly all of a fit in the log density of the model and its
gradient (about 15 leapfrog steps per draw, each one evaluation). This script
times one evaluation of the function nutpie calls, the C-callable numba
function `skcodex._matchup.nutpie_compile` builds around PyTensor's compiled log
density and gradient, on the 771 default-filtered codexdata matches in the
padded layout of the default fit, and sets it beside

- the same model with the likelihood written as PyTensor graph operations, as
  it was before the one-pass op of `skcodex._matchup.loglik_op`: a gather of the
  index's table, a product, a row sum, ``r q - n softplus(q)`` and a scatter of
  the gradient; and its first version, ``-r softplus(-q) - (n - r) softplus(q)``
  (two softplus terms per row and a gradient built from two sigmoids);
- the same model with the effects and their prior written as graph operations, as
  before the one-pass op of `skcodex._matchup.effects_op` (``sd**c`` as ``exp(c log sd)``
  per entry, PyMC's normal log-density, the reflections as segment sums);
- the same model with one row per match instead of one per distinct row;
- the same model with no rows at all: the cost of everything but the matches
  (the prior terms, the spreads, copying the gradient out);
- a hand-written numba loop computing the same value and gradient in one pass
  (the gather, the likelihood and the scatter of the gradient fused), as the
  floor of what this memory traffic costs; its value and gradient are checked
  against the compiled model's;
- Stan's gradient on the same data, from ``benchmarks/fit_speed.py``'s results
  (Stan's own estimate, and the sampling time per leapfrog step).

Times are CPU seconds of this thread (``time.thread_time``), median over
batches of calls, so that other work on a shared machine does not count.
The hand count of memory is printed with the table: the index matrix, the
outcomes and the counts are read once per evaluation by the fused loop; the
compiled graph also writes and reads arrays of one value per row and column.

With ``--large`` it also times the graph and the op on the 190,000 training
matches of ``benchmarks/large_data.py`` (5,000 players: every match its own
row).

Usage::

    python benchmarks/gradient_profile.py [--calls 2000] [--batches 15] [--large]

Writes ``benchmarks/results/gradient_profile-py<major><minor>.json`` and prints
a Markdown table.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fit_speed import RESULTS, encoded, load_real, machine, markdown, median, write_results


def real_problem(collapse: bool = True):
    """Padded layout, data dict and sizes of the default fit on the real data."""
    from skcodex._matchup.graph import default_priors
    from skcodex._matchup.layout import collapse_matches
    from skcodex._matchup.padding import embedding, padded_layout
    from skcodex._matchup.sampling import _data

    X, y, catalogue = load_real()
    index, y, layout = encoded(X, y, catalogue)
    if collapse:
        rows, trials, totals = collapse_matches(index, y)
    else:
        rows, trials, totals = index, np.ones(len(y)), y
    padded = padded_layout(layout)
    theta_pos, _ = embedding(layout, padded)
    data = _data(theta_pos[rows], totals, default_priors(layout.options), trials)
    return padded, data


def large_problem(n_matches: int = 200_000, n_players: int = 5_000, seed: int = 0):
    """The training table of ``benchmarks/large_data.py`` (its last tournament held out)."""
    from skcodex._matchup.graph import default_priors
    from skcodex._matchup.layout import collapse_matches
    from skcodex._matchup.padding import embedding, padded_layout
    from skcodex._matchup.sampling import _data
    from skcodex.datasets import make_matches

    made = make_matches(
        n_players=n_players, n_matches=n_matches, n_tournaments=20, random_state=seed
    )
    train = (made.X["period"] != made.X["period"].iloc[-1]).to_numpy()
    index, y, layout = encoded(made.X[train], made.y[train])
    rows, trials, totals = collapse_matches(index, y)
    padded = padded_layout(layout)
    theta_pos, _ = embedding(layout, padded)
    return padded, _data(theta_pos[rows], totals, default_priors(layout.options), trials)


def graph_loglik(two_softplus: bool):
    """The likelihood as PyTensor graph operations, as it was written before the one-pass op.

    ``two_softplus``: ``-r softplus(-q) - (n - r) softplus(q)``, the first version;
    otherwise ``r q - n softplus(q)`` (`skcodex._matchup.graph.quasi_loglik`).
    """
    import pytensor.tensor as pt

    from skcodex._matchup.graph import quasi_loglik

    def loglik(theta, index, signs, r, n):
        q = (theta[index] * pt.as_tensor_variable(signs)).sum(axis=1)
        if two_softplus:
            return pt.sum(-r * pt.softplus(-q) - (n - r) * pt.softplus(q))
        return quasi_loglik(r, q, pt, trials=n)

    return loglik


@contextmanager
def likelihood_written_as(function):
    """Build models with ``function`` in place of the one-pass op (`skcodex._matchup.loglik_op`)."""
    from skcodex._matchup import loglik_op as _loglik_op

    kept = _loglik_op.signed_row_loglik
    _loglik_op.signed_row_loglik = function
    try:
        yield
    finally:
        _loglik_op.signed_row_loglik = kept


def graph_scaled_effects(z, sd, centring, group, rotations, block_of, loc, own):
    """The effects and z's prior as PyTensor graph operations, as before `_matchup.effects_op`.

    ``sd**c`` as ``exp(c log sd)`` per entry, the prior as PyMC's normal
    log-density, the reflections as a segment sum (`skcodex._matchup.geometry.rotate`).
    """
    import pymc as pm
    import pytensor.tensor as pt

    from skcodex._matchup.geometry import rotate

    raw = group < 0
    scale = sd[np.where(raw, 0, group)]
    if raw.any():
        scale = scale * (~raw).astype(float) + raw.astype(float)
    centred_scale = pt.exp(centring * pt.log(scale))
    plain = isinstance(own, np.ndarray) and bool(np.all(own == 1.0))
    z_scale = centred_scale if plain else own * centred_scale
    prior = pm.logp(pm.Normal.dist(loc, z_scale), z).sum()
    z_std = rotate(z / centred_scale, rotations, pt, block_of=block_of)
    return z_std * scale, prior


@contextmanager
def effects_written_as(function):
    """Build models with ``function`` in place of the one-pass effects (`_matchup.effects_op`)."""
    from skcodex._matchup import effects_op as _effects_op

    kept = _effects_op.scaled_effects
    _effects_op.scaled_effects = function
    try:
        yield
    finally:
        _effects_op.scaled_effects = kept


def compiled_model(padded, data):
    """The nutpie model of the default fit (compiled here, not taken from the cache)."""
    from skcodex._matchup.compile_cache import _stored_names, ieee_float_math
    from skcodex._matchup.graph import build_model
    from skcodex._matchup.nutpie_compile import compile_nutpie

    model = build_model(data["index"], data["y"], padded, trials=data["trials"])
    with ieee_float_math():
        compiled = compile_nutpie(model, _stored_names(model))
    return compiled.with_data(**data), model


def graph_nodes(compiled) -> int:
    """Apply nodes of the compiled log density and gradient."""
    return len(compiled.logp_func.maker.fgraph.apply_nodes)


def time_calls(call, calls: int, batches: int) -> float:
    """Median CPU seconds of this thread per call, over ``batches`` batches of ``calls``."""
    for _ in range(min(calls, 200)):
        call()
    times = []
    for _ in range(batches):
        start = time.thread_time()
        for _ in range(calls):
            call()
        times.append((time.thread_time() - start) / calls)
    return median(times)


def c_logp(compiled, x: np.ndarray):
    """A call of nutpie's C function at ``x``; returns (call, gradient, value holders)."""
    signature = ctypes.CFUNCTYPE(
        ctypes.c_int64,
        ctypes.c_uint64,
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.c_void_p,
    )
    function = signature(compiled.compiled_logp_func.address)
    grad, value = np.zeros_like(x), np.zeros(1)
    table = compiled.user_data
    args = (len(x), x.ctypes.data, grad.ctypes.data, value.ctypes.data, table.ctypes.data)

    def call():
        if function(*args) != 0:
            raise RuntimeError("the log density failed")

    return call, grad, value


def fused_loop():
    """The same log density and gradient as one numba loop over the rows."""
    import numba

    @numba.njit(fastmath=False, cache=False)
    def logp_and_grad(x, index, signs, y, trials, group, loc, scale, grad):
        n_sd = loc.shape[0]
        log_sd, z = x[:n_sd], x[n_sd:]
        sd = np.exp(log_sd)
        n_theta = z.shape[0]
        theta = np.empty(n_theta)
        for t in range(n_theta):
            theta[t] = z[t] * sd[group[t]]
        d_theta = np.zeros(n_theta)
        value = 0.0
        for r in range(index.shape[0]):
            q = 0.0
            for c in range(index.shape[1]):
                q += signs[c] * theta[index[r, c]]
            e = np.exp(-abs(q))
            value += y[r] * q - trials[r] * (max(q, 0.0) + np.log1p(e))
            sigmoid = 1.0 / (1.0 + e) if q >= 0 else e / (1.0 + e)
            d_q = y[r] - trials[r] * sigmoid
            for c in range(index.shape[1]):
                d_theta[index[r, c]] += signs[c] * d_q
        for k in range(n_sd):
            u = (log_sd[k] - loc[k]) / scale[k]
            value += -0.5 * u * u - np.log(scale[k]) - 0.9189385332046727
            grad[k] = -u / scale[k]
        for t in range(n_theta):
            value += -0.5 * z[t] * z[t] - 0.9189385332046727
            grad[n_sd + t] = d_theta[t] * sd[group[t]] - z[t]
            grad[group[t]] += d_theta[t] * theta[t]
        return value

    return logp_and_grad


def hand_count(padded, data, index_itemsize: int) -> dict:
    """Bytes one evaluation must read and write, and what the graph's temporaries add."""
    rows, columns = data["index"].shape
    n_theta = padded.size
    index_bytes = index_itemsize * rows * columns
    per_row = 2 * 8 * rows  # outcomes and counts
    effects = 2 * 8 * n_theta  # theta read and its gradient written (cache-resident)
    return {
        "rows": rows,
        "columns": columns,
        "effects": n_theta,
        "index_bytes": index_bytes,
        "minimum_bytes": index_bytes + per_row + effects,
        "row_column_array_bytes": 8 * rows * columns,
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--batches", type=int, default=15)
    parser.add_argument(
        "--large", action="store_true", help="also the 190,000-match table of large_data.py"
    )
    args = parser.parse_args(argv)

    padded, data = real_problem()
    rng = np.random.default_rng(0)
    n_dim = len(padded.spreads) + padded.size  # log-spreads, then the standard normals
    x = rng.normal(0.0, 0.5, n_dim)
    rows = []

    def measure(name, compiled, data_rows, note="", at=None, calls=None):
        call, grad, value = c_logp(compiled, x if at is None else at)
        seconds = time_calls(call, calls or args.calls, args.batches)
        row = {
            "evaluation": name,
            "rows": data_rows,
            "us": 1e6 * seconds,
            "graph_nodes": graph_nodes(compiled),
            "note": note,
        }
        rows.append(row)
        print(row, flush=True)
        return grad.copy(), float(value[0])

    with effects_written_as(graph_scaled_effects):
        with likelihood_written_as(graph_loglik(two_softplus=True)):
            first, _ = compiled_model(padded, data)
        measure("graph: two softplus per row (first version)", first, len(data["y"]))
        with likelihood_written_as(graph_loglik(two_softplus=False)):
            graph, _ = compiled_model(padded, data)
        grad_graph, value_graph = measure("graph: r q - n softplus(q)", graph, len(data["y"]))
        likelihood_op, _ = compiled_model(padded, data)
        measure("the one-pass likelihood, effects as graph", likelihood_op, len(data["y"]))
    now, _ = compiled_model(padded, data)
    grad_now, value_now = measure("now: likelihood and effects, one pass each", now, len(data["y"]))
    _, per_match = real_problem(collapse=False)
    measure("now, one row per match", now.with_data(**per_match), len(per_match["y"]))
    empty = dict(data, index=data["index"][:0], y=data["y"][:0], trials=data["trials"][:0])
    measure("now, no rows (all but the matches)", now.with_data(**empty), 0)
    agreement = {
        "op_vs_graph_value": abs(value_now - value_graph),
        "op_vs_graph_gradient": float(np.max(np.abs(grad_now - grad_graph))),
    }

    loop = fused_loop()
    grad = np.zeros(n_dim)
    inputs = (
        x,
        np.ascontiguousarray(data["index"], dtype=np.int64),
        np.asarray(padded.signs, dtype=float),
        data["y"],
        data["trials"],
        np.asarray(padded.group, dtype=np.int64),
        data["prior_loc"][: len(padded.spreads)],
        data["prior_scale"][: len(padded.spreads)],
        grad,
    )
    value = loop(*inputs)
    seconds = time_calls(lambda: loop(*inputs), args.calls, args.batches)
    agreement.update(
        loop_vs_op_value=abs(value - value_now),
        loop_vs_op_gradient=float(np.max(np.abs(grad - grad_now))),
    )
    rows.append(
        {
            "evaluation": "fused numba loop (one pass; floor)",
            "rows": len(data["y"]),
            "us": 1e6 * seconds,
            "note": f"value within {agreement['loop_vs_op_value']:.1e}, "
            f"gradient {agreement['loop_vs_op_gradient']:.1e} of the op's",
        }
    )
    print(rows[-1], flush=True)

    if args.large:
        # the 190,000 training matches of benchmarks/large_data.py, every one its own row
        big, big_data = large_problem()
        at = rng.normal(0.0, 0.5, len(big.spreads) + big.size)
        n_big = len(big_data["y"])
        with effects_written_as(graph_scaled_effects):
            with likelihood_written_as(graph_loglik(two_softplus=False)):
                graph_big, _ = compiled_model(big, big_data)
        g_graph, v_graph = measure("large table, graph", graph_big, n_big, at=at, calls=5)
        op_big, _ = compiled_model(big, big_data)
        g_op, v_op = measure("large table, now", op_big, n_big, at=at, calls=5)
        agreement["large_op_vs_graph_value"] = abs(v_op - v_graph) / abs(v_graph)
        agreement["large_op_vs_graph_gradient"] = float(np.max(np.abs(g_op - g_graph)))
        large_counts = hand_count(big, big_data, op_big.shared_data["index"].itemsize)

    line = f"py{sys.version_info.major}{sys.version_info.minor}"
    stan = {}
    # the interleaved real-data run of fit_speed.py (Stan runs on the 3.11 line)
    fit_file = RESULTS / f"fit_speed-real-{line}.json"
    if not fit_file.exists():
        fit_file = RESULTS / "fit_speed-real-py311.json"
    if fit_file.exists():
        real = json.loads(fit_file.read_text()).get("real", {})
        for impl in real.get("table", []):
            stan[impl["implementation"]] = {
                k: impl.get(k) for k in ("step_ms", "stan_gradient_ms", "n_steps")
            }
        for impl, row in stan.items():
            rows.append(
                {
                    "evaluation": f"{impl}: sampling time per leapfrog step ({fit_file.name})",
                    "rows": len(per_match["y"]) if impl == "stan" else len(data["y"]),
                    "us": 1e3 * row["step_ms"] if row.get("step_ms") else None,
                    "note": "wall time per step and core, sampler included",
                }
            )
            if row.get("stan_gradient_ms"):
                rows.append(
                    {
                        "evaluation": "Stan: its own gradient estimate (median over chains)",
                        "rows": len(per_match["y"]),
                        "us": 1e3 * row["stan_gradient_ms"],
                        "note": "wall time of one gradient at the start of a chain",
                    }
                )
    counts = hand_count(padded, data, now.shared_data["index"].itemsize)
    results = {
        "machine": machine(),
        "settings": vars(args),
        "table": rows,
        "hand_count": counts,
        "agreement": agreement,
    }
    if args.large:
        results["hand_count_large"] = large_counts
    cols = [
        ("evaluation", "evaluation", ""),
        ("rows", "rows", ",d"),
        ("us", "microseconds", ".1f"),
        ("graph_nodes", "graph nodes", "d"),
        ("note", "note", ""),
    ]
    print("\n" + markdown(rows, cols))
    print("\nhand count:", counts)
    print("\nwrote", write_results(f"gradient_profile-{line}", results))


if __name__ == "__main__":
    main()
