"""A release is the canonical form of what was verified, or it is refused (issue 28).

The canonical form must be a fixed point of read → write for every content a method can publish (else genuine
releases would be refused), and every departure from it must fail ``verify_release`` naming the first byte that
differs. The covert channels an attacker used are corpus cases (``tests/bad_inputs/verify-covert-*``, built by
``tests/bad_inputs/_make_covert_channels.py``); here the rule itself is tested.
"""

from __future__ import annotations

import string

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonstudio.core import jobs
from anonstudio.core.data import Table
from anonstudio.core.io import read_table
from anonstudio.core.io._canonical import fasta_bytes, first_difference, table_bytes
from anonstudio.core.privacy import verify_release
from anonstudio.core.privacy._canonical import canonical_table_frame

_CELL_CHARS = string.ascii_letters + string.digits + " ;,\t\"'*-_.?\r\néüß€"


def _cells(alphabet: str = _CELL_CHARS):
    return st.text(alphabet=alphabet, min_size=0, max_size=8)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), delimiter=st.sampled_from([";", ",", "\t"]),
       encoding=st.sampled_from(["utf-8", "utf-8-sig", "latin-1"]))
def test_the_canonical_form_is_a_fixed_point_of_read_and_write(tmp_path, data, delimiter, encoding):
    alphabet = _CELL_CHARS if encoding != "latin-1" else _CELL_CHARS.replace("€", "")
    ncols = data.draw(st.integers(1, 4))
    # header names as a reader accepts them in an input (a name is not what a release can vary)
    names = data.draw(st.lists(st.text(alphabet=string.ascii_letters + "-_", min_size=1, max_size=6),
                               min_size=ncols, max_size=ncols, unique=True))
    nrows = data.draw(st.integers(1, 6))
    rows = [[data.draw(_cells(alphabet)) for _ in range(ncols)] for _ in range(nrows)]
    frame = pd.DataFrame(rows, columns=names, dtype=object)
    path = tmp_path / "t.csv"
    first = table_bytes(frame, delimiter=delimiter, encoding=encoding)
    path.write_bytes(first)
    parsed = read_table(path, delimiter=delimiter, encoding=encoding)
    again = table_bytes(canonical_table_frame(parsed), delimiter=delimiter, encoding=encoding)
    assert first_difference(again, first) is None


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seqs=st.lists(st.text(alphabet="ACDEFGHIKLMNPQRSTVWY", min_size=1, max_size=130), min_size=1, max_size=5))
def test_fasta_bytes_read_back_to_the_same_bytes(tmp_path, seqs):
    from anonstudio.core.io import read_fasta

    heads = [f"pseudo_{i + 1} segment=0 group={i // 2}" for i in range(len(seqs))]
    data = fasta_bytes(heads, seqs)
    path = tmp_path / "o.fasta"
    path.write_bytes(data)
    back = read_fasta(path, alphabet="as-found")
    assert fasta_bytes(back.headers, back.strings()) == data


def test_first_difference_names_line_byte_and_both_lines():
    assert first_difference(b"a;b\n1;2\n", b"a;b\n1;2\n") is None
    pos, line, column, got, want = first_difference(b"a;b\n\"1\";2\n", b"a;b\n1;2\n")
    assert (pos, line, column) == (4, 2, 1) and got == '"1";2\\n' and want == "1;2\\n"
    assert first_difference(b"a\n", b"a\nb\n")[1:3] == (2, 1)  # a missing last line
    assert first_difference(b"a\n\n", b"a\n")[3] == "\\n"  # a trailing blank line


_ROWS = [("Male", "39", "Sales"), ("Male", "38", "Sales"), ("Female", "41", "Tech"), ("Female", "44", "Tech"),
         ("Male", "32", "Sales"), ("Female", "47", "Adm"), ("Male", "35", "Adm"), ("Female", "49", "Sales")]


