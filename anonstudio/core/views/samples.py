"""Small, complete outcomes for the result panes' previews and tests, built without the method registry.

Each builder anonymizes a small generated data set for real (the table by MST partitioning and local
recoding of each class, the strings by per-group positional sampling, the event log by a real CBMSA run
through the engine pipeline) and returns a :class:`anonstudio.core.jobs.Outcome` whose report has the contract
keys and whose verification was checked here from the output, so the panes show what they would show
after a real run.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from anonstudio import __version__
from anonstudio.core.algorithms import Result
from anonstudio.core.data import EventLog, SequenceSet, Table
from anonstudio.core.io import to_jsonable
from anonstudio.core.jobs import Outcome
from anonstudio.core.metrics import release_risk
from anonstudio.core.views import class_sizes, composition, pseudo_groups

_DISEASES = ("flu", "asthma", "diabetes", "HIV", "hepatitis", "fracture")


def _report(method: str, params: dict, n_in: int, n_out: int, groups: np.ndarray, suppressed: int,
            verification: dict, metrics: dict, unit: str = "groups") -> dict:
    """A report as ``jobs.anonymize`` writes it; ``groups``: the classes (``unit`` "classes": a table release's
    published equivalence classes) or the method's groups (``unit`` "groups") per record, -1 for none."""
    ids, sizes = class_sizes(groups)
    return {
        "anonstudio_version": __version__,
        "algorithm": method,
        "parameters": {"name": method, **params},
        "input": {"path": "", "records": n_in},
        "output": {"path": None, "records": n_out},
        "suppressed": int(suppressed),
        "groups": {
            "count": int(len(sizes)),
            "min_size": int(sizes.min()) if len(sizes) else 0,
            "max_size": int(sizes.max()) if len(sizes) else 0,
            "unit": unit,
        },
        "runtime_s": 0.01,
        "verification": verification,
        "metrics": metrics,
        "notes": [],
    }


def _k_verdict(groups: np.ndarray, k: int) -> dict:
    _, sizes = class_sizes(groups)
    small = int((sizes < k).sum())
    return {
        "passed": bool(small == 0),
        "model": "k-anonymity",
        "details": {"k": k, "classes": int(len(sizes)), "smallest_class": int(sizes.min()) if len(sizes) else 0},
        "problems": [] if small == 0 else [f"{small} classes smaller than k = {k}"],
    }


def _common_prefix(values: list[str]) -> str:
    first = values[0]
    n = 0
    while n < len(first) and all(len(v) > n and v[n] == first[n] for v in values):
        n += 1
    return first[:n]


