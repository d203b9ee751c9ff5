"""What the input strings contain, indexed once per input set (:class:`FragmentIndex`) and shared by the
condensation run, the pseudo-string verifier (:mod:`._strings`) and the fragment metric: the longest substring each
output string shares with an input, and the fragments held by fewer than k inputs (the fragment rule,
``max_fragment``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from anonstudio.core.data import SequenceSet
from anonstudio.core.progress import checkpoint

#: Automaton states with this many transitions get a dense row, from a pool of DENSE_BUDGET cells (32 MB).
DENSE_FROM = 3
DENSE_BUDGET = 8_000_000


def remember(cache: dict, key: Any, original: Any, value: Any, kept: int) -> None:
    """Keep ``value`` in ``cache`` under ``key`` while ``original`` lives (a weak reference whose callback removes
    the entry; not weak-referenceable: not kept), at most ``kept`` entries (the oldest dropped first)."""
    import weakref

    def forget(ref: Any, key: Any = key) -> None:
        entry = cache.get(key)
        if entry is not None and entry[0] is ref:
            del cache[key]

    try:
        ref = weakref.ref(original, forget)
    except TypeError:  # not weak-referenceable: not cached
        return
    cache.pop(key, None)
    cache[key] = (ref, value)
    while len(cache) > kept:
        del cache[next(iter(cache))]


def _output_codes(alphabet: Any, output: SequenceSet) -> np.ndarray:
    """The output's codes mapped into ``alphabet`` (the inputs'; -1: absent), matching a symbol the inputs lack in
    the other case."""
    index = alphabet.index()
    folded: dict[str, int] = {}
    for symbol, code in index.items():
        folded.setdefault(symbol.casefold(), code)
    table = np.array([index.get(s, folded.get(s.casefold(), -1)) for s in output.alphabet.symbols], dtype=np.int32)
    return table[output.codes.astype(np.int64)] if len(output.codes) else np.zeros(0, np.int32)


#: Default length L of the fragment rule (``max_fragment``): no pseudo-string substring of L or more symbols
#: may occur in fewer than k inputs. 20 because a shared run that long is copying, not chance: two unrelated
#: proteins share a given 20-mer with probability ~20^-20 per position pair (measured: strings drawn from
#: yeast's composition share at most 9 residues with any of 1,000 yeast proteins), while a 20-residue
#: fragment found in one protein is enough to look that protein up; BLAST's protein seeds are 3–6 residues
#: and its DNA seeds 11–28, so 20 also stays above chance for DNA (4^20 ≈ 10^12).
DEFAULT_MAX_FRAGMENT = 20

#: the indexes of the inputs alive, by ``id`` of the input (a weak reference to it beside each, whose callback
#: removes the entry when the input is freed; an index holds no reference to its input): at most
#: :data:`INDEXES_KEPT`, the least recently used dropped first (issue 44: they were never freed)
_INDEXES: dict[int, tuple[Any, FragmentIndex]] = {}

#: how many input sets keep their index (one run's inputs and the verifier's; a second data set in the workbench)
INDEXES_KEPT = 2

#: whether this process has loaded the kernels a background build calls (:meth:`FragmentIndex.prefetch`)
_KERNELS_LOADED = False


class FragmentIndex:
    """What the input strings contain, built once per input set and shared by the condensation run (which
    avoids leaks), the verifier (which checks them) and the fragment metric. Built from the original strings
    only, never from a method's output or bookkeeping; every scan is exact.

    Two parts (:mod:`anonstudio.core.kernels._substring`):

    - the *k-mer side*: every input position's next ``w`` symbols packed into one integer, sorted (``w`` =
      12 for proteins, 21 for DNA), with a directory of its first symbols. A binary search inside a query
      window's block gives each query string's longest match capped at ``w``, exact below ``w``: a string
      whose matches all stay below ``ℓ = min(w, max_fragment)`` can hold no rare fragment and needs nothing
      more (nearly every pseudo-string);
    - a *suffix automaton* with, per state, the number of inputs holding its substrings, which scans the
      remaining strings exactly. It is built over the inputs that hold one of those strings' windows of ``ℓ``
      symbols: every input holding a match of ``ℓ`` or more symbols holds its first ``ℓ`` symbols, so on
      such matches — the only ones the rule and the longest match of these strings depend on — that
      automaton and one of all inputs give the same lengths and input counts (a few hundred proteins of
      yeast's 6,049 instead of all of them). When those inputs are a large part of all, the automaton of all
      inputs is built instead (it may also be started in the background: :meth:`prefetch`).

    Scans are kept per query string content (exact bytes), so the verifier's scan of what a run published
    costs a look-up for every string the run itself scanned unchanged.

    Inputs are counted as distinct contents (:meth:`~anonstudio.core.data.SequenceSet.distinct`): identical
    input sequences are indexed once, so a fragment held only by copies of one sequence is held by one input,
    however many records (or files) repeat it — else an attacker's ten copies of a target would make its
    fragments look common (issue 28).
    """

    #: the automaton of a subset of inputs is built while they hold less than this share of all symbols
    SUBSET_SHARE = 0.3
    #: bytes of query content whose scans are kept
    MEMO_BYTES = 64 << 20
    #: with windows shorter than this, :meth:`prefetch` also builds the automaton of all inputs
    FULL_BELOW_W = 10
    #: query strings scanned at a time (progress and Cancel between chunks)
    CHUNK = 16384
    #: size of the k-mer side's bitset of the grams the inputs hold (at most 16 MB)
    GRAM_BITS = 1 << 27

    def __init__(self, original: SequenceSet) -> None:
        import threading

        #: the inputs' alphabet (the index holds no reference to the inputs themselves: it lives in a cache keyed by
        #: them, which a reference back would keep alive for the life of the process)
        self.alphabet = original.alphabet
        # the inputs' distinct contents: a fragment is held by as many inputs as distinct sequences hold it (ten
        # copies of one protein are one protein: issue 28), so everything below is built over them
        contents = original.distinct()[0]
        n_symbols = len(original.alphabet)
        self.sigma = n_symbols + 1
        self._codes32 = contents.codes.astype(np.int32)
        self._offsets = contents.offsets.astype(np.int64)
        self._text, self._starts, self._ends = _separated(self._codes32, self._offsets, self.sigma - 1)
        # k-mer side: input symbols are 1..n, 0 pads past an input's end, n + 1 ("never") stands for a query
        # symbol absent from the inputs and pads past a query's end, so neither matches anything
        self._never = n_symbols + 1
        self._bits = max(1, int(self._never).bit_length())
        self._w = max(1, 63 // self._bits)
        self._lock = threading.Lock()
        self._kmer_lock = threading.Lock()
        self._subset_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._kmers: tuple | None = None
        self._automaton: tuple | None = None
        self._doc_count: np.ndarray | None = None
        self._subset: tuple | None = None  # (inputs, automaton, doc_count) over some inputs
        self._resolved: tuple = (0, np.zeros(0, np.int64))  # (length, windows whose holders _subset holds)
        self._memo: dict[tuple, np.ndarray] = {}
        self._memo_bytes = 0

    # -- building ----------------------------------------------------------------------------------------
    def _kmer_side(self) -> tuple:
        """``(sorted windows, directory, shift, gram bitset, symbol ranks, radix, gram length)``, built on first
        need."""
        with self._kmer_lock:
            if self._kmers is None:
                from anonstudio.core.kernels._substring import gram_bitset, pack_windows, window_directory

                starts, ends = self._offsets[:-1], self._offsets[1:]
                windows = np.sort(pack_windows(self._values(), starts, ends, self._bits, self._w, 0))
                top_bits = min(20, self._bits * self._w)
                shift = self._bits * self._w - top_bits
                # grams over the symbols the inputs hold (yeast: 20 of protein-25's letters), as long as their
                # bitset stays within GRAM_BITS bits (proteins: 6 symbols, DNA: 13)
                held = np.flatnonzero(np.bincount(self._codes32, minlength=self.sigma - 1))
                rank = np.zeros(self._never + 1, np.int64)
                rank[held + 1] = np.arange(1, len(held) + 1)
                n, g = max(len(held), 1), 0
                while g < self._w and n ** (g + 1) <= self.GRAM_BITS:
                    g += 1
                g = g if g >= 2 else 0
                grams = gram_bitset(self._values(), starts, ends, rank, n, g) if g else np.zeros(1, np.uint8)
                self._kmers = (windows, window_directory(windows, shift, 1 << top_bits), shift, grams, rank, n, g)
        return self._kmers

    def _values(self) -> np.ndarray:
        """The inputs' symbols as the k-mer side packs them (1..n)."""
        return self._codes32.astype(np.int64) + 1

    def _build(self) -> None:
        self._automaton, self._doc_count = _automaton_of(self._text, self._starts, self._ends, self.sigma)

    def _ensure_automaton(self, tick: Callable[[], None] | None = None) -> tuple:
        if self._automaton is None:
            _while_reporting(self._built, tick)
        return self._automaton

    def _built(self) -> None:
        with self._lock:  # a prefetch in flight holds the lock: wait for it
            if self._automaton is None:
                self._build()

    def prefetch(self, automaton: bool | None = None) -> FragmentIndex:
        """Build the k-mer side in a background thread (its kernels and numpy's sort release the GIL), and
        with ``automaton`` also the automaton of all inputs, so that the first scan finds them ready; returns
        ``self``. ``automaton=None``: when the windows are shorter than :attr:`FULL_BELOW_W` symbols (item
        alphabets: Quest's 1,000 items give windows of 6), since most strings then share a window with many
        inputs and the automaton of all of them is needed anyway."""
        import threading

        if automaton is None:
            automaton = self._w < self.FULL_BELOW_W
        if self._thread is None and (self._kmers is None or (automaton and self._automaton is None)):
            self._kernels_loaded_here()

            def build():
                self._kmer_side()
                if automaton:
                    self._built()

            self._thread = threading.Thread(target=build, name="fragment-index", daemon=True)
            self._thread.start()
        return self

    def _kernels_loaded_here(self) -> None:
        """Load (or, on a first use, compile) on this thread every kernel a background build calls, by building
        both sides for a few of the inputs' symbols (the same argument types), once per process.

        numba adding code to its JIT on one thread while another thread runs a kernel can crash the process
        (numba issues 10563 and 10614, open; a precaution — the crash seen in CI had another cause, see
        :func:`anonstudio.core.kernels.parallel_runtime`), so a background thread only ever runs kernels this
        process has already loaded."""
        global _KERNELS_LOADED
        if _KERNELS_LOADED or not len(self._codes32):
            return
        few = self._codes32[:16].astype(self.alphabet.code_dtype)
        tiny = FragmentIndex(SequenceSet(["few"], ["few"], few, np.array([0, len(few)], np.int64), self.alphabet))
        tiny._kmer_side()
        tiny._built()
        _KERNELS_LOADED = True

    @property
    def automaton(self) -> tuple:
        """``(node, edges, dense)``: the suffix automaton of all inputs, compact layout (built on first use)."""
        return self._ensure_automaton()

    @property
    def doc_count(self) -> np.ndarray:
        """Per state of :attr:`automaton`, the number of inputs holding its substrings."""
        self._ensure_automaton()
        return self._doc_count

    def _automaton_for(self, codes: np.ndarray, offsets: np.ndarray, length: int,
                       tick: Callable[[], None] | None = None) -> tuple:
        """``(automaton, doc_count)`` exact for the matches of ``length`` or more symbols of the query strings
        ``codes``/``offsets`` (see the class docstring): over the inputs holding one of their windows of
        ``length`` symbols, or over all inputs. Windows whose holders the current automaton already covers
        (a string scanned again with one symbol changed) and, at the k-mer side's length, windows no input
        holds are not looked for again."""
        from anonstudio.core.kernels._substring import pack_windows, texts_holding

        if self._automaton is not None:
            return self._automaton, self._doc_count
        values = np.where((codes >= 0) & (codes < self.sigma - 1), codes.astype(np.int64) + 1, self._never)
        windows = np.sort(pack_windows(values, offsets[:-1], offsets[1:], self._bits, length, self._never))
        windows = windows[np.r_[True, windows[1:] != windows[:-1]]] if len(windows) else windows  # distinct
        if length == self._w and len(windows):  # only the windows some input holds
            text_windows = self._kmer_side()[0]
            at = np.minimum(np.searchsorted(text_windows, windows), len(text_windows) - 1)
            windows = windows[text_windows[at] == windows]
        with self._subset_lock:
            done_length, done = self._resolved
            if self._subset is not None and done_length == length:
                windows = windows[~np.isin(windows, done, assume_unique=True)]
                if not len(windows):
                    return self._subset[1], self._subset[2]
            need = texts_holding(self._values(), self._offsets[:-1], self._offsets[1:], windows, self._bits,
                                 length)
            found = self._subset_automaton(need, tick)
            if self._subset is not None:  # these windows' holders are in it now
                self._resolved = (length, np.union1d(done, windows) if done_length == length else windows)
            return found

    def _subset_automaton(self, need: np.ndarray, tick: Callable[[], None] | None) -> tuple:
        if self._subset is not None:
            held, automaton, doc_count = self._subset
            if not np.any(need & ~held):
                return automaton, doc_count
            need |= held
        lengths = np.diff(self._offsets)
        if lengths[need].sum() > self.SUBSET_SHARE * lengths.sum():
            self._ensure_automaton(tick)
            self._subset = None
            return self._automaton, self._doc_count
        chosen = np.flatnonzero(need)
        sub_offsets = np.zeros(len(chosen) + 1, np.int64)
        np.cumsum(lengths[chosen], out=sub_offsets[1:])
        sub_codes = self._codes32[np.repeat(need, lengths)]
        text, starts, ends = _separated(sub_codes, sub_offsets, self.sigma - 1)
        automaton, doc_count = _while_reporting(lambda: _automaton_of(text, starts, ends, self.sigma), tick)
        self._subset = (need, automaton, doc_count)
        return automaton, doc_count

    @classmethod
    def of(cls, original: SequenceSet, prefetch: bool = False) -> FragmentIndex:
        """The index of ``original`` (cached while that object lives: one build per run); ``prefetch`` starts
        the k-mer side's build in the background."""
        key = id(original)
        hit = _INDEXES.get(key)
        if hit is not None and hit[0]() is original:
            _INDEXES[key] = _INDEXES.pop(key)  # most recently used last
            return hit[1].prefetch() if prefetch else hit[1]
        index = cls(original)
        remember(_INDEXES, key, original, index, INDEXES_KEPT)
        return index.prefetch() if prefetch else index

    # -- scanning ----------------------------------------------------------------------------------------
    def _codes(self, output: SequenceSet) -> np.ndarray:
        return _output_codes(self.alphabet, output)

    def longest_shared(self, output: SequenceSet) -> np.ndarray:
        """Per output string, the longest substring it shares with any input."""
        return self.rare_fragments_of(self._codes(output), output.offsets.astype(np.int64), None, 0)["shared"]

    def rare_fragments(self, output: SequenceSet, min_length: int, k: int) -> dict[str, np.ndarray]:
        """Per output string: the longest substring of ≥ ``min_length`` symbols held by 1..k-1 inputs
        (``longest``, 0 if none) and by how many (``inputs``), where its first such match ends
        (``first_end``, -1 if none), how many positions leak (``positions``) and its longest shared
        substring of any kind (``shared``)."""
        return self.rare_fragments_of(self._codes(output), output.offsets.astype(np.int64), min_length, k)

    def capped_longest(self, codes: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """Per query string, its longest substring found in an input, capped at the window ``w`` (exact
        below it): the k-mer side alone."""
        from anonstudio.core.kernels._substring import capped_longest_direct

        windows, directory, shift, grams, rank, n, g = self._kmer_side()
        codes = np.asarray(codes, np.int64)
        offsets = np.asarray(offsets, np.int64)
        values = np.where((codes >= 0) & (codes < self.sigma - 1), codes + 1, self._never)
        return capped_longest_direct(windows, directory, shift, values, offsets, self._bits, self._w, self._never,
                                     grams, rank, n, g)

    def rare_fragments_of(self, codes: np.ndarray, offsets: np.ndarray, min_length: int | None, k: int,
                          tick: Callable[[], None] | None = None) -> dict[str, np.ndarray]:
        """:meth:`rare_fragments` of the strings ``codes[offsets[i]:offsets[i + 1]]`` (codes in the inputs'
        alphabet, -1 for a symbol they lack); ``min_length = None``: only ``shared``. Strings are taken
        :attr:`CHUNK` at a time and ``tick`` is called between chunks and every 0.1 s while an automaton is
        built (seconds for 100,000 item strings); default: the enclosing progress phase's
        :func:`~anonstudio.core.progress.checkpoint`, so progress goes on and Cancel works."""
        codes = np.asarray(codes, np.int32)
        offsets = np.asarray(offsets, np.int64)
        nq = len(offsets) - 1
        if k <= 0:  # no input count is below k: no rule to check
            min_length = None
        tick = tick or checkpoint
        out = np.zeros((5, nq), np.int64)
        for lo in range(0, nq, self.CHUNK):
            hi = min(nq, lo + self.CHUNK)
            out[:, lo:hi] = self._kept_or_scanned(codes, offsets[lo:hi + 1], min_length, k, tick)
            if hi < nq:
                tick()
        if min_length is None:
            out[:4] = 0
            out[2] = -1
        return {"longest": out[0], "inputs": out[1], "first_end": out[2], "positions": out[3], "shared": out[4]}

    def _kept_or_scanned(self, codes: np.ndarray, offsets: np.ndarray, min_length: int | None, k: int,
                         tick: Callable[[], None]) -> np.ndarray:
        """``int64[5, n]`` for the strings ``codes[offsets[i]:offsets[i + 1]]``: kept answers, and a scan of
        the others. A string scanned before (the run's strings again in the verifier, then in the metric): the
        answer is a function of the inputs and the string's content alone, so it is kept under that content."""
        nq = len(offsets) - 1
        rule = None if min_length is None else (int(min_length), int(k))
        out = np.zeros((5, nq), np.int64)
        contents = [codes[offsets[q]:offsets[q + 1]].tobytes() for q in range(nq)]
        todo = []
        for q, content in enumerate(contents):
            kept = self._memo.get((rule, content))
            if kept is None and rule is None:
                kept = self._memo.get(("shared", content))
            if kept is None:
                todo.append(q)
            else:
                out[:, q] = kept
        if todo:
            todo = np.asarray(todo, np.int64)
            sub_codes, sub_offsets = _subset_of(codes, offsets, todo)
            scanned = self._scan(sub_codes, sub_offsets, min_length, k, tick)
            out[:, todo] = scanned
            self._keep(rule, [contents[q] for q in todo.tolist()], scanned)
        return out

    def _keep(self, rule: tuple | None, contents: list[bytes], scanned: np.ndarray) -> None:
        size = sum(len(c) for c in contents)
        if self._memo_bytes + size > self.MEMO_BYTES:
            self._memo.clear()
            self._memo_bytes = 0
        if size > self.MEMO_BYTES:
            return
        columns = scanned.T.copy()
        for content, column in zip(contents, columns):
            self._memo[(rule, content)] = column
            self._memo[("shared", content)] = column  # the longest match holds whatever the rule
        self._memo_bytes += size

    def _scan(self, codes: np.ndarray, offsets: np.ndarray, min_length: int | None, k: int,
              tick: Callable[[], None] | None = None) -> np.ndarray:
        """``int64[5, n]``: the scan of :meth:`rare_fragments_of` for strings not kept."""
        from anonstudio.core.kernels._substring import rare_fragments_compact

        nq = len(offsets) - 1
        capped = self.capped_longest(codes, offsets)
        # exact already: strings whose every match is shorter than w, and (for the rule) than min_length
        limit = self._w if min_length is None else min(self._w, int(min_length))
        todo = np.flatnonzero(capped >= limit)
        out = np.zeros((5, nq), np.int64)
        out[2] = -1
        out[4] = capped
        if len(todo):
            sub_codes, sub_offsets = _subset_of(codes, offsets, todo)
            (node, edges, dense), doc_count = self._automaton_for(sub_codes, sub_offsets, limit, tick)
            no_rule = min_length is None
            scan = rare_fragments_compact(node, edges, dense, doc_count, sub_codes, sub_offsets,
                                          np.iinfo(np.int64).max if no_rule else int(min_length),
                                          0 if no_rule else int(k))
            out[:, todo] = scan
        return out


def _subset_of(codes: np.ndarray, offsets: np.ndarray, which: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The strings ``which`` of ``codes[offsets[i]:offsets[i + 1]]``, one after another, and their offsets."""
    sub_offsets = np.zeros(len(which) + 1, np.int64)
    np.cumsum(offsets[which + 1] - offsets[which], out=sub_offsets[1:])
    chosen = np.zeros(len(offsets) - 1, bool)
    chosen[which] = True
    return codes[offsets[0]:offsets[-1]][np.repeat(chosen, np.diff(offsets))], sub_offsets


def _while_reporting(work: Callable[[], Any], tick: Callable[[], None] | None) -> Any:
    """``work()`` on a helper thread (automaton kernels release the GIL) while this thread calls ``tick``
    (default :func:`~anonstudio.core.progress.checkpoint`) every 0.1 s: a Cancel raised there stops the wait
    (the helper finishes on its own and its result is dropped)."""
    import threading

    tick = tick or checkpoint
    result: list = []

    def run() -> None:
        try:
            result.append((True, work()))
        except BaseException as exc:  # noqa: BLE001 — raised again on the caller's thread
            result.append((False, exc))

    helper = threading.Thread(target=run, name="fragment-index-build", daemon=True)
    helper.start()
    while True:
        helper.join(0.1)
        if not helper.is_alive():
            break
        tick()
    ok, value = result[0]
    if not ok:
        raise value
    return value


def _separated(codes: np.ndarray, offsets: np.ndarray, sep: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The strings ``codes[offsets[d]:offsets[d + 1]]`` one after another with ``sep`` between them, and where
    each starts and ends in that text."""
    lengths = np.diff(offsets)
    text = np.full(len(codes) + len(lengths), sep, dtype=np.int32)
    shift = np.repeat(np.arange(len(lengths)), lengths)
    text[np.arange(len(codes)) + shift] = codes
    starts = (offsets[:-1] + np.arange(len(lengths))).astype(np.int64)
    return text, starts, starts + lengths


def _automaton_of(text: np.ndarray, starts: np.ndarray, ends: np.ndarray, sigma: int) -> tuple[tuple, np.ndarray]:
    """``((node, edges, dense), doc_count)``: the compact suffix automaton of ``text`` and, per state, how many
    of the texts ``text[starts[d]:ends[d]]`` hold its substrings."""
    from anonstudio.core.kernels._substring import (
        build_suffix_automaton_prefixes,
        compact_automaton,
        document_counts_from_prefixes,
    )

    built = build_suffix_automaton_prefixes(text, sigma, DENSE_FROM, max(1, DENSE_BUDGET // sigma))
    length, link, head, e_sym, e_to, e_next, dense_row, dense, prefix_state = built
    doc_count = document_counts_from_prefixes(link, prefix_state, starts, ends)
    node, edges = compact_automaton(length, link, head, e_sym, e_to, e_next, dense_row)
    return (node, edges, dense), doc_count


def longest_shared_substrings(original: SequenceSet, output: SequenceSet) -> np.ndarray:
    """For each output string, the length of the longest substring it shares with any original string.

    A suffix automaton of all originals (separated by a code outside the alphabet) is built once and each
    output string scanned once: O(total length), see :mod:`anonstudio.core.kernels._substring`.
    """
    return FragmentIndex.of(original).longest_shared(output)
