"""``anonstudio experiment mst-adult`` on a small generated Adult-like table: CSV columns and PNGs."""

from __future__ import annotations

import numpy as np
import pandas as pd

from anonstudio.cli.main import main
from anonstudio.core.experiments import EXPERIMENTS
from anonstudio.core.experiments._mst_adult import PAPER_QIS

HIERARCHIES = {
    "age": [[str(a), f"{a // 10 * 10}-{a // 10 * 10 + 9}", f"{a // 20 * 20}-{a // 20 * 20 + 19}", "*"] for a in range(17, 91)],
    "workclass": [["Private", "Non-Government", "*"], ["Self-emp", "Non-Government", "*"],
                  ["Federal-gov", "Government", "*"], ["State-gov", "Government", "*"]],
    "sex": [["Male", "*"], ["Female", "*"]],
    "education": [["Bachelors", "Higher", "*"], ["Masters", "Higher", "*"], ["HS-grad", "Secondary", "*"],
                  ["11th", "Secondary", "*"]],
    "occupation": [["Sales", "Nontechnical", "*"], ["Tech-support", "Technical", "*"],
                   ["Craft-repair", "Technical", "*"], ["Adm-clerical", "Other", "*"]],
}


def _write_data(folder, n=240, seed=0):
    rng = np.random.default_rng(seed)
    cols = {a: [rows[i][0] for i in rng.integers(0, len(rows), n)] for a, rows in HIERARCHIES.items()}
    cols["salary-class"] = rng.choice(["<=50K", ">50K"], n).tolist()
    pd.DataFrame(cols).to_csv(folder / "adult.csv", sep=";", index=False)
    (folder / "hierarchies").mkdir()
    for a, rows in HIERARCHIES.items():
        (folder / "hierarchies" / f"adult_hierarchy_{a}.csv").write_text("\n".join(";".join(r) for r in rows) + "\n")
    return folder / "adult.csv"


def test_experiment_writes_results_and_figures(tmp_path, capsys):
    assert "mst-adult" in EXPERIMENTS
    csv = _write_data(tmp_path)
    out = tmp_path / "out"
    code = main(["experiment", "mst-adult", "--out", str(out), "--data", str(csv), "--k-values", "3,5",
                 "--qi-sizes", "1,5", "--quiet"])
    assert code == 0
    frame = pd.read_csv(out / "results.csv")
    assert {"qi_size", "k", "method", "GCP", "DM", "CAVG", "classes", "suppressed", "verified",
            "runtime_s"} <= set(frame.columns)
    assert len(frame) == 2 * 2 * 4
    assert set(frame["method"]) == {"mst", "mst-k-aware", "mondrian", "kmember"}
    assert frame["verified"].all() and (frame["GCP"].between(0, 1)).all()
    assert (frame["DM"] >= 240).all()
    assert frame.loc[frame["qi_size"] == 5, "quasi_identifiers"].iloc[0] == " ".join(PAPER_QIS)
    for name in ("gcp.png", "dm.png", "cavg.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert str(out / "results.csv") in capsys.readouterr().out


def test_experiment_bad_options_exit_2(tmp_path, capsys):
    csv = _write_data(tmp_path)
    assert main(["experiment", "mst-adult", "--out", str(tmp_path / "o"), "--data", str(csv), "--k-values", "3,x"]) == 2
    assert "k_values" in capsys.readouterr().err
    assert main(["experiment", "mst-adult", "--out", str(tmp_path / "o"), "--data", str(tmp_path / "none.csv")]) == 2
    assert "none.csv" in capsys.readouterr().err


def test_without_shared_data_the_error_asks_for_data(tmp_path, capsys, monkeypatch):
    from anonstudio.core.experiments import _mst_adult

    monkeypatch.setattr(_mst_adult, "default_data_dir", lambda: None)
    assert main(["experiment", "mst-adult", "--out", str(tmp_path / "o")]) == 2
    assert "--data" in capsys.readouterr().err