def sample_table(n: int = 60, seed: int = 7) -> Table:
    """A small patient table: age, zip, sex (quasi-identifiers) and disease (sensitive)."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "id": [f"P{i + 1:03d}" for i in range(n)],
        "age": rng.integers(18, 80, n).astype(str),
        "zip": [f"{z:05d}" for z in rng.choice([13053, 13068, 13092, 14850, 14853, 47677, 47602], n)],
        "sex": rng.choice(["F", "M"], n),
        "disease": rng.choice(list(_DISEASES), n),
    }).astype(object)
    return Table(df).with_roles(["age", "zip", "sex"], ["disease"], ["id"])


def table_outcome(k: int = 3, n: int = 60, seed: int = 7) -> Outcome:
    """MST partitioning (Ramana & Kumari's scheme, simplified distance) and local recoding of each class.

    The distance between two records is |Δage| / 62 + (zip digits differing after the common prefix) / 5
    + [sex differs]; the minimum spanning tree (Kruskal 1956; scipy's ``minimum_spanning_tree`` over the
    complete graph) is cut at its longest edges while both sides keep ≥ k records; each class's ages become their
    range, zips their common prefix padded with ``*``, sexes ``*`` where they differ. ``details`` carries
    ``mst_edges``, ``mst_weights`` and ``removed_edges``.
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components, minimum_spanning_tree

    table = sample_table(n, seed)
    df = table.df
    age = df["age"].astype(int).to_numpy()
    zips = df["zip"].tolist()
    sex = df["sex"].to_numpy()
    prefix_len = np.array([[len(_common_prefix([a, b])) for b in zips] for a in zips])
    dist = np.abs(age[:, None] - age[None, :]) / 62 + (5 - prefix_len) / 5 + (sex[:, None] != sex[None, :])
    # scipy reads a zero as "no edge": every weight is raised by one, which changes no spanning tree's rank
    # (each has n - 1 edges); the weights reported are the distances themselves
    tree = minimum_spanning_tree(np.triu(dist + 1.0, k=1)).tocoo()
    edges = np.column_stack([np.minimum(tree.row, tree.col), np.maximum(tree.row, tree.col)]).astype(np.int64)
    edges = edges[np.lexsort((edges[:, 1], edges[:, 0]))]
    weights = dist[edges[:, 0], edges[:, 1]].astype(float)
    keep = np.ones(len(edges), dtype=bool)

    def parts() -> np.ndarray:
        """The part of the forest of the kept edges each record falls in."""
        kept = edges[keep]
        graph = coo_matrix((np.ones(len(kept)), (kept[:, 0], kept[:, 1])), shape=(n, n))
        return connected_components(graph, directed=False)[1]

    removed: list[int] = []
    for e in np.argsort(-weights, kind="stable"):
        keep[e] = False
        labels = parts()
        if min((labels == labels[edges[e, 0]]).sum(), (labels == labels[edges[e, 1]]).sum()) >= k:
            removed.append(int(e))
        else:
            keep[e] = True
    labels = parts()
    # classes numbered by their smallest record
    first = {lab: i for i, lab in reversed(list(enumerate(labels)))}
    order = {lab: gid for gid, lab in enumerate(sorted(first, key=first.__getitem__))}
    groups = np.array([order[lab] for lab in labels], dtype=np.int64)
    out = df.drop(columns=["id"]).copy()
    for gid in np.unique(groups):
        rows = np.flatnonzero(groups == gid)
        lo, hi = age[rows].min(), age[rows].max()
        out.loc[rows, "age"] = str(lo) if lo == hi else f"{lo}-{hi}"
        members = [zips[r] for r in rows]
        prefix = _common_prefix(members)
        out.loc[rows, "zip"] = prefix + "*" * (5 - len(prefix))
        sexes = set(sex[rows])
        out.loc[rows, "sex"] = sex[rows[0]] if len(sexes) == 1 else "*"
    output = Table(out, roles={"age": table.roles["age"], "zip": table.roles["zip"], "sex": table.roles["sex"],
                               "disease": table.roles["disease"]})
    # the published classes, as the verifier counts them: records with identical generalized cells
    classes = pd.factorize(out[["age", "zip", "sex"]].astype(str).agg("|".join, axis=1))[0].astype(np.int64)
    _, sizes = class_sizes(classes)
    result = Result(output, groups, 0, details={
        "mst_edges": edges, "mst_weights": weights, "removed_edges": np.array(removed, dtype=np.int64),
    })
    verdict = _k_verdict(classes, k)
    metrics = {"DM": int((sizes.astype(np.int64) ** 2).sum()), "CAVG": float(n / (len(sizes) * k))}
    report = _report("mst", {"k": k, "seed": seed}, n, n, classes, 0, verdict, metrics, unit="classes")
    report["risk"] = to_jsonable(release_risk(table, output))  # as jobs.run adds it to a table release's report
    return Outcome(result, verdict, report, table, {})


def sample_strings(n_families: int = 4, per_family: int = 6, seed: int = 3) -> SequenceSet:
    """Protein-like strings: a few random family templates, each member a point-mutated copy with
    small insertions and deletions."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("ACDEFGHIKLMNPQRSTVWY"))
    strings: list[str] = []
    labels: list[str] = []
    for f in range(n_families):
        template = rng.choice(letters, rng.integers(45, 70), p=_aa_profile(rng, f))
        for _ in range(per_family):
            s = list(template)
            for _ in range(rng.integers(3, 9)):
                s[rng.integers(len(s))] = str(rng.choice(letters))
            if rng.random() < 0.5:
                del s[rng.integers(len(s))]
            if rng.random() < 0.5:
                s.insert(rng.integers(len(s)), str(rng.choice(letters)))
            strings.append("".join(s))
            labels.append(f"family{f + 1}")
    ids = [f"sp|Q{i:04d}|PROT{i}_HUMAN" for i in range(len(strings))]
    return SequenceSet.from_strings(strings, ids=ids, alphabet="protein-25", labels=labels)


def _aa_profile(rng: np.random.Generator, f: int) -> np.ndarray:
    p = rng.dirichlet(np.full(20, 2.0 + f))
    return p / p.sum()


def strings_outcome(group_size: int = 6, seed: int = 3) -> Outcome:
    """Condense each family into pseudo-strings: the group's template length is its mean length and
    every position draws a symbol from the group members' symbols at that position (first-order
    statistics of Aggarwal & Yu's condensation, without segments)."""
    data = sample_strings(seed=seed)
    rng = np.random.default_rng(seed + 1)
    n = len(data)
    groups = np.arange(n, dtype=np.int64) // group_size
    pseudo: list[str] = []
    headers: list[str] = []
    for gid in np.unique(groups):
        members = [data.sequence(int(i)) for i in np.flatnonzero(groups == gid)]
        length = int(round(np.mean([len(s) for s in members])))
        for _ in members:
            chars = []
            for p in range(length):
                options = [s[min(p, len(s) - 1)] for s in members]
                chars.append(options[rng.integers(len(options))])
            headers.append(f"pseudo_{len(pseudo) + 1} segment=0 group={gid}")
            pseudo.append("".join(chars))
    output = SequenceSet.from_strings(pseudo, ids=[h.split()[0] for h in headers], headers=headers,
                                      alphabet=data.alphabet)
    output.extra["groups"] = pseudo_groups(output)
    comp = composition(data, output)
    own = [_longest_shared_fragment(data.strings(), [p]) for p in pseudo]
    copies = len(set(pseudo) & set(data.strings()))
    verdict = {
        "passed": copies == 0,
        "model": "pseudo-strings",
        "details": {"k": group_size, "exact_copies": copies},
        "problems": [] if copies == 0 else [f"{copies} pseudo-strings copy an input string"],
    }
    metrics = {
        "CD": comp.cd,
        "group_size": {"min": group_size, "max": group_size, "mean": float(group_size)},
        "exact_copies": copies,
        "longest_shared_substring": {"pseudo_mean": round(float(np.mean(own)), 3), "pseudo_max": int(max(own))},
    }
    report = _report("condensation", {"k": group_size, "seed": seed}, n, len(output), groups, 0, verdict, metrics)
    result = Result(output, groups, 0)
    return Outcome(result, verdict, report, data, {})


def _longest_shared_fragment(originals: list[str], pseudo: list[str]) -> int:
    """Length of the longest substring of a pseudo-string that also occurs in an original string (the
    fragment diagnostic of the condensation report, here by plain set look-ups)."""
    best = 0
    length = 1
    while True:
        seen = {s[i : i + length] for s in originals for i in range(len(s) - length + 1)}
        if not any(p[i : i + length] in seen for p in pseudo for i in range(len(p) - length + 1)):
            return best
        best = length
        length += 1


def sample_events(n: int = 12, seed: int = 5) -> EventLog:
    """Patients with 2–4 visits each: age and zip per visit (quasi-identifiers) and a diagnosis."""
    rng = np.random.default_rng(seed)
    rows = []
    for p in range(n):
        age = int(rng.integers(20, 75))
        zip_ = f"{int(rng.choice([13053, 13068, 14850, 47677])):05d}"
        for v in range(int(rng.integers(2, 5))):
            rows.append({"PID": f"p{p + 1}", "VID": str(v + 1), "age": str(age + v), "zip": zip_,
                         "diagnosis": str(rng.choice(list(_DISEASES)))})
    return EventLog(pd.DataFrame(rows).astype(object), "PID", "VID", ["age", "zip"], "diagnosis")


def events_outcome(k: int = 3, seed: int = 5, n: int = 24) -> Outcome:
    """A real CBMSA run (the engine pipeline, verified) on :func:`sample_events`, with age in 5/10/20-year
    bands and zip masked, HIV highly sensitive at c = 0.5."""
    from anonstudio.core import jobs
    from anonstudio.core.algorithms.cbmsa import CBMSA
    from anonstudio.core.hierarchy import build_hierarchy

    log = sample_events(n=n, seed=seed)
    specs = {"age": {"intervals": [5, 10, 20]}, "zip": {"mask": "*"}}
    hs = {a: build_hierarchy(a, spec, log.df[a].unique()) for a, spec in specs.items()}
    return jobs.anonymize(log, hs, CBMSA(k=k, c=0.5, highly_sensitive=["HIV"]))


def preview_outcome(kind: str = "table", method: str | None = None) -> Outcome:
    """An outcome for a pane preview: the real pipeline (``core.jobs.anonymize``) with ``method`` (or the first
    method this build registers for ``kind``) on the small sample data, else the hand-built sample."""
    from anonstudio.core import algorithms, jobs
    from anonstudio.core.errors import AnonStudioError

    try:
        names = [c.name for c in algorithms.available(kind)]
        name = method if method in names else (names[0] if names and method is None else None)
        if name is None:
            raise LookupError(kind)
        cls = algorithms.get(name)
        if kind == "table":
            from anonstudio.core.hierarchy import build_hierarchy

            sample = sample_table(n=150)
            table = Table(sample.df.drop(columns=sample.identifying),
                          roles={c: r for c, r in sample.roles.items() if c not in sample.identifying})
            specs = {"age": {"intervals": [10, 20, 40]}, "zip": {"mask": "*"}, "sex": {"mask": "*"}}
            hs = {a: build_hierarchy(a, spec, table.df[a].unique()) for a, spec in specs.items()}
            return jobs.anonymize(table, hs, cls(k=3))
        if kind == "fasta":
            return jobs.anonymize(sample_strings(n_families=4, per_family=8), {}, cls(k=4))
        if kind == "events":
            return events_outcome()
        raise LookupError(kind)
    except (LookupError, AnonStudioError, ImportError):
        if kind == "events":
            raise
        return {"table": table_outcome, "fasta": strings_outcome}[kind]()
