# SPDX-License-Identifier: GPL-2.0
"""latscope_report.evt: can a run's worst case be trusted? An extreme-value bound.

Measurement-based probabilistic timing analysis (MBPTA) on the timeline a
latscope JSON file holds: each timeline point is one bucket of b seconds
("bucket_s", 1 s for runs up to 4096 s) with its "max" over every measured
CPU. The buckets are cut into blocks of B seconds (below), and the block
maxima give the latency the largest sample of a minute or an hour of the
same load exceeds with a small probability:

  P(some sample above x within a window of W s) = 1 - G(x)^(W / B)

G the law of one block's maximum; for W <= B, P(block maximum > x) bounds
it. The levels: 1e-3 per minute, per hour and per day. Each is given as
a point estimate and an upper bound at the chosen confidence.

No per-sample level is given. It would need G(x) = F(x)^m, the m samples
of a block independent, and a run's samples are not: a preempted timer
makes its neighbours late too, so a second's large samples come in
clusters and the true per-sample exceedance is higher by 1/theta (theta,
the extremal index, unknown from block maxima; 0.15-0.7 in an independent
study). The per-window levels need only the blocks to be independent,
which the tests check.

**Block length, from the data.** The buckets are re-cut into blocks of
B = 1, 2, 5, 10, 20, 30 and 60 s (the multiples of the bucket), those with
at least MIN_FIT_BLOCKS blocks tried, each independence test at ALPHA
divided by the number of lengths tried (Bonferroni). A disturbance every
few seconds (a writeback flusher every 5 s) correlates 1 s maxima but
falls once in each 5 or 10 s block. The shortest length that passes is
the run's block length: its tests, fit and convergence are the ones
reported. The bound is the higher of its and the longest passing
length's (tested and fitted the same way; either refusing refuses): a
rare mode just above the bulk shows in more of the longer blocks. The
run must last MIN_RUN_S (10 minutes) and hold MIN_FIT_BLOCKS blocks of a
length: 100 minutes for 60 s blocks. No length passes: no bound, and the
reason names what would help (a period the 1 s maxima repeat at, the run
length that would try 60 s blocks, a quieter load).

**The fit.** The generalised extreme value law (GEV,
scipy.stats.genextreme) of the block maxima by maximum likelihood, in a
scaled unit ((x - median) / standard deviation) so the optimisers see
numbers of order 1, and the Gumbel (xi = 0) beside it. Each one's bound
is the upper end of the one-sided profile-likelihood interval of the
return level (Coles 2001, ch. 3.3.3 and 2.6.6): the largest level among
the parameters whose deviance from the fit is at most the chi2(1)
quantile of 2 confidence - 1 (2.706 at 95 %), found as one constrained
maximisation (scipy.optimize.minimize, SLSQP, in coordinates whitened by
the observed information). The higher of the two is given: the xi = 0
floor keeps a light tail from being extrapolated lighter than an
exponential one (a fitted xi < 0 promises a finite endpoint).

What the bound assumes, and so what it does not say:

- the block maxima are independent and identically distributed: the load
  is stationary, and nothing periodic outlasts a block;
- the load during the run is the load the bound speaks of: another load,
  kernel, temperature or board is another distribution;
- it says nothing about events that never showed in the run (a rare mode,
  a daily job): the fit extrapolates the tail it saw.

The tests (ALPHA = 0.01 each unless said). Any failure at the chosen
length, or at the longest passing one ("tests_longest"), refuses the
bound:

- independence, Ljung-Box: the autocorrelation of the ranks of the block
  maxima over lags 1..20 (n/10 on runs under 200 blocks), chi-square
  p-value (scipy.stats.chi2); ranks, because heavy-tailed maxima may
  have no variance;
- independence, runs above and below the median (Wald-Wolfowitz, normal
  approximation): high maxima in clusters;
- identical distribution, halves: two-sample Kolmogorov-Smirnov of the
  first half against the second (scipy.stats.ks_2samp): a drift;
- identical distribution, quarters: k-sample Anderson-Darling of the four
  quarters (scipy.stats.anderson_ksamp, its p clipped to [0.001, 0.25]):
  a change that comes and goes.
  Both fail only when the change is also large: the largest distance
  between the parts' distribution functions (the KS statistic, of the
  halves or the most different two quarters) at least CHANGE_D. A test
  grows more powerful with the run while a small step's harm does not.
- goodness of fit, GEV: Anderson-Darling of the maxima against the fitted
  GEV (in its Gumbel coordinates, scipy.stats.anderson), p from SciPy's
  parametric bootstrap (goodness_of_fit, 199 samples, seeded, drawn once
  per n; shape held, so approximate and somewhat lenient);
- goodness of fit, tail: the top TAIL_FRACTION of the maxima (at least
  TAIL_MIN), a peaks-over-threshold view that sees only the tail, where a
  rare mode just above the bulk shows: a likelihood ratio of their
  excesses over the next maximum, u, under the fitted GEV's own law above
  u against a free generalised Pareto law (GPD, scipy.stats.genpareto),
  chi2(2); it fails when p < ALPHA and the GPD's tail is the heavier;
- goodness of fit, the very top: the normalised spacings of the largest
  maxima in the fitted GEV's Gumbel coordinates (spacing_test), at
  SPACING_ALPHA over SPACING_KS (0-3 % false refusals per length measured).

**What a run vouches for.** A mode just above the bulk that came fewer
than MODE_SEEN times is not told from the bulk's top often enough (the
coverage test's "near" rows), so every bound names the rarest mode it
includes: once in run_s / MODE_SEEN seconds ("unseen_once_in_s").

Blocks without samples are skipped, and so are buckets with fewer than
half the median samples (a partial last bucket has a smaller maximum);
a block holds only full buckets. Nothing is random but the
goodness-of-fit bootstraps, which are seeded: the same file gives the
same result. The coverage test (tests/evt/coverage.py) measures how often
the bound holds on synthetic runs of known tails.
"""

