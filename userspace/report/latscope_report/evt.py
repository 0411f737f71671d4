# SPDX-License-Identifier: GPL-2.0
"""latscope_report.evt: can a run's worst case be trusted? An extreme-value bound.

Measurement-based probabilistic timing analysis (MBPTA) on the timeline a
latscope JSON file holds: each timeline point is one block of B seconds
(B = "bucket_s") and its "max" the block maximum over every measured CPU.
A generalised extreme value (GEV) distribution G is fitted to these block
maxima by maximum likelihood (scipy.stats.genextreme), and G gives the
latency a sample, or an hour of samples, exceeds with a small probability.
With m samples per block (the median "samples"), G(x) = F(x)^m, F the
per-sample distribution, so

  per sample:  P(one sample > x)                  = 1 - G(x)^(1/m)
  per hour:    P(some sample > x within one hour) = 1 - G(x)^(3600/B)

and the level x_p exceeded with probability p is the return level of G at
y = -log G(x_p): y = -m log(1 - p) per sample, -(B/3600) log(1 - p) per
hour. Each level is given as a point estimate and an upper bound at the
chosen confidence.

The upper bound is the upper end of the one-sided profile-likelihood
interval of the return level (Coles 2001, ch. 3.3.3 and 2.6.6): the
largest return level among the parameters whose deviance from the fit is
at most the chi2(1) quantile of 2 confidence - 1 (2.706 at 95 %). It is
found as one constrained maximisation (scipy.optimize.minimize, SLSQP, in
coordinates whitened by the observed information) rather than a root
search over nested fits: the same bound (checked against such a search
on exponential and bounded tails), ten times faster or more. The
interval is asymmetric, as return-level uncertainty is; the delta
method's symmetric one undercovers far levels, and a parametric bootstrap
of the fit (about 40 ms a fit) does not fit 4096 blocks in ~3 s.

It is computed twice, for the GEV and for the Gumbel (xi = 0), each with
its own likelihood, and the higher one is given (the bound's "model").
So a light tail is never extrapolated lighter than an exponential one:
a fitted xi < 0 promises a finite endpoint, and with maxima of a normal
tail (penultimate xi < 0) or near a bounded one, the GEV's bound fell
short of the true 1e-9 level in up to half the runs in the coverage test;
the Gumbel's is conservative there. Heavy tails (xi > 0) keep the GEV's.
The fits work in a scaled unit ((x - median) / standard deviation) so the
optimisers see numbers of order 1.

What the bound assumes, and so what it does not say:

- the block maxima are independent and identically distributed: the load
  is stationary and has no period of its own;
- the per-sample latency lies in the max-domain of attraction of a GEV
  and B-second blocks are long enough for G to be close to the limit;
- the load during the run is the load the bound speaks of: another load,
  kernel, temperature or board is another distribution;
- it says nothing about events that never showed in the run (a rare mode,
  a daily job): the fit extrapolates the tail it saw.

The tests, each at ALPHA = 0.01: five of them make at most 5 % false
refusals of a clean run (Bonferroni), so "refused" reads as one test at
5 %. Any failure refuses the bound:

- independence, Ljung-Box: the autocorrelation of the ranks of the block
  maxima over lags 1..20 (n/10 on runs under 200 blocks), chi-square
  p-value (scipy.stats.chi2); ranks, because heavy-tailed maxima may
  have no variance. A periodic disturbance or a load cycle fails it.
- independence, runs above and below the median (Wald-Wolfowitz, normal
  approximation): high maxima in clusters.
- identical distribution, halves: two-sample Kolmogorov-Smirnov of the
  first half against the second (scipy.stats.ks_2samp): a drift.
- identical distribution, quarters: k-sample Anderson-Darling of the four
  quarters (scipy.stats.anderson_ksamp, its p clipped to [0.001, 0.25]):
  a change that comes and goes.
- goodness of fit: Anderson-Darling of the maxima against the fitted GEV,
  which weighs the largest maxima most (a rare slow mode in a few blocks
  fails it where Cramer-von Mises did not). The maxima are taken to the
  fit's Gumbel coordinates and tested as Gumbel (scipy.stats.anderson),
  p from SciPy's parametric bootstrap of that test (goodness_of_fit, 199
  samples, seeded; it depends on n only, so it is drawn once per n). The
  bootstrap refits location and scale but not the shape, so p is
  approximate (somewhat lenient).

Fewer than MIN_BLOCKS (600) blocks: "too short", so that a slow mode
in 1 % of the blocks is refused or bounded at its confidence (the
figures below). At 100 blocks the coverage
test's exponential and Pareto runs still held their 95 %, with bounds up
to 1.6 and 5 times the true level: the price of a short run. What no
minimum mends: a slow mode in 1 % of the blocks (one sample in 1e5 of
m = 1000) shows once or not at all in 100 blocks; the coverage test's
runs of it were refused or bounded at 1e-6 in about a third of the
100-block runs, two thirds at 300 and 97 % at 600. A bound from a run
shorter than 10 minutes says nothing of a mode rarer than its blocks.
The measured coverage and refusal rates are printed by
tests/evt/coverage.py (--json-out for a file), for the maintainer to
put into the docs.

Blocks without samples are skipped, and so are blocks with fewer than
half the median samples (a partial last block has a smaller maximum).
Nothing is random but the goodness-of-fit bootstrap, which is seeded:
the same file gives the same result.
"""

