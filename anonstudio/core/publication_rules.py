"""Sentences of the publication rules that both the job reader and the publication enforce (one wording)."""

#: a method whose guarantee needs a random row order (``Algorithm.random_row_order``), asked to keep the input's
SHUFFLE_REQUIRED = ("method '{method}' publishes its rows only in a random order: set output.shuffle_rows = true "
                    "(in the input's order a row's position names its record, which its guarantee does not allow; "
                    "add output.shuffle_seed, random and at least 2^48, for 'anonstudio verify' to re-check it)")


# ---------------------------------------------------------------------------------------------------------------
# Rule parameters within safe bounds (issue 39 item 5). Some parameters loosen a rule the release is checked
# against, or switch it off: condensation with order = 8, max_fragment = 1000000 and near_copy_identity = 1.0 ran
# and verified with no warning while 36 of 1,000 human proteins had a pseudo-string of their own group at ≥ 0.9
# identity over 60 residues. Each such parameter has a safe range: beyond it the run's verdict is "NOT safe to
# publish" naming the rule (a release warning the user may knowingly accept); beyond a hard bound, where the rule
# no longer checks anything, the run is refused (exit 2). The table in docs/guarantees.md, "Rule parameters and their safe
# ranges" is this table.


class SafeRange:
    """``parameter`` of ``method`` loosens ``rule``: safe from ``safe_low`` to ``safe_high`` (inclusive; ``None``:
    unbounded); beyond ``refuse_low``/``refuse_high`` (exclusive) the rule is off and the run is refused."""

    def __init__(self, method: str, parameter: str, rule: str, *, safe_low: float | None = None,
                 safe_high: float | None = None, refuse_low: float | None = None, refuse_high: float | None = None,
                 why: str = "") -> None:
        self.method, self.parameter, self.rule, self.why = method, parameter, rule, why
        self.safe_low, self.safe_high, self.refuse_low, self.refuse_high = safe_low, safe_high, refuse_low, refuse_high

    def shown(self) -> str:
        """``'2 to 20'``, ``'at most 0.9'``, ``'at least 0.8'``."""
        if self.safe_low is not None and self.safe_high is not None:
            return f"{_num(self.safe_low)} to {_num(self.safe_high)}"
        return f"at most {_num(self.safe_high)}" if self.safe_high is not None else f"at least {_num(self.safe_low)}"

    def refused(self, value: float) -> bool:
        return (self.refuse_high is not None and value > self.refuse_high) or \
            (self.refuse_low is not None and value < self.refuse_low)

    def loosened(self, value: float) -> bool:
        return (self.safe_high is not None and value > self.safe_high) or \
            (self.safe_low is not None and value < self.safe_low)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


#: The parameters that loosen a release rule, with their safe ranges (the defaults are inside each).
SAFE_RANGES: tuple[SafeRange, ...] = (
    SafeRange("condensation", "max_fragment", "the fragment rule", safe_high=20, refuse_high=64,
              why="a pseudo-string may share a run of max_fragment + 1 symbols with fewer than k inputs; beyond 64 "
                  "a whole near-copy window (60 symbols) may be an input's own stretch, so the rule checks nothing "
                  "the near-copy rule would not"),
    SafeRange("condensation", "near_copy_identity", "the near-copy rule", safe_high=0.9, refuse_high=0.95,
              why="windows closer than this identity to a stretch held by fewer than k inputs are refused; at 0.95 "
                  "a 60-symbol window 3 edits from an input already passes, and at 1.0 only exact copies count"),
    SafeRange("condensation", "near_copy_length", "the near-copy rule", safe_high=60,
              why="longer windows let a shorter copied stretch pass unseen"),
    SafeRange("condensation", "order", "the pseudo-strings' independence from their inputs", safe_high=4,
              why="order-s statistics reproduce each group's s-grams; high orders copy whole runs of an input, "
                  "which the fragment and near-copy rules must then repair"),
    SafeRange("cbmsa", "c", "the (k,c) confidence bound", safe_high=0.9,
              why="c = 1 lets every sequence of a group show a highly-sensitive value: the bound is off"),
)

#: the words every parameter warning holds (release_verdict.RISK_KINDS recognises them)
LOOSENED_WORDS = "loosens a release rule"


def _value(params: dict, name: str) -> float | None:
    value = params.get(name)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def refused_parameter(method: str, params: dict) -> tuple[str, str] | None:
    """``(parameter, message)`` for the first parameter of ``method`` set beyond the bound where its rule checks
    nothing (the run is refused, exit 2), or ``None``."""
    for rng in SAFE_RANGES:
        value = _value(params, rng.parameter) if rng.method == method else None
        if value is not None and rng.refused(value):
            bound = rng.refuse_high if rng.refuse_high is not None and value > rng.refuse_high else rng.refuse_low
            above = rng.refuse_high is not None and value > rng.refuse_high
            return rng.parameter, (
                f"parameter '{rng.parameter}' = {_num(value)} switches off {rng.rule} ({rng.why}): it is refused "
                f"{'above' if above else 'below'} {_num(bound)}; its safe range is {rng.shown()} (between the two, the "
                "verdict is NOT safe to publish)")
    return None


def loosened_parameters(method: str, params: dict) -> list[str]:
    """A release warning for every parameter of ``method`` set outside its safe range (within the hard bound)."""
    warnings = []
    for rng in SAFE_RANGES:
        value = _value(params, rng.parameter) if rng.method == method else None
        if value is not None and rng.loosened(value) and not rng.refused(value):
            warnings.append(f"parameter '{rng.parameter}' = {_num(value)} {LOOSENED_WORDS}, {rng.rule}, outside its safe "
                            f"range ({rng.shown()}): {rng.why}")
    return warnings