def _job(tmp_path, *, out="", alg='name = "mondrian"\nk = 2', suffix=".csv"):
    (tmp_path / "t.csv").write_text("sex;age;occupation\n" + "".join(";".join(r) + "\n" for r in _ROWS))
    (tmp_path / "sex.csv").write_text("Male;*\nFemale;*\n")
    (tmp_path / "job.toml").write_text(
        f'[input]\npath = "t.csv"\nquasi_identifiers = ["sex", "age"]\nsensitive = ["occupation"]\n'
        f'[hierarchies]\nsex = "sex.csv"\nage = {{ intervals = [10] }}\n[algorithm]\n{alg}\n'
        f'[output]\npath = "out{suffix}"\nreport = "out.json"\n{out}\n')
    return tmp_path / "job.toml"


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_genuine_release_verifies_byte_for_byte_and_one_changed_byte_fails(tmp_path, suffix):
    job = _job(tmp_path, suffix=suffix)
    jobs.run_job(jobs.load_job(job))
    verdict = jobs.verify_job(jobs.load_job(job))
    assert verdict.passed and verdict.details["canonical_form"] is True
    out = tmp_path / f"out{suffix}"
    data = out.read_bytes()
    if suffix == ".csv":
        out.write_bytes(data.replace(b"\n", b"\r\n", 2))  # one line ending: the model still holds
        verdict = jobs.verify_job(jobs.load_job(job))
        assert not verdict.passed
        assert any(p.startswith("out.csv line 1, byte 19 (offset 18) is not in the canonical form")
                   for p in verdict.problems)
    else:
        import pyarrow.parquet as pq

        table = pq.read_table(out)
        pq.write_table(table, out)  # the same cells, written by pyarrow's defaults (schema metadata kept)
        verdict = jobs.verify_job(jobs.load_job(job))
        assert not verdict.passed and any("carries key-value metadata (ARROW:schema)" in p for p in verdict.problems)


def test_the_run_gate_refuses_what_would_be_written_unlike_what_was_verified(tmp_path, monkeypatch):
    """The gate re-reads the staged files: a writer that departed from the canonical form publishes nothing."""
    from anonstudio.core.io import _table

    job = _job(tmp_path)
    real = _table.table_bytes

    def crlf(frame, path, **kw):  # a writer gone wrong: CRLF line ends
        return real(frame, path, **kw).replace(b"\n", b"\r\n")

    monkeypatch.setattr("anonstudio.core.io._table.table_bytes", crlf)
    from anonstudio.core.errors import PrivacyError

    with pytest.raises(PrivacyError, match="failed verification as written.*out.csv line 1, byte 19"):
        jobs.run_job(jobs.load_job(job))
    assert not (tmp_path / "out.csv").exists() and not (tmp_path / "out.json").exists()
    assert not list(tmp_path.glob(".*part*"))


def test_shuffled_event_logs_publish_sequences_in_the_seeds_order_and_verify(tmp_path):
    rows = []
    for pid in range(1, 13):
        for vid in range(1, 3):
            rows.append(f"{pid},{vid},{2000 + pid % 2},{'Flu' if pid % 3 else 'HIV'}")
    (tmp_path / "e.csv").write_text("PID,VID,Yr,Disease\n" + "\n".join(rows) + "\n")
    job = tmp_path / "job.toml"
    job.write_text('[input]\npath = "e.csv"\nformat = "events"\nsequence_id = "PID"\nevent_order = "VID"\n'
                   'quasi_identifiers = ["Yr"]\nsensitive = ["Disease"]\n[hierarchies]\nYr = { intervals = [2] }\n'
                   '[algorithm]\nname = "cbmsa"\nk = 2\nc = 0.9\nhighly_sensitive = ["HIV"]\n'
                   '[output]\npath = "out.csv"\nshuffle_rows = true\n')  # the order from the release key
    outcome = jobs.run_job(jobs.load_job(job))
    assert not any("sequences keep the input's order" in w for w in outcome.report["warnings"])
    published = [line.split(",")[0] for line in (tmp_path / "out.csv").read_text().splitlines()[1:]]
    order = list(dict.fromkeys(published))
    assert order == [str(i) for i in range(1, len(order) + 1)]  # ids 1..n as published (issue 39 item 7)
    assert all(published[i] == published[i + 1] for i in range(0, len(published), 2))  # events stay together
    from anonstudio.core.io import read_output_like
    from anonstudio.core.privacy._canonical import release_of_sequences

    loaded = jobs.load_job(job)
    data = jobs.load_data(loaded.input)
    hierarchies, _ = jobs.load_hierarchies(loaded.hierarchies, data, source=loaded.file, required=True)
    from anonstudio.core.keys import load_key
    from anonstudio.core.rederive import shuffle_seed_for

    seed = shuffle_seed_for(loaded, loaded.make_algorithm(), data, hierarchies, load_key(None))
    assert seed is not None  # the order drawn from the release key
    back = release_of_sequences(data, read_output_like(data, tmp_path / "out.csv"), hierarchies, seed)
    inputs = list(dict.fromkeys(back.df["PID"].tolist()))
    assert sorted(inputs, key=int) == [str(i) for i in range(1, 13)] and inputs != sorted(inputs, key=int)  # shuffled
    assert jobs.verify_job(jobs.load_job(job)).passed
    # the same release with two sequences swapped is not the seed's order
    lines = (tmp_path / "out.csv").read_text().splitlines()
    swapped = [lines[0], *lines[3:5], *lines[1:3], *lines[5:]]
    (tmp_path / "out.csv").write_text("\n".join(swapped) + "\n")
    verdict = jobs.verify_job(jobs.load_job(job))
    # refused: named as out of the key's order, or (when the swapped pair's events are alike) as bytes that are not
    # the canonical form of the release — which depends on the key this test run made
    assert not verdict.passed and any("the order drawn for this release" in p or "canonical" in p or "one form" in p
                                      for p in verdict.problems), verdict.problems