import collections
import functools
import math
import warnings

import numpy as np
from scipy import optimize, stats

ALPHA = 0.01
LENGTHS_S = (1, 2, 5, 10, 20, 30, 60)
MIN_RUN_S = 600
MIN_FIT_BLOCKS = 100
MAX_LAG = 20
SEGMENTS = 4
CHANGE_D = 0.2
TAIL_FRACTION = 0.1
TAIL_MIN = 25
SPACING_KS = (1, 2, 3, 5, 10, 20)
SPACING_ALPHA = 0.05
MODE_SEEN = 50
WINDOW_S = {"minute": 60.0, "hour": 3600.0, "day": 86400.0}
BOUNDS = (("minute", 1e-3), ("hour", 1e-3), ("day", 1e-3))
HEADLINE = ("hour", 1e-3)
TARGET = ("day", 1e-3)
TARGET_WIDTH = 0.10
FRACTIONS = (0.25, 0.5, 0.75, 1.0)
GOF_BOOTSTRAP = 199
SEED = 20240601

# A fitted model: theta in the scaled unit, nll its negative log-likelihood.
# GEV (loc, log scale, xi); Gumbel (loc, log scale); GPD (log scale, xi) and
# exponential (log scale,) of the excesses over the threshold.
Fit = collections.namedtuple("Fit", "theta nll")
# The timeline's buckets with samples: when each began (s), its maximum (us)
# and samples, whether it is full, and the bucket length (s).
Blocks = collections.namedtuple("Blocks", "seconds maxima samples full bucket_s")
# The tail: the threshold u and the excesses over it (scaled unit).
Tail = collections.namedtuple("Tail", "u excesses")


def blocks_of(doc):
    """The run's buckets with samples, the timeline's columns found by name,
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


def lengths_for(bucket_s):
    """The block lengths (s) to try: the LENGTHS_S that are whole multiples
    of the bucket, or the bucket itself when none is."""
    out = [float(s) for s in LENGTHS_S
           if s >= bucket_s and abs(s / bucket_s - round(s / bucket_s)) < 1e-9]
    return out or [bucket_s]


def recut(blocks, length):
    """The maxima of blocks of `length` seconds, each of whole full buckets
    only (a block missing one is left out), in time order."""
    if not len(blocks.seconds):
        return np.array([])
    per = int(round(length / blocks.bucket_s))
    idx = ((blocks.seconds - blocks.seconds[0]) // length).astype(int)
    count = np.bincount(idx, weights=blocks.full.astype(float))
    top = np.full(len(count), -np.inf)
    np.maximum.at(top, idx, blocks.maxima)
    return top[count == per]


def test_result(name, what, statistic, p, alpha=ALPHA, passed=None):
    """One test's entry of the result."""
    return {"name": name, "what": what, "statistic": round(float(statistic), 4),
            "p": float(p), "alpha": alpha,
            "pass": bool(p >= alpha) if passed is None else bool(passed)}