import collections
import functools
import math
import warnings

import numpy as np
from scipy import optimize, stats

ALPHA = 0.01
MIN_BLOCKS = 600
MAX_LAG = 20
SEGMENTS = 4
HOUR_S = 3600.0
BOUNDS = (("sample", 1e-6), ("sample", 1e-9), ("hour", 1e-3))
TARGET_WIDTH = 0.10
FRACTIONS = (0.25, 0.5, 0.75, 1.0)
GOF_BOOTSTRAP = 199
SEED = 20240601

# A fitted model: theta = (loc, log scale, xi) for a GEV, (loc, log scale)
# for a Gumbel, in the scaled unit; nll its negative log-likelihood.
Fit = collections.namedtuple("Fit", "theta nll")
# The timeline's blocks with samples: when each began (s), its maximum (us)
# and samples, whether it is full, and the block length (s).
Blocks = collections.namedtuple("Blocks", "seconds maxima samples full bucket_s")


def blocks_of(doc):
    """The run's blocks with samples, the timeline's columns found by name,
    and which of them are full (at least half the median samples)."""
    tl = doc.get("timeline") or {}
    columns = tl.get("columns", ["second", "samples", "overruns", "min", "avg", "max"])
    col = {name: i for i, name in enumerate(columns)}
    rows = [(p[col["second"]], p[col["samples"]], p[col["max"]])
            for p in tl.get("points", [])
            if p[col["samples"]] and p[col["max"]] is not None]
    seconds, samples, maxima = (np.array(c, dtype=float) for c in zip(*rows)) if rows \
        else (np.array([]),) * 3
    full = samples >= 0.5 * np.median(samples) if rows else np.array([], dtype=bool)
    return Blocks(seconds, maxima, samples, full, float(tl.get("bucket_s", 1)))


def test_result(name, what, statistic, p):
    """One test's entry of the result."""
    return {"name": name, "what": what, "statistic": round(float(statistic), 4),
            "p": float(p), "pass": bool(p >= ALPHA)}