def test_anatomy_refuses_columns_named_like_what_it_adds(tmp_path):
    from anonstudio.core.errors import ParameterError

    (tmp_path / "t.csv").write_text("group;age;count\n" + "".join(f"g{i % 3};{30 + i};v{i % 4}\n" for i in range(12)))
    for sensitive, identifying, match in (("count", "group", "like a column of Anatomy's sensitive table"),
                                          ("count", "", "has the name of the group id column Anatomy adds")):
        qis = ["age"]
        (tmp_path / "job.toml").write_text(
            f'[input]\npath = "t.csv"\nquasi_identifiers = {qis!r}\nsensitive = ["{sensitive}"]\n'.replace("'", '"')
            + (f'identifying = ["{identifying}"]\n' if identifying else "")
            + '[algorithm]\nname = "anatomy"\nl = 2\n[output]\npath = "out.csv"\n')
        with pytest.raises(ParameterError, match=match):
            jobs.run_job(jobs.load_job(tmp_path / "job.toml"))


def test_unroled_table_content_digest_ignores_row_order_and_layout(tmp_path):
    from anonstudio.core.keys import create_key
    from anonstudio.core.release_log import keyed_digest

    key, other = create_key(tmp_path / "k" / "a.key"), create_key(tmp_path / "k" / "b.key")
    a = tmp_path / "a.csv"
    b = tmp_path / "b.csv"
    a.write_text("x;y\n1;2\n3;4\n")
    b.write_bytes(b'x;y\r\n"3";4\r\n1;2\r\n\r\n')
    assert keyed_digest(read_table(a), key) == keyed_digest(read_table(b), key)
    assert keyed_digest(read_table(a), key) != keyed_digest(read_table(a), other)  # keyed: no guess is checked
    b.write_text("x;y\n1;2\n3;5\n")
    assert keyed_digest(read_table(a), key) != keyed_digest(read_table(b), key)