def rank_acf(x, lags):
    """The autocorrelation of the ranks of x at lags 1..lags."""
    r = stats.rankdata(x)
    r = r - r.mean()
    return np.array([np.dot(r[:-k], r[k:]) for k in range(1, lags + 1)]) / np.dot(r, r)


def ljung_box(x, alpha=ALPHA):
    """Ljung-Box on the ranks of x over lags 1..h, h = min(20, n / 10)."""
    n = len(x)
    h = max(1, min(MAX_LAG, n // 10))
    acf = rank_acf(x, h)
    q = n * (n + 2) * np.sum(acf ** 2 / (n - np.arange(1, h + 1)))
    return test_result(f"independence: Ljung-Box, lags 1-{h}",
                       "a bound needs independent maxima; a load that repeats "
                       "or drifts correlates them", q, stats.chi2.sf(q, h), alpha)


def runs_test(x, alpha=ALPHA):
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
                       2 * stats.norm.sf(abs(zed)), alpha)


def halves_test(x):
    """Two-sample Kolmogorov-Smirnov of the first half against the second;
    fails when significant and the distance is at least CHANGE_D."""
    half = len(x) // 2
    res = stats.ks_2samp(x[:half], x[half:])
    return test_result("identical distribution: KS, first vs second half",
                       f"one distribution over the whole run; a drift (heating, a "
                       f"load that grows) fails it when the halves differ by "
                       f">= {CHANGE_D:g} (the KS distance)", res.statistic, res.pvalue,
                       passed=res.pvalue >= ALPHA or res.statistic < CHANGE_D)


def segments_test(x):
    """k-sample Anderson-Darling of SEGMENTS equal segments (SciPy clips
    its p-value to [0.001, 0.25] and warns when it does); fails when
    significant and two segments' KS distance is at least CHANGE_D."""
    parts = np.array_split(x, SEGMENTS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = stats.anderson_ksamp(parts)
    apart = max(stats.ks_2samp(a, b).statistic
                for i, a in enumerate(parts) for b in parts[i + 1:])
    return test_result(f"identical distribution: Anderson-Darling, {SEGMENTS} segments",
                       f"no part of the run differs from the others (a load that "
                       f"comes and goes) by >= {CHANGE_D:g} (the KS distance, here "
                       f"{apart:.2f}); p clipped to 0.001-0.25", res.statistic,
                       res.significance_level,
                       passed=res.significance_level >= ALPHA or apart < CHANGE_D)


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


def tail_of(z):
    """The top TAIL_FRACTION of z (at least TAIL_MIN) as excesses over the
    largest value below them; None when ties leave fewer than TAIL_MIN."""
    k = max(TAIL_MIN, int(TAIL_FRACTION * len(z)))
    if k >= len(z):
        return None
    u = float(np.sort(z)[len(z) - k - 1])
    excesses = z[z > u] - u
    if len(excesses) < TAIL_MIN:
        return None
    return Tail(u, excesses)


def fit_gpd(e, expon):
    """Maximum-likelihood GPD fit of the excesses e, theta = (log scale,
    xi), started at xi = 0 and, if that ends worse than the exponential it
    nests, at -0.2 and 0.2. None if no fit is finite."""
    best = None
    for c0 in (0.0, -0.2, 0.2):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            c, _, scale = stats.genpareto.fit(e, c0, floc=0.0, scale=math.exp(expon.theta[0]))
        nll = stats.genpareto.nnlf((c, 0.0, scale), e)
        if np.isfinite(nll) and (best is None or nll < best.nll):
            best = Fit((math.log(scale), c), nll)
        if best is not None and best.nll <= expon.nll + 1e-6:
            break
    return best


def fit_expon(e):
    """Maximum-likelihood exponential (xi = 0) fit of the excesses e."""
    scale = float(np.mean(e))
    return Fit((math.log(scale),), stats.expon.nnlf((0.0, scale), e))


@functools.lru_cache(maxsize=32)
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


def bootstrap_p(a2, null):
    """The bootstrap p-value of the statistic a2, as
    scipy.stats.monte_carlo_test counts it."""
    return (1 + len(null) - np.searchsorted(null, a2, side="left")) / (len(null) + 1)


def gof_test(z, gev):
    """Anderson-Darling of z against the fitted GEV: z in the fit's Gumbel
    coordinates, -log(-log G(z)), tested as Gumbel. -log G is clipped so a
    maximum at the edge of the fit's support stays finite (and fails)."""
    loc, log_scale, xi = gev.theta
    minus_log_g = -stats.genextreme.logcdf(z, -xi, loc, math.exp(log_scale))
    w = -np.log(np.clip(minus_log_g, 1e-300, 1e300))
    a2 = stats.anderson(w, "gumbel_r").statistic
    return test_result("goodness of fit: Anderson-Darling, fitted GEV",
                       "the maxima, their largest most of all, must follow the "
                       "fitted GEV; p by bootstrap, approximate (shape estimated)",
                       a2, bootstrap_p(a2, gumbel_ad_null(len(z))))


def block_probability(per, p, block_s):
    """q = P(a block's maximum > x_p) of the level x_p that some sample of
    a window ("minute", "hour") exceeds with probability p: 1 - (1 -
    p)^(B / W), or p itself when the window is no longer than a block."""
    window = WINDOW_S[per]
    return p if window <= block_s else -math.expm1(math.log1p(-p) * block_s / window)


def log_reduced_variate(q):
    """log y, y = -log G(x) = -log(1 - q), of the level a block's maximum
    exceeds with probability q."""
    return math.log(-math.log1p(-q))


def shape(theta):
    """xi of a GEV theta (loc, log scale, xi), 0 for a Gumbel one."""
    return theta[2] if len(theta) > 2 else 0.0


def return_level(theta, log_y):
    """The GEV (or Gumbel) return level (scaled unit) of reduced variate
    y = exp(log_y): loc + scale (y^-xi - 1) / xi, loc - scale log y."""
    loc, log_scale, xi = theta[0], theta[1], shape(theta)
    t = -log_y
    g = t + xi * t * t / 2 if abs(xi * t) < 1e-8 else math.expm1(min(xi * t, 700.0)) / xi
    return loc + math.exp(log_scale) * g


def gev_nll(theta, z):
    """Negative log-likelihood of z under the GEV theta, finite and large
    outside the support so SLSQP's finite differences stay finite."""
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


def upper_level(nll, level, fit, confidence):
    """The one-sided profile-likelihood upper bound of level(theta): the
    largest level over {theta: 2 (nll(theta) - nll_hat) <= chi2_1(2
    confidence - 1)}, or None when SLSQP fails. SLSQP works in whitened
    coordinates u (theta = theta_hat + W u), where the region is close to
    the ball |u|^2 <= crit, and starts on that ball where the level grows
    fastest: the delta method's bound. SLSQP's status 8 (no descent
    direction left, the finite differences' noise) is accepted when the
    point is in the region; a point on the box around u = 0 is retried in
    a larger box, then refused (no finite bound)."""
    theta0 = np.array(fit.theta, dtype=float)
    level0 = level(theta0)
    crit = stats.chi2.ppf(2 * confidence - 1, 1)
    limit = fit.nll + crit / 2
    w = whitening(hessian(nll, theta0))
    if w is None:
        return None
    grad = w.T @ optimize.approx_fprime(theta0, level, 1e-7)
    norm = float(np.linalg.norm(grad))
    if not norm > 0:
        return None
    start = grad / norm * math.sqrt(crit)
    for reach in (4 * math.sqrt(crit), 16 * math.sqrt(crit)):
        res = optimize.minimize(
            lambda u: (level0 - level(theta0 + w @ u)) / norm, start,
            method="SLSQP", bounds=[(-reach, reach)] * len(theta0),
            constraints=[{"type": "ineq", "fun": lambda u: limit - nll(theta0 + w @ u)}],
            options={"maxiter": 100, "ftol": 1e-10})
        if np.max(np.abs(res.x)) < 0.99 * reach:
            break
    else:
        return None
    best = level(theta0 + w @ res.x)
    if res.status not in (0, 8) or nll(theta0 + w @ res.x) > limit + 1e-3 or best < level0:
        return None
    return best


def bound(models, q, confidence):
    """(model, estimate, upper) in the scaled unit: of the models (name,
    fit, nll(theta), level(theta, q)), the one whose upper bound is
    highest; None if a bound failed."""
    out = []
    for name, fit, nll, level in models:
        upper = upper_level(nll, lambda th, lv=level: lv(th, q), fit, confidence)
        if upper is None:
            return None
        out.append((upper, name, level(np.array(fit.theta), q)))
    upper, name, estimate = max(out)
    return name, estimate, upper


def tail_test(z, gev, tail):
    """Do the largest maxima follow the fitted GEV? A likelihood-ratio test
    of the excesses over the threshold: the GEV's own law above it
    (fixed, g(u + y) / (1 - G(u))) against a free GPD. It refuses only a
    tail heavier than the GEV's (the GPD's xi above the GEV's): a lighter
    one makes the GEV's bound conservative."""
    loc, log_scale, xi = gev.theta
    top = tail.u + tail.excesses
    scale = math.exp(log_scale)
    nll0 = -(np.sum(stats.genextreme.logpdf(top, -xi, loc, scale))
             - len(top) * stats.genextreme.logsf(tail.u, -xi, loc, scale))
    gpd = fit_gpd(tail.excesses, fit_expon(tail.excesses))
    lr = max(0.0, 2 * (nll0 - gpd.nll)) if gpd is not None and np.isfinite(nll0) else 0.0
    p = float(stats.chi2.sf(lr, 2))
    heavier = gpd is not None and gpd.theta[1] > xi
    k = len(top)
    return test_result(f"goodness of fit: the top {k} maxima, GPD vs the GEV",
                       "the largest maxima must not have a heavier tail than the "
                       "GEV fitted to all of them (a rare mode just above the bulk); "
                       "likelihood ratio, chi2(2)", lr, p, passed=p >= ALPHA or not heavier)


def spacing_test(z, gev):
    """Are the very largest maxima as far apart as the fitted GEV says? In
    its Gumbel coordinates y = -log(-log G(z)) the normalised spacings of
    the top order statistics, i (y(i) - y(i+1)), are close to independent
    standard exponentials, so the sum of the top k is Gamma(k, 1); a rare
    mode just above the bulk stretches them. One-sided, k in SPACING_KS,
    the smallest p times their number (Bonferroni)."""
    loc, log_scale, xi = gev.theta
    k_max = max(SPACING_KS)
    top = np.sort(z)[::-1][:k_max + 1]
    with np.errstate(all="ignore"):
        minus_log_g = -stats.genextreme.logcdf(top, -xi, loc, math.exp(log_scale))
    y = -np.log(np.maximum(minus_log_g, 1e-300))
    spacings = np.arange(1, k_max + 1) * (y[:-1] - y[1:])
    ps = [float(stats.gamma.sf(np.sum(spacings[:k]), k)) for k in SPACING_KS]
    i = int(np.argmin(ps))
    k = SPACING_KS[i]
    return test_result("goodness of fit: the top spacings, under the GEV",
                       f"the {k_max} largest maxima must lie as close together as the "
                       "fitted GEV says (a rare mode just above the bulk spreads "
                       f"them); the sum of the top k normalised spacings, Gamma(k), "
                       f"k = {', '.join(map(str, SPACING_KS))}, Bonferroni; "
                       f"statistic: the mean of the top {k}",
                       np.sum(spacings[:k]) / k, min(1.0, ps[i] * len(SPACING_KS)),
                       alpha=SPACING_ALPHA)


def fits_of(z):
    """The models of the scaled maxima z and the goodness-of-fit tests:
    (the models, tests, the GEV fit or None)."""
    gumbel = fit_gumbel(z)
    gev = fit_gev(z, gumbel)
    if gev is None:
        return [], [], None
    tests = [gof_test(z, gev)]
    tail = tail_of(z)
    if tail is not None:
        tests.append(tail_test(z, gev, tail))
    if len(z) > max(SPACING_KS) + 1:
        tests.append(spacing_test(z, gev))
    models = [("GEV", gev, lambda th: gev_nll(th, z),
               lambda th, q: return_level(th, log_reduced_variate(q))),
              ("Gumbel", gumbel, lambda th: gev_nll(th, z),
               lambda th, q: return_level(th, log_reduced_variate(q)))]
    return models, tests, gev


def analyse(x, block_s, confidence, levels=BOUNDS):
    """The identical-distribution and fit tests and, if they pass, the
    bounds of block maxima x (us). Returns (tests, the GEV fit in us or
    None, bounds, None or why there is no bound)."""
    spread = float(np.std(x))
    center = float(np.median(x))
    z = (x - center) / spread
    tests = [halves_test(x), segments_test(x)]
    models, gof, gev = fits_of(z)
    tests += gof
    fit_us = None
    if gev is not None:
        loc, log_scale, xi = gev[0]
        fit_us = {"shape_xi": round(float(xi), 4), "loc_us": round(center + spread * loc, 3),
                  "scale_us": round(spread * math.exp(log_scale), 3)}
    failed = [t for t in tests if not t["pass"]]
    if failed:
        return tests, fit_us, [], refusal_reason(failed)
    if not models:
        return tests, fit_us, [], "no bound: no fit of the maxima converged"
    out = []
    for per, p in levels:
        found = bound(models, block_probability(per, p, block_s), confidence)
        if found is None:
            return tests, fit_us, [], ("no bound: the likelihood gives no finite "
                                       "confidence bound (too few blocks for this tail?)")
        model, level, upper = found
        out.append({"per": per, "p": p, "model": model,
                    "estimate_us": round(center + spread * level, 3),
                    "upper_us": round(center + spread * upper, 3)})
    return tests, fit_us, out, None


def period_of(x):
    """The lag (blocks, 2..60) at which the ranks of x correlate most above
    their usual correlation (the median over those lags: a drift or a slow
    load raises every lag alike), a peak higher than the lag before it,
    the shortest whose excess is within 80 % of the largest (a period's
    multiples correlate as much), and that correlation, when the excess is
    clearly above noise (4 / sqrt(n)); else None."""
    lags = min(60, len(x) // 4)
    if lags < 3:
        return None
    acf = rank_acf(x, lags)
    level = float(np.median(acf[1:]))
    peaks = [k for k in range(1, lags - 1) if acf[k] > acf[k - 1] and acf[k] >= acf[k + 1]]
    if not peaks:
        return None
    top = max(acf[i] for i in peaks)
    k = min(i for i in peaks if acf[i] - level >= 0.8 * (top - level))
    return (k + 1, float(acf[k])) if acf[k] - level > 4 / math.sqrt(len(x)) else None


def refusal_reason(failed):
    """One sentence: which tests failed (the list holds only those that
    refuse), their p-values, and what that means of the load."""
    meaning = {
        "independence": ("the block maxima are not independent", None),
        "identical distribution": ("the block maxima are not identically distributed",
                                   "the load changed during the run: measure a steady "
                                   "load, or the steady part of it"),
        "goodness of fit": ("the GEV does not fit the largest maxima",
                            "a rare mode the run showed a few times? a longer run "
                            "shows more of it"),
    }
    parts = []
    for kind, (what, means) in meaning.items():
        these = [t for t in failed if t["name"].startswith(kind)]
        if these:
            ps = ", ".join(f"{t['name'].split(': ')[1].split(',')[0]} "
                           f"p = {t['p']:.2g} < {t['alpha']:.2g}" for t in these)
            parts.append(f"{what} ({ps})"
                         + (f": {means}" if means else ""))
    return "no bound: " + "; ".join(parts)


def choose_length(blocks, min_fit_blocks):
    """Tries the block lengths with at least min_fit_blocks blocks, each
    independence test at ALPHA / (the number tried). Returns the choice
    rows and, for the shortest and the longest length that pass (one
    entry when they are the same; none when no length passes: then the
    shortest's, block_s None), (block_s, maxima, tests)."""
    tried = [(s, recut(blocks, s)) for s in lengths_for(blocks.bucket_s)]
    tried = [(s, x) for s, x in tried if len(x) >= min_fit_blocks]
    alpha = ALPHA / max(1, len(tried))
    rows, passing, first = [], [], None
    for s, x in tried:
        tests = [ljung_box(x, alpha), runs_test(x, alpha)]
        ok = all(t["pass"] for t in tests)
        rows.append({"block_s": s, "blocks": len(x), "alpha": alpha,
                     "ljung_box_p": tests[0]["p"], "runs_p": tests[1]["p"], "pass": ok})
        first = first or (None, x, tests)
        if ok:
            passing.append((s, x, tests))
    if not passing:
        return rows, [first] if first else []
    return rows, passing[:1] + passing[1:][-1:]


def dependence_help(blocks, rows, shortest, min_fit_blocks):
    """What would help a run whose maxima are dependent at every length
    tried (shortest: the maxima at the shortest): a periodic disturbance
    named, a longer run for longer blocks, a quieter load."""
    helps = []
    found = period_of(shortest)
    if found:
        helps.append(f"something recurs every {found[0] * rows[0]['block_s']:g} s (the "
                     f"maxima correlate at that lag, r = {found[1]:.2f}): find it "
                     f"(a flusher, a watchdog, a poll) and stop it or move it off "
                     f"the measured CPUs")
    longest = max(lengths_for(blocks.bucket_s))
    if rows[-1]["block_s"] < longest:
        helps.append(f"a run of {min_fit_blocks * longest / 60:g} minutes would try "
                     f"blocks up to {longest:g} s (this run: up to {rows[-1]['block_s']:g} s)")
    helps.append("or a quieter load")
    return helps


def convergence(x, block_s, confidence, full_upper, min_fit_blocks):
    """The per-hour upper bound on the first 25, 50, 75 and 100 % of the
    blocks (None where too short or refused), and whether the last two
    differ by less than 10 % (None when one is missing)."""
    rows = []
    for f in FRACTIONS:
        nb = int(round(f * len(x)))
        upper = full_upper
        if f < 1.0:
            upper = None
            if nb >= min_fit_blocks and nb * block_s >= MIN_RUN_S and np.ptp(x[:nb]) > 0:
                _, _, b, _ = analyse(x[:nb], block_s, confidence, (HEADLINE,))
                upper = b[0]["upper_us"] if b else None
        rows.append({"fraction": f, "blocks": nb, "upper_us": upper})
    a, b = rows[-2]["upper_us"], rows[-1]["upper_us"]
    stable = None if a is None or b is None else bool(abs(b - a) < TARGET_WIDTH * abs(b))
    return rows, stable


def advice(bounds, n, block_s, confidence):
    """How much longer the run must be for the 1e-3 per-day bound to be
    within TARGET_WIDTH of its estimate, the width shrinking as
    1/sqrt(blocks)."""
    out = {"target": (f"the {confidence * 100:g} % upper bound of the {TARGET[1]:g} "
                      f"per-{TARGET[0]} level within {TARGET_WIDTH * 100:g} % above its "
                      f"estimate"),
           "width_now": None, "minutes_more": None,
           "how": ("CI width ~ 1/sqrt(blocks): minutes more = blocks * ((width_now / "
                   f"{TARGET_WIDTH:g})^2 - 1) * block_s / 60")}
    b = next((b for b in bounds if (b["per"], b["p"]) == TARGET), None)
    if b is None or b["estimate_us"] <= 0:
        return out
    width = (b["upper_us"] - b["estimate_us"]) / b["estimate_us"]
    more = n * ((width / TARGET_WIDTH) ** 2 - 1) * block_s / 60
    out.update(width_now=round(width, 4), minutes_more=round(max(0.0, more), 1))
    return out


def unseen_once_in_s(run_s):
    """The rarest mode the run can vouch for: one that comes less often
    than once in this many seconds showed fewer than MODE_SEEN times, and
    just above the bulk the tests do not tell so few from its top (the
    coverage test's "near" rows), so the bound may not include it."""
    return round(run_s / MODE_SEEN, 1)


def sentence(bounds, confidence, run_s):
    """The bounds in the user's words, and what they cannot include."""
    by = {(b["per"], b["p"]): b["upper_us"] for b in bounds}
    return (f"with {confidence * 100:g} % confidence, under this load some sample "
            f"exceeds {by[('minute', 1e-3)]:.1f} us within a minute with probability "
            f"<= 1e-3, {by[('hour', 1e-3)]:.1f} us within an hour <= 1e-3, and "
            f"{by[('day', 1e-3)]:.1f} us within a day <= 1e-3; a mode that comes less "
            f"often than once in {unseen_once_in_s(run_s):.0f} s showed fewer than "
            f"{MODE_SEEN} times in this run and may be missing from these bounds "
            f"(a longer run sees rarer ones)")


def last_rise(blocks):
    """The run's maximum (every bucket with samples, full or not), when its
    bucket began, and how far into the run (a fraction of its time) the
    maximum last rose: at the end of that bucket."""
    top = int(np.argmax(blocks.maxima))
    first, at = blocks.seconds[0], blocks.seconds[top]
    span = blocks.seconds[-1] - first + blocks.bucket_s
    return {"observed_max_us": float(blocks.maxima[top]), "observed_max_at_s": float(at),
            "max_last_rose_at_s": float(at),
            "max_last_rose_at_fraction": round((at - first + blocks.bucket_s) / span, 4)}


def minutes(seconds):
    """Seconds in words: "90 s", "12 min", "9 min 59 s"."""
    whole, rest = divmod(int(round(seconds)), 60)
    if seconds < 120:
        return f"{seconds:g} s"
    return f"{whole} min" + (f" {rest} s" if rest else "")


def estimate(doc, confidence=0.95, with_convergence=True, min_run_s=MIN_RUN_S,
             min_fit_blocks=MIN_FIT_BLOCKS):
    """The EVT estimate of a latscope JSON document as a JSON-serialisable
    dict (see the module docstring). with_convergence=False leaves out the
    bounds on parts of the run (the coverage test's shortcut); min_run_s
    and min_fit_blocks below their defaults are for the coverage test's
    figures of short runs only."""
    if not 0.5 < confidence < 1:
        raise ValueError("confidence must be between 0.5 and 1")
    blocks = blocks_of(doc)
    full_s = float(np.sum(blocks.full)) * blocks.bucket_s
    res = {"status": "ok", "reason": None, "confidence": confidence,
           "method": (f"block maxima, the block length chosen from the data; the "
                      f"{confidence * 100:g} % upper bound by profile likelihood "
                      f"(one-sided, Coles 2001), the higher of the GEV's and the "
                      f"Gumbel's, at the shortest and the longest block length that "
                      f"pass the tests"),
           "bucket_s": blocks.bucket_s, "block_s": None, "block_choice": [],
           "blocks": 0, "run_s": full_s, "skipped_blocks": int(np.sum(~blocks.full)),
           "samples_per_block": None, "observed_max_us": None, "observed_max_at_s": None,
           "tests": [], "fit": None, "bounds": [], "sentence": None,
           "unseen_once_in_s": None,
           "convergence": None, "stable": None, "max_last_rose_at_s": None,
           "max_last_rose_at_fraction": None, "advice": advice([], 0, 1, confidence)}
    if not len(blocks.seconds) or not np.any(blocks.full):
        return dict(res, status="no data", reason="the file has no timeline with samples")
    res.update(last_rise(blocks))
    if full_s < min_run_s:
        return dict(res, status="too short", reason=(
            f"only {minutes(full_s)} of full blocks; the estimate needs at least "
            f"{minutes(min_run_s)} of the run (about {minutes(min_run_s - full_s)} more)"))
    every = blocks.maxima[blocks.full]
    if np.ptp(every) == 0:
        return dict(res, status="refused", reason=(
            f"all {len(every)} block maxima are {every[0]:g} us: no spread to fit, no bound"))
    rows, chosen = choose_length(blocks, min_fit_blocks)
    res.update(block_choice=rows)
    if not rows:
        need = min_fit_blocks * blocks.bucket_s
        return dict(res, status="too short", reason=(
            f"fewer than {min_fit_blocks} blocks of {blocks.bucket_s:g} s; the estimate "
            f"needs at least {minutes(need)} of the run"))
    block_s, x, tests = chosen[0]
    if block_s is None:
        return dict(res, status="refused", tests=tests, blocks=len(x),
                    reason=refusal_reason([t for t in tests if not t["pass"]])
                    + f" at every block length from {rows[0]['block_s']:g} to "
                      f"{rows[-1]['block_s']:g} s; "
                    + "; ".join(dependence_help(blocks, rows, x, min_fit_blocks)))
    res.update(block_s=block_s, blocks=len(x),
               samples_per_block=float(np.median(blocks.samples[blocks.full]))
               * block_s / blocks.bucket_s)
    bounds = None
    for length, xs, independence in chosen:
        more, fit, found, trouble = analyse(xs, length, confidence)
        if length == block_s:
            res.update(tests=independence + more, fit=fit)
            own = next((b["upper_us"] for b in found if (b["per"], b["p"]) == HEADLINE), None)
        else:
            res["tests_longest"] = independence + more
        if trouble:
            where = "" if length == block_s else f" (in {length:g} s blocks)"
            return dict(res, status="refused", reason=trouble + where)
        for b in found:
            b["block_s"], b["blocks"] = length, len(xs)
        bounds = found if bounds is None else [max(a, b, key=lambda c: c["upper_us"])
                                               for a, b in zip(bounds, found)]
    res.update(bounds=bounds, sentence=sentence(bounds, confidence, full_s),
               unseen_once_in_s=unseen_once_in_s(full_s),
               model=next(f'{b["model"]}, {b["block_s"]:g} s blocks' for b in bounds
                          if (b["per"], b["p"]) == HEADLINE))
    target = next(b for b in bounds if (b["per"], b["p"]) == TARGET)
    res["advice"] = advice(bounds, target["blocks"], target["block_s"], confidence)
    if with_convergence:
        # Over the run at the shortest length, its own bound at the end:
        # the longest length's blocks are too few to cut in quarters.
        res["convergence"], res["stable"] = convergence(x, block_s, confidence, own,
                                                        min_fit_blocks)
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
            f"1e-3/day: {by[('day', 1e-3)]:.1f} us, 1e-3/min: {by[('minute', 1e-3)]:.1f} us; "
            f"{result['model']}; {stable}{todo}; "
            f"blind to modes rarer than 1 in {result['unseen_once_in_s']:.0f} s")
