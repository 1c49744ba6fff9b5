#!/usr/bin/env python3
"""ctest stats.scipy_oracle: claimcheck's statistics against SciPy on hundreds of random inputs.

  Wilson 95 % interval            scipy.stats.binomtest(k, n).proportion_ci(method="wilson")
  t 95 % interval of a mean       scipy.stats.t.interval(0.95, n - 1, mean, scipy.stats.sem)
  t quantile                      scipy.stats.t.ppf(0.975, df)
  order-statistic median interval the largest k with 1 - 2 binom.cdf(k - 1, n, 1/2) >= 0.95
  seed-range coverage             1 - 2 binom.cdf(0, n, 1/2)
  jackknife standard error        of the mean from its leave-one-out means: scipy.stats.sem
  exact one-sided Mann-Whitney    scipy.stats.mannwhitneyu(a, b, alternative="less", method="exact")
                                  without ties; with ties (which SciPy's exact method does not
                                  handle), every split of the pooled values enumerated here
Exit 0: every answer agrees; 1: the disagreements are printed; 77: SciPy is missing (skipped).

usage: stats_oracle.py STATS_ORACLE_BINARY
"""
import itertools
import json
import random
import subprocess
import sys

try:
    import numpy as np
    from scipy import stats
except ImportError:
    print("SKIP: python3-scipy is not installed (apt-get install python3-scipy)")
    sys.exit(77)

TOL = 1e-9  # relative; both sides compute in double precision
# SciPy 1.10's t.ppf is itself off by up to ~2e-9 (df = 46: 2.0128955952945886, where 30-digit mpmath
# gives 2.01289559891942922 and Boost 2.0128955989194286), so what rests on it is compared to 1e-8,
# and the quantile itself also to mpmath where it is installed.
TOL_T = 1e-8


def close(a, b, tol=TOL):
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def mann_whitney_by_enumeration(a, b):
    """U = #{(x, y): x > y} + ties / 2 for x in a, y in b; p = P(U <= u) over every split."""
    def u_of(xs, ys):
        return sum((x > y) + 0.5 * (x == y) for x in xs for y in ys)
    pooled, n = a + b, len(a)
    u = u_of(a, b)
    splits = below = 0
    for idx in itertools.combinations(range(len(pooled)), n):
        chosen = set(idx)
        xs = [pooled[i] for i in idx]
        ys = [pooled[i] for i in range(len(pooled)) if i not in chosen]
        splits += 1
        below += u_of(xs, ys) <= u + 1e-9
    return u, below / splits