def test_a_release_with_another_hierarchy_of_the_same_input_is_warned_about(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    job = _job(tmp_path)
    jobs.run_job(jobs.load_job(job))
    text = job.read_text().replace("intervals = [10]", "intervals = [5, 10]")
    job.write_text(text)
    again = jobs.run_job(jobs.load_job(job))
    assert any("published before with other settings" in w for w in again.report["warnings"])


def test_a_refused_run_is_not_logged_as_a_release(tmp_path, monkeypatch):
    from anonstudio.core.errors import PrivacyError
    from anonstudio.core.release_log import release_log_path

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    job = _job(tmp_path, alg='name = "mondrian"\nk = 2\nl = 4\nl_kind = "distinct"')
    with pytest.raises(PrivacyError):
        jobs.run_job(jobs.load_job(job))
    assert not release_log_path().exists()


def test_report_paths_name_files_without_folders(tmp_path):
    import json

    deep = tmp_path / "home" / "alice" / "hiv_clinic_2024"
    deep.mkdir(parents=True)
    job = _job(deep, out="")
    text = job.read_text().replace('path = "out.csv"', f'path = "{tmp_path / "pub" / "out.csv"}"')
    job.write_text(text)
    jobs.run_job(jobs.load_job(job))
    report = (deep / "out.json").read_text()
    assert "alice" not in report and "hiv_clinic" not in report
    rep = json.loads(report)
    assert rep["input"]["path"] == "t.csv" and rep["output"]["path"] == "out.csv"


def test_tables_keep_untouched_cells_spelled_as_the_input(tmp_path):
    """Every table method's genuine release passes the whitelist: missing cells spelled as read."""
    rows = [r if i != 3 else (r[0], r[1], "?") for i, r in enumerate(_ROWS)]
    (tmp_path / "t.csv").write_text("sex;age;occupation\n" + "".join(";".join(r) + "\n" for r in rows))
    job = _job(tmp_path)
    (tmp_path / "t.csv").write_text("sex;age;occupation\n" + "".join(";".join(r) + "\n" for r in rows))
    jobs.run_job(jobs.load_job(job))
    assert (tmp_path / "out.csv").read_text().splitlines()[4].endswith(";?")
    assert jobs.verify_job(jobs.load_job(job)).passed


def test_canonical_table_frame_puts_columns_in_the_release_order():
    t = Table(pd.DataFrame({"b": ["1"], "a": ["2"]}, dtype=object))
    assert list(canonical_table_frame(t, ["a", "b"]).columns) == ["a", "b"]
    assert list(canonical_table_frame(t, ["a", "c"]).columns) == ["b", "a"]  # other columns: left as they are
    assert np.array_equal(canonical_table_frame(t).to_numpy(), t.df.to_numpy())


def test_verify_release_on_an_unreadable_output_fails_naming_it(tmp_path):
    job = _job(tmp_path)
    jobs.run_job(jobs.load_job(job))
    (tmp_path / "out.csv").write_bytes(b"sex;age;occupation\n\xff\xfe;1;2\n")
    loaded = jobs.load_job(job)
    data = jobs.load_data(loaded.input)
    verdict = verify_release({"model": "k-anonymity", "k": 2}, data, tmp_path / "out.csv")
    assert not verdict.passed and verdict.problems


def test_anatomy_publishes_shuffled_rows_with_groups_numbered_as_published(tmp_path):
    """Issue 39 item 11: with output.shuffle_rows Anatomy's run always failed its own gate (group ids kept the
    input's numbering). Group ids are numbered again down the shuffled rows, the ST follows, and every group's
    published values are its records' own; the order (and Anatomy's picks) come from the release key."""
    job = _job(tmp_path, alg='name = "anatomy"\nl = 2', out="shuffle_rows = true\n")
    jobs.run_job(jobs.load_job(job))
    qit = pd.read_csv(tmp_path / "out.csv", sep=";", dtype=str)
    st = pd.read_csv(tmp_path / "out.sensitive.csv", sep=";", dtype=str)
    ids = qit["group"].astype(int).tolist()
    assert list(dict.fromkeys(ids)) == list(range(1, max(ids) + 1))  # 1..G in order of first appearance
    source = pd.read_csv(tmp_path / "t.csv", sep=";", dtype=str)
    assert list(qit.columns) == ["sex", "age", "group"]
    # the published rows are the input's rows in another order: pair them back on (sex, age), unique here
    assert not source.duplicated(["sex", "age"]).any()
    paired = qit.merge(source, on=["sex", "age"], how="left", validate="one_to_one")
    assert paired["occupation"].notna().all()
    assert qit["age"].tolist() != source["age"].tolist()  # the rows were shuffled
    want = (paired.groupby(["group", "occupation"]).size().rename("count").reset_index()
            .assign(count=lambda f: f["count"].astype(str)))
    assert sorted(map(tuple, st.to_numpy().tolist())) == sorted(map(tuple, want.to_numpy().tolist()))
    assert jobs.verify_job(jobs.load_job(job)).passed
    # two groups' ids swapped in the QIT: no longer numbered in order of first appearance
    text = (tmp_path / "out.csv").read_text().replace(";1\n", ";x\n").replace(";2\n", ";1\n").replace(";x\n", ";2\n")
    (tmp_path / "out.csv").write_text(text)
    assert not jobs.verify_job(jobs.load_job(job)).passed
