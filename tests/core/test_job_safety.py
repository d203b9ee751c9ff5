"""Issue 11, items 1 and 2: a column holds one role, and a run never writes over what it reads.

Each case failed on 05ef630: a QI also listed as sensitive was published exactly with "verification
passed", and outputs or reports could overwrite the input, a hierarchy or the job file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from anonstudio.core import io, jobs
from anonstudio.core.algorithms import get
from anonstudio.core.errors import InputError, JobError

ROWS = "Gender;Age;Zip;Disease\n" + "".join(
    f"{g};{a};{z};{d}\n" for g, a, z, d in
    [("M", 30, 12345, "Flu"), ("F", 31, 12346, "HIV"), ("M", 30, 12345, "Cold"), ("F", 31, 12346, "Flu"),
     ("M", 44, 12399, "Flu"), ("F", 45, 12398, "Cold")]
)


def _job(tmp_path: Path, *, input_=None, output=None, extra="") -> Path:
    (tmp_path / "t.csv").write_text(ROWS)
    (tmp_path / "zip.csv").write_text("".join(f"{z};{str(z)[:3]}**;*\n" for z in (12345, 12346, 12398, 12399)))
    input_ = input_ or 'quasi_identifiers = ["Gender", "Age", "Zip"]\nsensitive = ["Disease"]'
    output = output or 'path = "out.csv"\nreport = "out.json"'
    job = tmp_path / "job.toml"
    job.write_text(
        f'[input]\npath = "t.csv"\n{input_}\n'
        '[hierarchies]\nGender = { groups = [{ "*" = ["M", "F"] }] }\nZip = "zip.csv"\n'
        f'[algorithm]\nname = "mondrian"\nk = 2\n{extra}\n[output]\n{output}\n'
    )
    return job


def _cli(*args, cwd) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    return subprocess.run([sys.executable, "-m", "anonstudio", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


@pytest.mark.parametrize(
    ("roles", "fragment"),
    [
        ('quasi_identifiers = ["Gender", "Age", "Zip"]\nsensitive = ["Disease", "Age"]',
         "column 'Age' is named in two roles, a quasi-identifier (input.quasi_identifiers) and sensitive (input.sensitive)"),
        ('quasi_identifiers = ["Gender", "Age", "Zip"]\nidentifying = ["Zip"]',
         "column 'Zip' is named in two roles, a quasi-identifier (input.quasi_identifiers) and identifying"),
        ('quasi_identifiers = ["Gender", "Age"]\nsensitive = ["Disease"]\nidentifying = ["Disease"]',
         "column 'Disease' is named in two roles, sensitive (input.sensitive) and identifying (input.identifying)"),
        ('quasi_identifiers = ["Gender", "Age", "Gender"]', "column 'Gender' is listed twice in input.quasi_identifiers"),
    ],
)
def test_a_column_in_two_roles_is_exit_2_naming_the_column_and_both_roles(tmp_path, roles, fragment):
    job = _job(tmp_path, input_=roles)
    before = _snapshot(tmp_path)
    done = _cli("run", job, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert fragment in done.stderr and "job.toml" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert _snapshot(tmp_path) == before  # nothing written, nothing changed


def test_table_with_roles_refuses_two_roles_for_one_column(tmp_path):
    (tmp_path / "t.csv").write_text(ROWS)
    table = io.read_table(tmp_path / "t.csv")
    with pytest.raises(InputError, match="column 'Age' is given two roles, quasi-identifying and sensitive"):
        table.with_roles(["Gender", "Age"], ["Age"])


def test_the_verifier_checks_the_quasi_identifiers_the_job_declares(tmp_path):
    """If the data container lost a QI role on the way (as the last-role-wins bug did), the verifier still
    checks the declared set: an output that publishes Age exactly fails."""
    from dataclasses import replace

    from anonstudio.core import privacy
    from anonstudio.core.data import Role

    job = jobs.load_job(_job(tmp_path))
    data = jobs.load_data(job.input)
    hierarchies, _ = jobs.load_hierarchies(job.hierarchies, data)
    roles = dict(data.roles)
    roles["Age"] = Role.SENSITIVE
    lost = replace(data, roles=roles, types=dict(data.types))
    algorithm = get("mondrian")(k=2)
    result = algorithm.run(lost, {a: h for a, h in hierarchies.items() if a != "Age"})
    assert result.output.df["Age"].tolist() == lost.df["Age"].tolist()  # Age published exactly
    as_data_says = privacy.verify_output(algorithm.privacy_model(), lost, result.output, hierarchies)
    as_job_says = privacy.verify_output(jobs.declared_model(algorithm, lost, job.input), lost, result.output, hierarchies)
    assert as_data_says.passed  # what 05ef630 reported
    assert as_job_says.details["quasi_identifiers"] == ["Gender", "Age", "Zip"]
    assert not as_job_says.passed


@pytest.mark.parametrize(
    ("output", "fragment"),
    [
        ('path = "sub/../t.csv"', "output.path (t.csv) is the same file as input.path"),
        ('path = "out.csv"\nreport = "t.csv"', "output.report (t.csv) is the same file as input.path"),
        ('path = "out.csv"\nreport = "zip.csv"', "output.report (zip.csv) is the same file as hierarchies.Zip"),
        ('path = "out.csv"\nreport = "job.toml"', "output.report (job.toml) is the same file as the job file"),
        ('path = "out.csv"\nreport = "./out.csv"', "output.report and output.path are the same file (out.csv)"),
        ('path = "link.csv"', "output.path (link.csv) is the same file as input.path"),
    ],
)
def test_outputs_never_overwrite_what_the_job_reads(tmp_path, output, fragment):
    job = _job(tmp_path, output=output)
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.csv").symlink_to(tmp_path / "t.csv")
    before = _snapshot(tmp_path)
    done = _cli("run", job, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert fragment in done.stderr
    assert _snapshot(tmp_path) == before


def test_an_absolute_dotdot_output_path_is_compared_resolved(tmp_path):
    job = _job(tmp_path, output=f'path = "{tmp_path}/sub/../t.csv"')
    (tmp_path / "sub").mkdir()
    with pytest.raises(JobError, match="is the same file as input.path"):
        jobs.load_job(job)


def test_write_outputs_refuses_a_side_output_over_an_input(tmp_path):
    job = jobs.load_job(_job(tmp_path))
    outcome = jobs.run_job(job)
    outcome.result.side_outputs["sensitive"] = outcome.result.output.df.iloc[:1]
    target = tmp_path / "t.csv"  # a side output would be t.sensitive.csv: put the input there
    (tmp_path / "t.sensitive.csv").write_text("x\n")
    reads = {"input.path": tmp_path / "t.sensitive.csv"}
    before = target.read_bytes()
    with pytest.raises(JobError, match="the same file as input.path"):
        jobs.write_outputs(outcome, target, None, reads=reads)
    assert target.read_bytes() == before


def test_non_qi_cells_are_published_byte_for_byte_and_the_spelling_is_checked(tmp_path):
    """Issue 11 items 11 and 15: '?' and 'NA' in a non-QI column come out as '?' and 'NA' (on 05ef630:
    empty), and an output that turns an empty cell into '?' fails verification."""
    from anonstudio.cli.main import main

    (tmp_path / "t.csv").write_text("sex;age;note;disease\nMale;30;?;Flu\nFemale;31;NA;?\nMale;30;;Cold\n"
                                    "Female;31;x;Flu\n", encoding="utf-8")
    (tmp_path / "sex.csv").write_text("Male;*\nFemale;*\n", encoding="utf-8")
    (tmp_path / "job.toml").write_text('[input]\npath = "t.csv"\nquasi_identifiers = ["sex", "age"]\n'
                                       'sensitive = ["disease"]\n[hierarchies]\nsex = "sex.csv"\n'
                                       '[algorithm]\nname = "mondrian"\nk = 2\n[output]\npath = "out.csv"\n')
    assert main(["run", str(tmp_path / "job.toml"), "--quiet"]) == 0
    out = (tmp_path / "out.csv").read_text().splitlines()
    assert [line.split(";", 2)[2] for line in out[1:]] == ["?;Flu", "NA;?", ";Cold", "x;Flu"]
    assert main(["verify", str(tmp_path / "job.toml")]) == 0
    out[3] = out[3].replace(";;Cold", ";?;Cold")
    (tmp_path / "out.csv").write_text("\n".join(out) + "\n")
    assert main(["verify", str(tmp_path / "job.toml")]) == 1


@pytest.mark.parametrize("kind", ["distinct", "entropy"])
def test_l_kind_is_honoured_by_run_and_verify_and_missing_values_are_not_values(tmp_path, kind):
    """Issue 11 item 15: the job's l_kind reaches the method and the verifier alike; a class whose
    sensitive values are all missing passes l = 1 and fails l = 2 under both kinds."""
    from anonstudio.core.privacy import verify_l_diversity

    frame = __import__("pandas").DataFrame({"q": ["a", "a", "b", "b"], "s": [None, None, "x", "y"]}, dtype="string")
    assert verify_l_diversity(frame, ["q"], "s", 1, kind=kind).passed
    two = verify_l_diversity(frame, ["q"], "s", 2, kind=kind)
    assert not two.passed and two.details["violations"] == 1
    (tmp_path / "t.csv").write_text(ROWS)
    job = _job(tmp_path, input_='quasi_identifiers = ["Gender", "Age"]\nsensitive = ["Disease"]',
               extra=f'l = 2\nl_kind = "{kind}"')
    outcome = jobs.run_job(jobs.load_job(job))
    assert outcome.report["verification"]["model"] == f"k-anonymity + {kind} l-diversity"
    assert jobs.verify_job(jobs.load_job(job)).model == f"k-anonymity + {kind} l-diversity"


def _events_job(tmp_path: Path, identifying: str) -> Path:
    import shutil

    source = Path(__file__).resolve().parents[1] / "bad_inputs" / "cbmsa-k-one"
    for f in source.iterdir():
        shutil.copy(f, tmp_path / f.name)
    lines = (tmp_path / "visits.csv").read_text().splitlines()
    lines = [lines[0] + ",Name"] + [f"{line},Person {line.split(',')[0]}" for line in lines[1:]]
    (tmp_path / "visits.csv").write_text("\n".join(lines) + "\n")
    job = (tmp_path / "job.toml").read_text().replace("k = 1", "k = 2")
    (tmp_path / "job.toml").write_text(job.replace('sensitive = ["Disease"]', f'sensitive = ["Disease"]\n{identifying}'))
    return tmp_path / "job.toml"


def test_an_event_log_job_drops_its_identifying_columns_and_verify_refuses_them(tmp_path):
    """An events job's input.identifying was ignored: CBMSA published every patient's name beside the
    generalized events and the verifier said "passed" (it compared the names with the input's, equal)."""
    from anonstudio.cli.main import main

    job = _events_job(tmp_path, 'identifying = ["Name"]')
    outcome = jobs.run_job(jobs.load_job(job))
    assert outcome.verification.passed
    out = (tmp_path / "out.csv").read_text()
    assert "Name" not in out.splitlines()[0] and "Person" not in out
    assert main(["verify", str(job)]) == 0
    # an output that still publishes the names fails verification
    rows = out.splitlines()
    leaked = [rows[0] + ",Name"] + [f"{r},Person {r.split(',')[0]}" for r in rows[1:]]
    (tmp_path / "out.csv").write_text("\n".join(leaked) + "\n")
    assert main(["verify", str(job)]) == 1


def test_an_event_log_identifying_column_that_does_not_exist_is_exit_2(tmp_path):
    job = _events_job(tmp_path, 'identifying = ["Nmae"]')
    done = _cli("run", job, cwd=tmp_path)
    assert done.returncode == 2 and "'Nmae'" in done.stderr and "visits.csv" in done.stderr, done.stderr
    assert not (tmp_path / "out.csv").exists()


def test_verify_reads_the_output_with_the_missing_tokens_the_job_names(tmp_path):
    """`anonstudio verify` read the output with the default missing tokens, not the job's: with
    `missing = ["-"]` a class holding 'HIV' and '-' (a missing value) counted two values and passed distinct
    2-diversity, though `run` judges the same cells as one value and refuses them."""
    from anonstudio.cli.main import main
    from anonstudio.core import privacy

    (tmp_path / "t.csv").write_text("sex;age;disease\nM;30;HIV\nM;30;-\nF;31;Flu\nF;31;Cold\n", encoding="utf-8")
    (tmp_path / "sex.csv").write_text("M;*\nF;*\n", encoding="utf-8")
    (tmp_path / "job.toml").write_text(
        '[input]\npath = "t.csv"\nquasi_identifiers = ["sex", "age"]\nsensitive = ["disease"]\nmissing = ["-"]\n'
        '[hierarchies]\nsex = "sex.csv"\n[algorithm]\nname = "mondrian"\nk = 2\nl = 2\nl_kind = "distinct"\n'
        '[output]\npath = "out.csv"\n', encoding="utf-8")
    job = jobs.load_job(tmp_path / "job.toml")
    data = jobs.load_data(job.input)
    hierarchies, _ = jobs.load_hierarchies(job.hierarchies, data)
    spec = jobs.declared_model(job.make_algorithm(), data, job.input, job.max_suppression)
    assert not privacy.verify_output(spec, data, data, hierarchies).passed  # in memory: refused
    assert not privacy.verify_output(spec, data, data.publish_frame(), hierarchies).passed  # as written: too
    (tmp_path / "out.csv").write_bytes((tmp_path / "t.csv").read_bytes())  # the input published as it is
    assert not jobs.verify_job(job).passed
    assert main(["verify", str(tmp_path / "job.toml")]) == 1
    assert main(["run", str(tmp_path / "job.toml"), "--quiet"]) == 0  # what run writes verifies
    assert main(["verify", str(tmp_path / "job.toml")]) == 0