def main():
    rng = random.Random(20261202)
    cases = []  # (request, expected answer, description)
    for _ in range(300):
        n = rng.choice([1, 2, 5, 30, 500, 2000, 10000, rng.randint(1, 100000)])
        k = rng.choice([0, n, rng.randint(0, n)])
        lo, hi = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        cases.append(({"fn": "wilson", "k": k, "n": n}, {"low": lo, "high": hi}, f"wilson k={k} n={n}"))
    for _ in range(300):
        n = rng.randint(2, 40)
        v = [rng.gauss(rng.uniform(-1, 1), rng.uniform(0.01, 2)) for _ in range(n)]
        lo, hi = stats.t.interval(0.95, n - 1, loc=np.mean(v), scale=stats.sem(v))
        cases.append(({"fn": "t", "values": v}, {"low": lo, "high": hi}, f"t n={n}"))
    for df in list(range(1, 60)) + [100, 1000]:
        cases.append(({"fn": "t_critical_95", "df": df}, {"t": stats.t.ppf(0.975, df)}, f"t quantile df={df}"))
    for _ in range(300):
        n = rng.randint(1, 60)
        v = [rng.expovariate(1.0) for _ in range(n)]
        k = 1
        for j in range(2, (n + 1) // 2 + 1):
            if 1 - 2 * stats.binom.cdf(j - 1, n, 0.5) >= 0.95:
                k = j
        s = sorted(v)
        cov = 1 - 2 * stats.binom.cdf(k - 1, n, 0.5)
        cases.append(({"fn": "order", "values": v}, {"low": s[k - 1], "high": s[n - k], "coverage": cov},
                      f"order statistics n={n}"))
    for n in range(2, 30):
        cases.append(({"fn": "range_coverage", "n": n}, {"coverage": 1 - 2 * stats.binom.cdf(0, n, 0.5)},
                      f"range coverage n={n}"))
    for _ in range(300):
        K = rng.randint(2, 64)
        x = [rng.gauss(0, rng.uniform(0.1, 3)) for _ in range(K)]
        loo = [(sum(x) - xi) / (K - 1) for xi in x]
        cases.append(({"fn": "jackknife_se", "values": loo}, {"se": stats.sem(x)}, f"jackknife K={K}"))
    for _ in range(300):
        na, nb = rng.randint(1, 12), rng.randint(1, 12)
        pool = rng.sample(range(1000), na + nb)  # distinct: SciPy's exact distribution holds
        a, b = [float(x) for x in pool[:na]], [float(x) for x in pool[na:]]
        r = stats.mannwhitneyu(a, b, alternative="less", method="exact")
        cases.append(({"fn": "mann_whitney_less", "a": a, "b": b}, {"u": r.statistic, "p": r.pvalue},
                      f"mann-whitney {na}x{nb} without ties"))
    for _ in range(100):
        na, nb = rng.randint(1, 6), rng.randint(1, 6)
        a = [float(rng.randint(0, 4)) for _ in range(na)]
        b = [float(rng.randint(0, 4)) for _ in range(nb)]
        u, p = mann_whitney_by_enumeration(a, b)
        cases.append(({"fn": "mann_whitney_less", "a": a, "b": b}, {"u": u, "p": p},
                      f"mann-whitney {na}x{nb} with ties (enumerated)"))

    try:
        import mpmath
        mpmath.mp.dps = 30

        def t975(df):  # the root of the regularised incomplete beta form of the t distribution
            cdf = lambda x: 1 - mpmath.betainc(df / 2, 0.5, 0, df / (df + x * x), regularized=True) / 2
            return float(mpmath.findroot(lambda x: cdf(x) - mpmath.mpf("0.975"), 2.0))
        exact = [(df, t975(df)) for df in (1, 2, 3, 7, 46, 100)]
    except ImportError:
        exact = []
        print("note: mpmath is not installed: the t quantile is checked against SciPy only")

    requests = "".join(json.dumps(q) + "\n" for q, _, _ in cases)
    requests += "".join(json.dumps({"fn": "t_critical_95", "df": df}) + "\n" for df, _ in exact)
    out = subprocess.run([sys.argv[1]], input=requests, capture_output=True, text=True, check=True).stdout
    answers = [json.loads(line) for line in out.splitlines()]
    failed = []
    for (df, want), got in zip(exact, answers[len(cases):]):
        if not close(got["t"], want, 1e-14):
            failed.append(f"t quantile df={df}: {got['t']!r}, mpmath {want!r}")
    answers = answers[:len(cases)]
    if len(answers) != len(cases):
        print(f"DIFFERS: {len(answers)} answers to {len(cases)} requests")
        return 1
    for (q, want, what), got in zip(cases, answers):
        tol = TOL_T if q["fn"] in ("t", "t_critical_95") else TOL
        for key, value in want.items():
            if not close(got[key], float(value), tol):
                failed.append(f"{what}: {key} {got[key]!r}, SciPy {float(value)!r}  ({json.dumps(q)[:120]})")
    by_fn = {}
    for q, _, _ in cases:
        by_fn[q["fn"]] = by_fn.get(q["fn"], 0) + 1
    print(f"{len(cases)} inputs against SciPy: " + ", ".join(f"{f} {n}" for f, n in sorted(by_fn.items()))
          + f"; {len(exact)} t quantiles against mpmath")
    for f in failed[:30]:
        print("DIFFERS:", f)
    if failed:
        print(f"{len(failed)} disagreement(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
