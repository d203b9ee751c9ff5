"""``anonstudio experiment cbmsa-hhp`` (004 Figs 2-4) on small generated visit logs: CSV, claims, PNGs."""

from __future__ import annotations

import pandas as pd

from anonstudio.cli.main import main
from anonstudio.core.experiments import EXPERIMENTS
from anonstudio.core.experiments._cbmsa_hhp import claims_text


def test_experiment_writes_results_claims_and_figures(tmp_path, capsys):
    assert "cbmsa-hhp" in EXPERIMENTS
    out = tmp_path / "out"
    code = main(["experiment", "cbmsa-hhp", "--out", str(out), "--sequences", "80", "--k-values", "5,10",
                 "--c-values", "0.5,0.9", "--quiet"])
    assert code == 0
    frame = pd.read_csv(out / "results.csv")
    assert {"dataset", "sequences", "sweep", "k", "c", "method", "IL", "clusters", "removed_sequences",
            "suppressed_events", "verified", "runtime_s"} <= set(frame.columns)
    assert len(frame) == (2 + 2) * 2 and set(frame["method"]) == {"cbmsa", "cbmsa-baseline"}
    assert set(frame["dataset"]) == {"Data_80_5_3"}
    assert frame["verified"].all() and (frame["IL"] > 0).all()
    # more privacy costs more: IL grows with k for both methods
    ks = frame[frame["sweep"] == "k"].pivot_table(index="k", columns="method", values="IL")
    assert (ks.loc[10] >= ks.loc[5]).all()
    claims = (out / "claims.md").read_text()
    assert "| Data_80_5_3 | k | 5 | 0.7 |" in claims and "Our run: the claim holds at" in claims
    for name in ("il_vs_k.png", "il_vs_c.png", "runtime_vs_k.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert str(out / "results.csv") in capsys.readouterr().out


def test_claims_say_where_the_paper_does_not_hold():
    rows = []
    for method, il, sup in (("cbmsa", 3.0, 10), ("cbmsa-baseline", 2.5, 4)):
        for c in (0.5, 0.9):
            rows.append({"dataset": "D", "sweep": "c", "k": 5, "c": c, "method": method, "IL": il,
                         "suppressed_events": sup, "removed_sequences": 0, "highest_confidence": 0.4})
    text = claims_text(pd.DataFrame(rows))
    assert text.count("does not hold") == 2 and "the claim holds at 0 of 2 points" in text
    assert "CBMSA suppresses more events than the baseline" in text
    assert "IL hardly changes with c at k = 5 (by 0.0 %" in text and "0.40" in text


def test_experiment_bad_options_exit_2(tmp_path, capsys):
    assert main(["experiment", "cbmsa-hhp", "--out", str(tmp_path / "o"), "--k-values", "5,x"]) == 2
    assert "k_values" in capsys.readouterr().err
    assert main(["experiment", "cbmsa-hhp", "--out", str(tmp_path / "o"), "--sequences", "30",
                 "--k-values", "50"]) == 2
    assert "larger than the smallest data set (30 sequences)" in capsys.readouterr().err
    assert main(["experiment", "cbmsa-hhp", "--out", str(tmp_path / "o"), "--c-values", "1.5"]) == 2
    assert "c_values" in capsys.readouterr().err


def test_several_data_sets_are_averaged_with_ils_both_ways_and_cpu_time(tmp_path):
    """``--datasets 2``: two generated data sets (seeds 1, 2), described in datasets.csv; claims.md takes IL as
    Eq. 1 prints it (removed sequences left out: never above ours) on the mean of the two; the method's CPU time
    is recorded for Fig. 4's ratios."""
    out = tmp_path / "out"
    assert main(["experiment", "cbmsa-hhp", "--out", str(out), "--sequences", "60", "--k-values", "5,20",
                 "--c-values", "0.5", "--datasets", "2", "--carriers", "0.3,0.2", "--quiet"]) == 0
    frame = pd.read_csv(out / "results.csv")
    assert sorted(frame["data_seed"].unique()) == [1, 2] and len(frame) == 2 * (2 + 1) * 2
    assert (frame["IL_paper"] <= frame["IL"] + 1e-12).all() and (frame["cpu_s"] >= 0).all()
    removed = frame["removed_sequences"] > 0
    assert (frame.loc[removed, "IL_paper"] < frame.loc[removed, "IL"]).all()
    data = pd.read_csv(out / "datasets.csv")
    assert list(data["data_seed"]) == [1, 2] and (data["sequences"] == 60).all()
    assert data["share_highly_sensitive"].between(0.25, 0.75).all()  # carriers raised to 30 % and 20 %
    claims = (out / "claims.md").read_text()
    assert "| Data_60_5_3 | k | 5 | 0.7 | 2 |" in claims and "of 2 |" in claims
    assert main(["experiment", "cbmsa-hhp", "--out", str(tmp_path / "o"), "--carriers", "0.3"]) == 2