def ljung_box(x):
    """Ljung-Box on the ranks of x over lags 1..h, h = min(20, n / 10)."""
    n = len(x)
    h = max(1, min(MAX_LAG, n // 10))
    r = stats.rankdata(x)
    r = r - r.mean()
    acf = np.array([np.dot(r[:-k], r[k:]) for k in range(1, h + 1)]) / np.dot(r, r)
    q = n * (n + 2) * np.sum(acf ** 2 / (n - np.arange(1, h + 1)))
    return test_result(f"independence: Ljung-Box, lags 1-{h}",
                       "a bound needs independent maxima; a load that repeats "
                       "or drifts correlates them", q, stats.chi2.sf(q, h))


def runs_test(x):
    """Wald-Wolfowitz runs above and below the median (ties dropped),
    two-sided normal approximation; passes when nearly all maxima are
    tied (nothing to count)."""
    med = np.median(x)
    above = x[x != med] > med
    n1, n2 = int(above.sum()), int((~above).sum())
    n = n1 + n2
    runs = 1 + int(np.count_nonzero(above[1:] != above[:-1]))
    mean = 1 + 2.0 * n1 * n2 / n if n else 0.0
    var = 2.0 * n1 * n2 * (2.0 * n1 * n2 - n) / (n * n * (n - 1)) if n > 1 else 0.0
    zed = (runs - mean) / math.sqrt(var) if var > 0 else 0.0
    return test_result("independence: runs above/below the median",
                       "high maxima must not come in clusters", zed,
                       2 * stats.norm.sf(abs(zed)))


def halves_test(x):
    """Two-sample Kolmogorov-Smirnov of the first half against the second."""
    half = len(x) // 2
    res = stats.ks_2samp(x[:half], x[half:])
    return test_result("identical distribution: KS, first vs second half",
                       "one distribution over the whole run; a drift "
                       "(heating, a load that grows) fails it",
                       res.statistic, res.pvalue)


def segments_test(x):
    """k-sample Anderson-Darling of SEGMENTS equal segments; SciPy clips
    its p-value to [0.001, 0.25] and warns when it does."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = stats.anderson_ksamp(np.array_split(x, SEGMENTS))
    return test_result(f"identical distribution: Anderson-Darling, {SEGMENTS} segments",
                       "no part of the run differs from the others (a load "
                       "that comes and goes); p clipped to 0.001-0.25",
                       res.statistic, res.significance_level)


def fit_gev(z, gumbel):
    """Maximum-likelihood GEV fit of the scaled maxima z as a Fit with
    theta = (loc, log scale, xi), by scipy.stats.genextreme.fit started at
    the Gumbel fit; restarted from xi = -0.2 and 0.2 if it ends worse than
    the Gumbel fit it nests. None if no fit is finite."""
    best = None
    for c0 in (0.0, -0.2, 0.2):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            c, loc, scale = stats.genextreme.fit(z, c0, loc=gumbel.theta[0],
                                                 scale=math.exp(gumbel.theta[1]))
        nll = stats.genextreme.nnlf((c, loc, scale), z)
        if np.isfinite(nll) and (best is None or nll < best.nll):
            best = Fit((loc, math.log(scale), -c), nll)
        if best is not None and best.nll <= gumbel.nll + 1e-6:
            break
    return best


def fit_gumbel(z):
    """Maximum-likelihood Gumbel (xi = 0) fit of z, theta = (loc, log scale)."""
    loc, scale = stats.gumbel_r.fit(z)
    return Fit((loc, math.log(scale)), stats.gumbel_r.nnlf((loc, scale), z))


@functools.lru_cache(maxsize=16)
def gumbel_ad_null(n):
    """The sorted null distribution of the Anderson-Darling statistic of n
    Gumbel values with location and scale estimated, by SciPy's parametric
    bootstrap (scipy.stats.goodness_of_fit). It depends on n only (the
    statistic does not change when the values are shifted or scaled and
    refitted), so it is drawn once per n."""
    sample = stats.gumbel_r.rvs(size=n, random_state=np.random.default_rng(SEED))
    res = stats.goodness_of_fit(stats.gumbel_r, sample, statistic="ad",
                                n_mc_samples=GOF_BOOTSTRAP,
                                random_state=np.random.default_rng(SEED))
    return np.sort(res.null_distribution)


def gof_test(z, gev):
    """Anderson-Darling of z against the fitted GEV: z in the fit's Gumbel
    coordinates, -log(-log G(z)), tested as Gumbel (scipy.stats.anderson),
    p from the bootstrap null (refitted location and scale, not the shape:
    approximate), as scipy.stats.monte_carlo_test counts it. -log G is
    clipped so a maximum at the edge of the fit's support stays finite
    (and fails the test)."""
    loc, log_scale, xi = gev.theta
    minus_log_g = -stats.genextreme.logcdf(z, -xi, loc, math.exp(log_scale))
    w = -np.log(np.clip(minus_log_g, 1e-300, 1e300))
    a2 = stats.anderson(w, "gumbel_r").statistic
    null = gumbel_ad_null(len(z))
    p = (1 + len(null) - np.searchsorted(null, a2, side="left")) / (len(null) + 1)
    return test_result("goodness of fit: Anderson-Darling, fitted GEV",
                       "the maxima, their largest most of all, must follow the "
                       "fitted GEV; p by bootstrap, approximate (shape estimated)",
                       a2, p)


def log_reduced_variate(per, p, m, bucket_s):
    """log y, y = -log G(x_p) of the level x_p a sample (per "sample") or
    an hour (per "hour") exceeds with probability p."""
    if per == "sample":
        return math.log(-m * math.log1p(-p))
    return math.log(-math.log1p(-p) * bucket_s / HOUR_S)


def shape(theta):
    """xi of a GEV theta (loc, log scale, xi), 0 for a Gumbel one."""
    return theta[2] if len(theta) > 2 else 0.0


def return_level(theta, log_y):
    """The return level (scaled unit) of reduced variate y = exp(log_y):
    loc + scale (y^-xi - 1) / xi, loc - scale log y for xi = 0."""
    loc, log_scale, xi = theta[0], theta[1], shape(theta)
    t = -log_y
    g = t + xi * t * t / 2 if abs(xi * t) < 1e-8 else math.expm1(min(xi * t, 700.0)) / xi
    return loc + math.exp(log_scale) * g


def nll_of(theta, z):
    """Negative log-likelihood of z under theta, finite and large where z
    leaves the support so SLSQP's finite differences stay finite."""
    nll = stats.genextreme.nnlf((-shape(theta), theta[0], math.exp(theta[1])), z)
    return nll if np.isfinite(nll) else 1e10


def hessian(f, theta, h=1e-4):
    """Central-difference Hessian of f at theta."""
    k = len(theta)
    steps = np.eye(k) * h
    out = np.empty((k, k))
    for i in range(k):
        for j in range(i, k):
            out[i, j] = out[j, i] = (
                f(theta + steps[i] + steps[j]) - f(theta + steps[i] - steps[j])
                - f(theta - steps[i] + steps[j]) + f(theta - steps[i] - steps[j])) / (4 * h * h)
    return out


def whitening(info):
    """A matrix W with W' info W = I (so nll(theta_hat + W u) ~ nll_hat +
    |u|^2 / 2 near the fit), or None when info is not positive definite."""
    try:
        chol = np.linalg.cholesky(info)
    except np.linalg.LinAlgError:
        return None
    return np.linalg.inv(chol).T


def upper_level(z, fit, log_y, confidence):
    """The one-sided profile-likelihood upper bound of the return level:
    the largest return level over {theta: 2 (nll(theta) - nll_hat) <=
    chi2_1(2 confidence - 1)}, or None when SLSQP fails. SLSQP works in
    whitened coordinates u (theta = theta_hat + W u), where the region is
    close to the ball |u|^2 <= crit, and starts on that ball where the
    return level grows fastest: the delta method's bound. SLSQP's status 8
    (no descent direction left, the finite differences' noise) is
    accepted when the point is in the region; a point on the box around
    u = 0 is retried in a larger box, then refused (no finite bound)."""
    theta0 = np.array(fit.theta)
    level0 = return_level(theta0, log_y)
    crit = stats.chi2.ppf(2 * confidence - 1, 1)
    limit = fit.nll + crit / 2
    w = whitening(hessian(lambda th: nll_of(th, z), theta0))
    if w is None:
        return None
    grad = w.T @ optimize.approx_fprime(theta0, return_level, 1e-7, log_y)
    norm = float(np.linalg.norm(grad))
    if not norm > 0:
        return None
    start = grad / norm * math.sqrt(crit)
    for reach in (4 * math.sqrt(crit), 16 * math.sqrt(crit)):
        res = optimize.minimize(
            lambda u: (level0 - return_level(theta0 + w @ u, log_y)) / norm, start,
            method="SLSQP", bounds=[(-reach, reach)] * len(theta0),
            constraints=[{"type": "ineq", "fun": lambda u: limit - nll_of(theta0 + w @ u, z)}],
            options={"maxiter": 100, "ftol": 1e-10})
        if np.max(np.abs(res.x)) < 0.99 * reach:
            break
    else:
        return None
    best = return_level(theta0 + w @ res.x, log_y)
    if res.status not in (0, 8) or nll_of(theta0 + w @ res.x, z) > limit + 1e-3 or best < level0:
        return None
    return best


def bound(z, fits, log_y, confidence):
    """(model, estimate, upper) in the scaled unit: of the GEV and the
    Gumbel fit, the one whose upper bound is higher; None if a bound
    failed."""
    out = []
    for name, fit in fits:
        upper = upper_level(z, fit, log_y, confidence)
        if upper is None:
            return None
        out.append((upper, name, return_level(fit.theta, log_y)))
    upper, name, level = max(out)
    return name, level, upper


def analyse(x, m, bucket_s, confidence, levels=BOUNDS):
    """Tests and, if they pass, fit and bounds of block maxima x (us).
    Returns (tests, the GEV fit in us or None, bounds, None or why there
    is no bound)."""
    spread = float(np.std(x))
    center = float(np.median(x))
    z = (x - center) / spread
    tests = [ljung_box(x), runs_test(x), halves_test(x), segments_test(x)]
    gumbel = fit_gumbel(z)
    gev = fit_gev(z, gumbel)
    if gev is None:
        return tests, None, [], "no bound: the GEV fit did not converge"
    tests.append(gof_test(z, gev))
    loc, log_scale, xi = gev.theta
    fit_us = {"shape_xi": round(float(xi), 4), "loc_us": round(center + spread * loc, 3),
              "scale_us": round(spread * math.exp(log_scale), 3)}
    if not all(t["pass"] for t in tests):
        return tests, fit_us, [], refusal_reason(tests)
    fits = (("GEV", gev), ("Gumbel", gumbel))
    out = []
    for per, p in levels:
        found = bound(z, fits, log_reduced_variate(per, p, m, bucket_s), confidence)
        if found is None:
            return tests, fit_us, [], ("no bound: the likelihood gives no finite "
                                       "confidence bound (too few blocks for this tail?)")
        model, level, upper = found
        out.append({"per": per, "p": p, "model": model,
                    "estimate_us": round(center + spread * level, 3),
                    "upper_us": round(center + spread * upper, 3)})
    return tests, fit_us, out, None


# What a failed test of each kind means, in the user's words.
MEANING = {
    "independence": ("the block maxima are not independent",
                     "the load repeats or drifts"),
    "identical distribution": ("the block maxima are not identically distributed",
                               "the load changed during the run"),
    "goodness of fit": ("the block maxima do not follow a GEV",
                        "mixed loads or a rare mode?"),
}


def refusal_reason(tests):
    """One sentence: what the failed tests say, their p-values, and what
    that means of the load."""
    parts = []
    for kind, (what, means) in MEANING.items():
        failed = [t for t in tests if not t["pass"] and t["name"].startswith(kind)]
        if failed:
            ps = ", ".join(f"{t['name'].split(': ')[1].split(',')[0]} p = {t['p']:.2g}"
                           for t in failed)
            parts.append(f"{what} ({ps} < {ALPHA:g}): {means}")
    return "no bound: " + "; ".join(parts)


def convergence(x, m, bucket_s, confidence, full_upper):
    """The per-hour upper bound on the first 25, 50, 75 and 100 % of the
    blocks (None where too short or refused), and whether the last two
    differ by less than 10 % (None when one is missing)."""
    rows = []
    for f in FRACTIONS:
        nb = int(round(f * len(x)))
        upper = full_upper
        if f < 1.0:
            upper = None
            if nb >= MIN_BLOCKS and np.ptp(x[:nb]) > 0:
                _, _, b, _ = analyse(x[:nb], m, bucket_s, confidence, (("hour", 1e-3),))
                upper = b[0]["upper_us"] if b else None
        rows.append({"fraction": f, "blocks": nb, "upper_us": upper})
    a, b = rows[-2]["upper_us"], rows[-1]["upper_us"]
    stable = None if a is None or b is None else bool(abs(b - a) < TARGET_WIDTH * abs(b))
    return rows, stable


def advice(bounds, n, bucket_s, confidence):
    """How much longer the run must be for the 1e-9 per-sample bound to be
    within TARGET_WIDTH of its estimate, the width shrinking as
    1/sqrt(blocks)."""
    out = {"target": (f"the {confidence * 100:g} % upper bound of the 1e-9 per-sample "
                      f"level within {TARGET_WIDTH * 100:g} % above its estimate"),
           "width_now": None, "minutes_more": None,
           "how": ("CI width ~ 1/sqrt(blocks): minutes more = blocks * ((width_now / "
                   f"{TARGET_WIDTH:g})^2 - 1) * block_s / 60")}
    b = next((b for b in bounds if b["per"] == "sample" and b["p"] == 1e-9), None)
    if b is None or b["estimate_us"] <= 0:
        return out
    width = (b["upper_us"] - b["estimate_us"]) / b["estimate_us"]
    more = n * ((width / TARGET_WIDTH) ** 2 - 1) * bucket_s / 60
    out.update(width_now=round(width, 4), minutes_more=round(max(0.0, more), 1))
    return out


def sentence(bounds, confidence):
    """The bounds in the user's words."""
    by = {(b["per"], b["p"]): b["upper_us"] for b in bounds}
    return (f"with {confidence * 100:g} % confidence, P(a sample above "
            f"{by[('hour', 1e-3)]:.1f} us within one hour of this load) <= 1e-3; "
            f"per sample: 1e-6 above {by[('sample', 1e-6)]:.1f} us, "
            f"1e-9 above {by[('sample', 1e-9)]:.1f} us")


def last_rise(blocks):
    """The run's maximum (every block with samples, full or not), when its
    block began, and how far into the run (a fraction of its time) the
    maximum last rose: at the end of that block."""
    top = int(np.argmax(blocks.maxima))
    first, at = blocks.seconds[0], blocks.seconds[top]
    span = blocks.seconds[-1] - first + blocks.bucket_s
    return {"observed_max_us": float(blocks.maxima[top]), "observed_max_at_s": float(at),
            "max_last_rose_at_s": float(at),
            "max_last_rose_at_fraction": round((at - first + blocks.bucket_s) / span, 4)}


def estimate(doc, confidence=0.95, with_convergence=True, min_blocks=MIN_BLOCKS):
    """The EVT estimate of a latscope JSON document as a JSON-serialisable
    dict (see the module docstring). with_convergence=False leaves out the
    bounds on parts of the run (the coverage test's shortcut); min_blocks
    below MIN_BLOCKS is for the coverage test's figures of short runs only."""
    if not 0.5 < confidence < 1:
        raise ValueError("confidence must be between 0.5 and 1")
    blocks = blocks_of(doc)
    bucket_s = blocks.bucket_s
    x = blocks.maxima[blocks.full]
    n = len(x)
    m = float(np.median(blocks.samples[blocks.full])) if n else 0.0
    res = {"status": "ok", "reason": None, "confidence": confidence,
           "method": (f"GEV fit (scipy.stats.genextreme, maximum likelihood) of "
                      f"{bucket_s:g} s block maxima; {confidence * 100:g} % upper bound "
                      f"by profile likelihood (one-sided, Coles 2001 3.3.3), the higher "
                      f"of the GEV's and the Gumbel's (xi = 0)"),
           "blocks": n, "block_s": bucket_s, "skipped_blocks": int(np.sum(~blocks.full)),
           "samples_per_block": m, "observed_max_us": None, "observed_max_at_s": None,
           "tests": [], "fit": None, "bounds": [], "sentence": None,
           "convergence": None, "stable": None, "max_last_rose_at_s": None,
           "max_last_rose_at_fraction": None,
           "advice": advice([], n, bucket_s, confidence)}
    if n == 0:
        return dict(res, status="no data", reason="the file has no timeline with samples")
    res.update(last_rise(blocks))
    if n < min_blocks:
        return dict(res, status="too short", reason=(
            f"only {n} blocks of {bucket_s:g} s; the estimate needs at least {min_blocks} "
            f"(about {(min_blocks - n) * bucket_s:g} s more of the run)"))
    if np.ptp(x) == 0:
        return dict(res, status="refused", reason=(
            f"all {n} block maxima are {x[0]:g} us: no spread to fit, no bound"))
    tests, fit, bounds, trouble = analyse(x, m, bucket_s, confidence)
    res.update(tests=tests, fit=fit)
    if trouble:
        return dict(res, status="refused", reason=trouble)
    res.update(bounds=bounds, sentence=sentence(bounds, confidence),
               advice=advice(bounds, n, bucket_s, confidence))
    if with_convergence:
        hour = next(b["upper_us"] for b in bounds if b["per"] == "hour")
        res["convergence"], res["stable"] = convergence(x, m, bucket_s, confidence, hour)
    return res


# The longest EVT| line latscope keeps (core/core.h's evt_line, less its NUL).
LINE_MAX = 1023


def line(result):
    """The one-line CLI form, "EVT| ...": a refusal's reason whole (latscope
    keeps LINE_MAX characters of it, more than any reason here takes)."""
    if result["status"] != "ok":
        reason = result["reason"] or result["status"]
        text = "EVT| " + (reason if reason.startswith("no bound") else "no bound: " + reason)
        return text if len(text) <= LINE_MAX else text[:LINE_MAX - 3] + "..."
    by = {(b["per"], b["p"]): b["upper_us"] for b in result["bounds"]}
    stable = {True: "bound stable", False: "bound still moving",
              None: "stability unknown"}[result["stable"]]
    more = result["advice"]["minutes_more"]
    todo = "" if more is None else ("; +-10 % reached" if more == 0
                                    else f"; ~{more:.0f} min more for +-10 %")
    return (f"EVT| 1e-3/h: {by[('hour', 1e-3)]:.1f} us ({result['confidence'] * 100:g} %); "
            f"1e-6/sample: {by[('sample', 1e-6)]:.1f} us, "
            f"1e-9/sample: {by[('sample', 1e-9)]:.1f} us; {stable}{todo}")
