import numpy as np
import pandas as pd
import pytest

from dcsim import slowdown_by_size


def frame(sizes, slowdowns):
    return pd.DataFrame({"size_bytes": sizes, "slowdown": slowdowns})


def test_paper_bins_mean_and_p99():
    df = frame([100, 100_000, 100_001, 10_000_000, 10_000_001], [1.0, 3.0, 2.0, 4.0, 10.0])
    t = slowdown_by_size(df)
    assert list(t.index) == ["(0B, 100KB]", "(100KB, 10MB]", "(10MB, inf]", "all"]
    assert t.loc["(0B, 100KB]", "mean"] == 2.0  # 100 KB itself is a small flow
    assert t.loc["(100KB, 10MB]", "flows"] == 2
    assert t.loc["(10MB, inf]", "mean"] == 10.0
    assert t.loc["all", "mean"] == 4.0
    assert t.loc["(0B, 100KB]", "p99"] == pytest.approx(1.0 + 0.99 * 2.0)


def test_custom_bins_and_percentiles():
    rng = np.random.default_rng(1)
    df = frame(rng.integers(1, 1000, 10_000), rng.uniform(1, 2, 10_000))
    t = slowdown_by_size(df, bins=[0, 500, 1000], percentiles=(50, 99.9))
    assert t.loc["all", "flows"] == 10_000
    assert t.loc["all", "p50"] == pytest.approx(1.5, abs=0.02)
    assert "p99.9" in t.columns
    with pytest.raises(ValueError):
        slowdown_by_size(df, bins=[0, 500, 400])


def test_empty_bin_is_nan():
    t = slowdown_by_size(frame([10], [1.0]))
    assert t.loc["(10MB, inf]", "flows"] == 0 and np.isnan(t.loc["(10MB, inf]", "mean"])


def test_any_column_by_size_and_binary_unit_labels():
    # the PIAS scripts' parser: FCT (not slowdown) in bins of 100 KiB and 10 MiB
    from dcsim.bins import labels

    flows = pd.DataFrame({"size_bytes": [1460, 102_200, 103_660, 11_000_000],
                          "fct_s": [0.001, 0.002, 0.004, 0.1], "slowdown": [1.0, 1.0, 1.0, 1.0]})
    edges = (0, 100 * 1024, 10 * 1024 * 1024, np.inf)
    assert labels(edges) == ["(0B, 100KiB]", "(100KiB, 10MiB]", "(10MiB, inf]"]
    t = slowdown_by_size(flows, bins=edges, column="fct_s")
    assert t.loc["(0B, 100KiB]", "mean"] == pytest.approx(0.0015)  # 70 packets are short, 71 are not
    assert t.loc["(100KiB, 10MiB]", "mean"] == pytest.approx(0.004)
    assert t.loc["all", "flows"] == 4


def drifting(n, growth, seed=1):
    """n small flows (rows shuffled), slowdowns around 2 whose level grows
    by `growth` from the first flow to start to the last."""
    rng = np.random.default_rng(seed)
    start = rng.uniform(0, 1, n)
    return pd.DataFrame({"size_bytes": np.full(n, 1000), "start_s": start,
                         "slowdown": (1 + growth * start) * rng.uniform(1, 3, n)})


def test_settling_tells_a_run_whose_means_move_from_one_that_holds():
    from dcsim.metrics import SETTLING_CHANGE, settling

    steady = {b["bin"]: b for b in settling(drifting(20_000, 0.0))}
    assert steady["all"]["settled"] is True and abs(steady["all"]["change"]) < 0.02
    # the later half's mean is (1 + 3g/4) / (1 + g/4) of the earlier half's
    moving = {b["bin"]: b for b in settling(drifting(20_000, 0.5))}
    assert moving["all"]["settled"] is False and moving["all"]["change"] == pytest.approx(1.375 / 1.125 - 1, abs=0.02)
    assert moving["all"]["z"] > 5  # the trend within each half widens its batch means
    # the same rows in another order: the same answer
    again = {b["bin"]: b for b in settling(drifting(20_000, 0.5).sample(frac=1, random_state=7))}
    assert again["all"] == moving["all"]
    # as large a move among a few flows with no trend is noise, not a verdict
    few = settling(drifting(12, 0.0, seed=1))
    assert few[-1]["settled"] is True and few[-1]["change"] > 3 * SETTLING_CHANGE and few[-1]["z"] < 3
    # and with no trend, false alarms are rare: 5 of 399 runs of 12 flows
    alarms = sum(settling(drifting(12, 0.0, seed=k))[-1]["settled"] is False for k in range(1, 400))
    assert alarms < 10
    # every bin has a row; too few finished flows on a side: no verdict
    f = drifting(10, 0.0).assign(slowdown=[np.nan] * 5 + [1.0, 2.0, 3.0, 4.0, 5.0])
    rows = settling(f)
    assert [r["bin"] for r in rows] == ["(0B, 100KB]", "(100KB, 10MB]", "(10MB, inf]", "all"]
    assert all(r["settled"] is None for r in rows)


def test_settling_keeps_flows_that_started_together_on_one_side():
    from dcsim.metrics import settling

    # an incast: every flow starts at once; their order is the order they
    # finished in, fastest first, which is no evidence of a trend
    burst = pd.DataFrame({"size_bytes": 1000, "start_s": 0.0, "slowdown": np.arange(1.0, 41.0)})
    assert settling(burst)[-1]["settled"] is None
    # two bursts: the cut falls between them, whatever the halves' sizes
    two = pd.concat([burst.assign(start_s=0.0, slowdown=2.0 + np.arange(40) % 3),
                     burst.iloc[:30].assign(start_s=1.0, slowdown=2.0 + np.arange(30) % 3)])
    row = settling(two)[-1]
    assert row["settled"] is True and row["change"] == pytest.approx(0, abs=0.02)


def test_settling_sees_a_move_without_spread_and_counts_unfinished_flows():
    from dcsim.metrics import settling

    flat = pd.DataFrame({"size_bytes": 1000, "start_s": np.arange(40.0), "slowdown": [1.0] * 20 + [2.0] * 20})
    row = settling(flat)[-1]
    assert row["settled"] is False and row["z"] is None and row["change"] == pytest.approx(1.0)
    import json
    json.dumps(row, allow_nan=False)  # summary.json stays valid JSON
    late = flat.assign(slowdown=[1.0] * 20 + [1.0] * 15 + [np.nan] * 5)
    row = settling(late)[-1]
    assert row["settled"] is True and (row["earlier_unfinished"], row["later_unfinished"]) == (0, 5)


def test_a_run_that_has_not_settled_says_so_under_its_table():
    from dcsim.metrics import summarize
    from dcsim.show import footer

    note = footer(summarize(drifting(20_000, 0.5)))
    assert note.startswith("not settled") and "all 2." in note and "(+22%)" in note
    assert footer(summarize(drifting(20_000, 0.0))) == ""
