"""The single-link queue models of BFC Fig. 4 (`dcsim.queue_model`), against
queueing theory."""

import numpy as np
import pytest

from dcsim.queue_model import active_flows, cdf, lognormal_gaps, quantile


def _poisson(n, rho, sizes, seed=3):
    rng = np.random.default_rng(seed)
    s = sizes(rng, n)
    a = np.cumsum(rng.exponential(s.mean() / rho, n))
    return a, s


@pytest.mark.parametrize("policy, sizes", [
    ("ps", lambda r, n: r.exponential(1.0, n)),
    ("ps", lambda r, n: np.where(r.random(n) < 0.9, 0.2, 8.2)),  # bimodal: PS is insensitive
    ("fifo", lambda r, n: r.exponential(1.0, n)),
])
def test_number_in_system_is_geometric(policy, sizes):
    # M/G/1-PS (any sizes) and M/M/1-FIFO: P(N = n) = (1 - rho) rho^n
    rho = 0.7
    a, s = _poisson(300_000, rho, sizes)
    p = active_flows(policy, a, s)
    p = p / p.sum()
    expect = (1 - rho) * rho ** np.arange(8)
    assert p[:8] == pytest.approx(expect, abs=0.012)
    assert (p * np.arange(len(p))).sum() == pytest.approx(rho / (1 - rho), rel=0.08)


def test_srpt_holds_fewer_flows_than_ps_and_fifo_more_with_heavy_tails():
    # heavy-tailed sizes: a long flow at the head of a FIFO holds short ones
    # back; SRPT finishes short ones first
    a, s = _poisson(200_000, 0.8, lambda r, n: r.pareto(1.3, n) + 0.1)
    mean = {p: (lambda x: (x * np.arange(len(x))).sum() / x.sum())(active_flows(p, a, s))
            for p in ("ps", "srpt", "fifo")}
    assert mean["srpt"] < mean["ps"] < mean["fifo"]


def test_lognormal_gaps_keep_their_mean_and_quantiles_read_the_cdf():
    g = lognormal_gaps(2_000_000, 2.0, 2.0, np.random.default_rng(1))
    assert g.mean() == pytest.approx(2.0, rel=0.05)
    levels = np.array([0.5, 0.3, 0.2])
    assert cdf(levels) == pytest.approx([0.5, 0.8, 1.0])
    assert (quantile(levels, 0.5), quantile(levels, 0.8), quantile(levels, 0.81)) == (0, 1, 2)
    with pytest.raises(ValueError, match="policy"):
        active_flows("lifo", [0.0], [1.0])


def test_fair_share_changes_by_hand():
    # A long-lived flow and two flows of 1 s of work arriving at 0 and 10:
    # each shares the link with the long one, so it takes 2 s. N(t) = 2 on
    # [0, 2), 1 on [2, 10). With I = 1 s, t in [0, 9): |N(t) / N(t+1) - 1|
    # is 1 on [1, 2) (2 against 1) and 0 elsewhere: a mean of 1/9. With
    # I = 3 s it is 1 on [0, 2) of [0, 7): 2/7.
    from dcsim.queue_model import fair_share_changes

    got = fair_share_changes(np.array([0.0, 10.0]), np.array([1.0, 1.0]), [1.0, 3.0], 400_000,
                             np.random.default_rng(1))
    assert got[0] == pytest.approx(1 / 9, abs=0.003)
    assert got[1] == pytest.approx(2 / 7, abs=0.003)


def test_fair_share_changes_scale_with_the_link():
    # A link k times faster is the same system with time divided by k: the
    # change over I at the fast link is the change over k I at the slow one.
    from dcsim.queue_model import fair_share_changes

    rng = np.random.default_rng(3)
    a = np.cumsum(rng.exponential(1.0, 5000))
    s = rng.exponential(0.6, 5000)
    slow = fair_share_changes(a, s, [4.0, 40.0], 50_000, np.random.default_rng(7))
    fast = fair_share_changes(a / 10, s / 10, [0.4, 4.0], 50_000, np.random.default_rng(7))
    assert np.allclose(slow, fast, rtol=1e-9)
    # and a longer interval sees more change (the count has drifted further)
    assert slow[1] > slow[0] > 0
