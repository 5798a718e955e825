"""Mutation testing of the core modules with the fast tests (mutmut 3, one process).

mutmut (configured in ``pyproject.toml``, ``[tool.mutmut]``) copies the package to
``mutants/``, makes every small change it knows (``<`` for ``<=``, ``+`` for ``-``,
a constant changed, a call's argument dropped, ...) to the core modules, and runs the
fast tests that reach each changed function. A mutant is *killed* when a test fails.

Running every mutant of every core module takes hours on two cores, most of it in
the CLI and persistence tests, which fit a model per run (the analyses' tests in the
selection use known draws and fit nothing; those on a real fit are in
``tests/test_analysis_fitted.py``, outside it). So the modules are run in two ways:

- ``--full``: every mutant of these modules (by default ``evaluation`` and the
  ratings, whose tests take seconds);
- ``--sample N``: N mutants drawn at random (``--seed``) from each other core
  module, an unbiased estimate of its score with a binomial interval.

Usage, from the repository root::

    pip install -e ".[test,mutation]"
    python tools/mutation.py                       # defaults below
    python tools/mutation.py --sample 0            # the full modules only
    python tools/mutation.py --full skcodex._matchup.prediction --sample 0
    python tools/mutation.py --retest              # survivors again, after new tests
    python tools/mutation.py --full --modules skcodex.cli --sample 30   # one module's sample

Results are kept in ``mutants/`` between runs: a mutant already killed is not run
again, and the same ``--seed`` draws the same sample.

It prints a table per module and writes ``benchmarks/results/mutation.json``;
``mutmut results`` and ``mutmut show <name>`` show the surviving mutants.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from pathlib import Path

from scipy.stats import beta

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "mutation.json"
CORE = (
    "skcodex.evaluation",
    "skcodex.ratings",
    "skcodex._matchup.prediction",
    "skcodex.analysis",
    "skcodex.cli",
    "skcodex._format.persistence",
    "skcodex._format.state_codec",
    "skcodex._format.archive",
    "skcodex._format.posterior_file",
    "skcodex._format.safe_files",
)
FULL = ("skcodex.evaluation", "skcodex.ratings")
KILLED = {1, 3, 36, -24, 24, 152, 255}  # test failure, pytest error, timeout
SURVIVED = {0}
NO_TESTS = {5, 33}


def _mutmut(*names: str) -> None:
    cmd = [sys.executable, "-m", "mutmut", "run", "--max-children", "1", *names]
    subprocess.run(cmd, cwd=ROOT, check=False)


def _generate() -> None:
    """Generate every mutant (and learn which tests reach which function), running none.

    mutmut has no command that only generates: a run filtered to a name no mutant has
    generates them all and collects the test statistics, then stops.
    """
    _mutmut("no-such-mutant")


def _results() -> dict[str, int | None]:
    out: dict[str, int | None] = {}
    for meta in (ROOT / "mutants").rglob("*.py.meta"):
        out.update(json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"])
    return out


def _reset_survivors(modules: list[str]) -> int:
    """Mark the surviving mutants of ``modules`` as not run, so new tests get a go at them."""
    reset = 0
    for meta in (ROOT / "mutants").rglob("*.py.meta"):
        data = json.loads(meta.read_text(encoding="utf-8"))
        codes = data["exit_code_by_key"]
        for name, code in codes.items():
            if code in SURVIVED | NO_TESTS and any(_in(name, m) for m in modules):
                codes[name] = None
                reset += 1
        meta.write_text(json.dumps(data), encoding="utf-8")
    return reset


def _module(name: str) -> str:
    return name.split(".x_")[0].split(".xǁ")[0]


def _in(name: str, module: str) -> bool:
    return _module(name) == module or _module(name).startswith(module + ".")


def _interval(k: int, n: int, level: float = 0.9) -> tuple[float, float]:
    """Clopper-Pearson interval for a proportion of k in n."""
    tail = (1 - level) / 2
    lower = beta.ppf(tail, k, n - k + 1) if k > 0 else 0.0
    upper = beta.ppf(1 - tail, k + 1, n - k) if k < n else 1.0
    return float(lower), float(upper)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", nargs="*", default=list(FULL), help="modules run in full")
    parser.add_argument("--sample", type=int, default=40, help="mutants per other module")
    parser.add_argument(
        "--modules",
        nargs="+",
        default=list(CORE),
        help="core modules to sample (those not run in full)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS, help="where the JSON results go")
    parser.add_argument(
        "--retest",
        action="store_true",
        help="re-run the surviving mutants of the --full and --modules modules (after adding "
        "tests)",
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    if args.retest and (ROOT / "mutants").exists():
        print(f"re-testing {_reset_survivors(args.full + args.modules)} surviving mutants")
    if args.full:
        _mutmut(*(f"{m}.*" for m in args.full))  # also generates every module's mutants
    else:
        _generate()
    results = _results()
    sampled: dict[str, list[str]] = {}
    if args.sample:
        rng = random.Random(args.seed)
        for module in CORE:
            if module in args.full or module not in args.modules:
                continue
            names = sorted(n for n in results if _in(n, module))
            sampled[module] = sorted(rng.sample(names, min(args.sample, len(names))))
        todo = [n for names in sampled.values() for n in names if results[n] is None]
        if todo:
            _mutmut(*todo)
            results = _results()
    rows = []
    for module in CORE:
        if module in args.full:
            names, how = [n for n in results if _in(n, module)], "all"
        elif module in sampled:
            names, how = sampled[module], f"sample of {len(sampled[module])}"
        else:
            continue
        codes = [results[n] for n in names]
        killed = sum(c in KILLED for c in codes)
        survived = sum(c in SURVIVED for c in codes)
        no_tests = sum(c in NO_TESTS for c in codes)
        tested = killed + survived + no_tests
        low, high = _interval(killed, tested) if tested else (float("nan"), float("nan"))
        rows.append(
            {
                "module": module,
                "mutants": how,
                "of": sum(_in(n, module) for n in results),
                "killed": killed,
                "survived": survived,
                "no_tests": no_tests,
                "not_run": len(codes) - tested,
                "score": killed / tested if tested else float("nan"),
                "interval_90": [low, high],
                "surviving": sorted(n for n, c in zip(names, codes) if c in SURVIVED | NO_TESTS),
            }
        )
    print(f"\n{'module':22s} {'mutants':16s} {'killed':>7s} {'tested':>7s} {'score':>7s}  90% CI")
    for r in rows:
        tested = r["killed"] + r["survived"] + r["no_tests"]
        low, high = r["interval_90"]
        print(
            f"{r['module']:22s} {r['mutants']:16s} {r['killed']:7d} {tested:7d} "
            f"{100 * r['score']:6.1f}%  {100 * low:.0f}-{100 * high:.0f}%"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps(
            {
                "seed": args.seed,
                "sample": args.sample,
                "minutes": round((time.perf_counter() - start) / 60, 1),
                "modules": rows,
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
