"""The safe alphabet of generalization labels (issue 39 item 4).

A published label must read as what it is: a reader who sees ``35-39`` must be looking at the label ``35-39``
and nothing else. Hunts found labels that display as ``35-39`` but carry extra, invisible characters — a
variation selector, a combining grapheme joiner, a whole record spelled in 173 characters — so one interval
split into many classes by exact age while the report said "age at level 1". Every label above the leaves (a
hierarchy file's, a job's grouping, every builder's) is therefore checked here:

* no control, format, private-use, unassigned or surrogate code point, no line or paragraph separator, no space
  other than U+0020 (Unicode general categories ``Cc Cf Co Cn Cs Zl Zp Zs``);
* no default-ignorable code point (Unicode ``Default_Ignorable_Code_Point``, :data:`DEFAULT_IGNORABLE`): they
  render as nothing, and Python's :mod:`unicodedata` has no such property, so the ranges are tabled here;
* no variation selector (U+FE00–FE0F, U+E0100–E01EF, the Mongolian free variation selectors U+180B–180D, 180F);
* in Unicode normalization form C (UAX #15), and no combining mark (general category ``M*``) left after it;
* no filler or blank look-alike (U+3164 HANGUL FILLER, U+115F/U+1160, U+FFA0, U+2800 BRAILLE PATTERN BLANK, …);
* at most :data:`MAX_LABEL_LENGTH` characters;
* two labels of one level never share a confusable skeleton (Unicode Technical Standard #39, "Unicode Security
  Mechanisms", section 4 "Confusable Detection": ``skeleton(X)``, over the subset of its confusables table in
  :data:`CONFUSABLE_PROTOTYPES`) or an NFKC form (UAX #15: ``３５-３９`` and ``35-39``).

The verifier reads the job's hierarchies through the same class, and a published cell must be its value or one
of its hierarchy's labels, so a release cannot carry a label this module refuses.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

#: The longest label, in code points. Interval, date, mask and group labels are far shorter (a country's long
#: name is 56); a hunt carried a whole record in a 173-character label.
MAX_LABEL_LENGTH = 64

#: ``Default_Ignorable_Code_Point`` of Unicode 15.1.0 (DerivedCoreProperties.txt), inclusive ranges. They are
#: to be rendered as nothing when a font has no glyph for them (Unicode Standard 15.1, section 5.21).
DEFAULT_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),    # SOFT HYPHEN
    (0x034F, 0x034F),    # COMBINING GRAPHEME JOINER
    (0x061C, 0x061C),    # ARABIC LETTER MARK
    (0x115F, 0x1160),    # HANGUL CHOSEONG FILLER, HANGUL JUNGSEONG FILLER
    (0x17B4, 0x17B5),    # KHMER VOWEL INHERENT AQ, AA
    (0x180B, 0x180F),    # MONGOLIAN FREE VARIATION SELECTORS ONE-THREE, VOWEL SEPARATOR, FVS FOUR
    (0x200B, 0x200F),    # ZERO WIDTH SPACE .. RIGHT-TO-LEFT MARK
    (0x202A, 0x202E),    # LEFT-TO-RIGHT EMBEDDING .. RIGHT-TO-LEFT OVERRIDE
    (0x2060, 0x206F),    # WORD JOINER .. NOMINAL DIGIT SHAPES (with the reserved U+2065)
    (0x3164, 0x3164),    # HANGUL FILLER
    (0xFE00, 0xFE0F),    # VARIATION SELECTOR-1 .. -16
    (0xFEFF, 0xFEFF),    # ZERO WIDTH NO-BREAK SPACE (byte order mark)
    (0xFFA0, 0xFFA0),    # HALFWIDTH HANGUL FILLER
    (0xFFF0, 0xFFF8),    # reserved
    (0x1BCA0, 0x1BCA3),  # SHORTHAND FORMAT LETTER OVERLAP .. UP STEP
    (0x1D173, 0x1D17A),  # MUSICAL SYMBOL BEGIN BEAM .. END PHRASE
    (0xE0000, 0xE0FFF),  # LANGUAGE TAG, TAG SPACE .. CANCEL TAG, VARIATION SELECTOR-17 .. -256, reserved
)

#: Variation selectors (Unicode Standard 15.1, section 23.4), named apart in messages.
VARIATION_SELECTORS: tuple[tuple[int, int], ...] = ((0x180B, 0x180D), (0x180F, 0x180F), (0xFE00, 0xFE0F),
                                                    (0xE0100, 0xE01EF))

#: Visible-as-nothing characters that are not default-ignorable: blank glyphs a label could end in unseen.
BLANK_LOOK_ALIKES = frozenset({0x2800,   # BRAILLE PATTERN BLANK
                               0x3164, 0x115F, 0x1160, 0xFFA0,  # the Hangul fillers (default-ignorable too)
                               0x1D159,  # MUSICAL SYMBOL NULL NOTEHEAD
                               0xFFFC,   # OBJECT REPLACEMENT CHARACTER
                               0x2028, 0x2029})  # LINE / PARAGRAPH SEPARATOR

#: The subset of UTS #39's confusables table (confusables.txt, "MA" mappings) this module applies: each
#: character maps to the prototype of its class. Cyrillic and Greek letters that look like Latin ones, the digit
#: look-alikes (0/O, 1/l/I/|), dashes and minus signs, dots and quotes. Everything else is compared after NFKC
#: (fullwidth forms, mathematical letters, ligatures, superscripts).
CONFUSABLE_PROTOTYPES: dict[str, str] = {
    # Cyrillic lower case
    "а": "a", "в": "B", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "i", "ј": "j",
    "ѕ": "s", "ԁ": "d", "һ": "h", "ԛ": "q", "ԝ": "w", "ӏ": "l", "ү": "y", "ѡ": "w", "ɡ": "g",
    # Cyrillic upper case
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T",
    "Х": "X", "Ѕ": "S", "І": "l", "Ј": "J", "Ү": "Y", "Ԛ": "Q", "Ԝ": "W", "Ӏ": "l", "З": "3", "Ь": "b",
    # Greek
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "l", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
    "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "ο": "o", "ν": "v", "α": "a", "ι": "i", "κ": "k", "ρ": "p",
    "υ": "u", "ϲ": "c", "Ϲ": "C", "ϳ": "j",
    # Latin and digits
    "0": "O", "1": "l", "I": "l", "|": "l", "ǀ": "l", "ı": "i", "ℓ": "l",
    # dashes, minus signs, dots, quotes
    "‐": "-", "‑": "-", "‒": "-", "–": "-", "—": "-", "―": "-", "−": "-", "˗": "-", "⁃": "-", "﹣": "-",
    "－": "-", "·": ".", "․": ".", "‧": ".", "•": ".", "∙": ".", "‘": "'", "’": "'", "‚": ",", "′": "'",
    "ʹ": "'", "ʼ": "'", "“": '"', "”": '"', "″": '"', "∕": "/", "⁄": "/", "∗": "*", "⁎": "*", "٭": "*",
}


_ASCII_PROTOTYPES = str.maketrans({k: v for k, v in CONFUSABLE_PROTOTYPES.items() if k.isascii()})


def _in(code: int, ranges: Iterable[tuple[int, int]]) -> bool:
    return any(lo <= code <= hi for lo, hi in ranges)


def char_name(ch: str) -> str:
    """``U+FE00 VARIATION SELECTOR-1`` (``unnamed`` where Unicode gives no name)."""
    name = unicodedata.name(ch, "<control>" if unicodedata.category(ch) == "Cc" else "unnamed")
    return f"U+{ord(ch):04X} {name}"


def unsafe_character(label: str) -> str | None:
    """Why ``label`` is not in the safe alphabet of labels, naming the first offending character as
    ``U+XXXX NAME``; ``None`` when it is."""
    if len(label) > MAX_LABEL_LENGTH:
        return (f"it is {len(label)} characters long, more than the {MAX_LABEL_LENGTH} a label may have (a long label "
                "can carry a record)")
    if label.isascii():  # the common case, fast: only control characters can be wrong
        bad = next((ch for ch in label if not ch.isprintable()), None)
        return None if bad is None else f"it holds an invisible character ({char_name(bad)})"
    for ch in label:
        code, cat = ord(ch), unicodedata.category(ch)
        if _in(code, VARIATION_SELECTORS):
            return f"it holds a variation selector ({char_name(ch)}), which changes nothing a reader sees"
        if _in(code, DEFAULT_IGNORABLE):
            return f"it holds an invisible character ({char_name(ch)}): default-ignorable in Unicode, it shows as nothing"
        if code in BLANK_LOOK_ALIKES:
            return f"it holds a blank look-alike ({char_name(ch)}), which shows as nothing or as a space"
        if cat in ("Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp") or (cat == "Zs" and ch != " "):
            return f"it holds an invisible character ({char_name(ch)})"
    nfc = unicodedata.normalize("NFC", label)
    if nfc != label:
        at = next((i for i, (a, b) in enumerate(zip(label, nfc)) if a != b), min(len(label), len(nfc)) - 1)
        ch = next((c for c in label[at:] if unicodedata.combining(c) or unicodedata.normalize("NFC", c) != c),
                  label[at])
        return (f"it is not in Unicode normalization form C (NFC changes it at {char_name(ch)}): write it as NFC "
                "writes it, so one label has one spelling")
    for ch in nfc:
        if unicodedata.category(ch).startswith("M"):
            return f"it holds a combining mark ({char_name(ch)}) that no precomposed character absorbs"
    return None


def skeleton(label: str) -> str:
    """The confusable skeleton of ``label`` (UTS #39 section 4: NFD, each character replaced by its prototype,
    NFD again), over :data:`CONFUSABLE_PROTOTYPES` after NFKC (so compatibility look-alikes share one too)."""
    if label.isascii():  # NFKC and NFD leave ASCII as it is
        return label.translate(_ASCII_PROTOTYPES).replace("m", "rn")
    text = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", label))
    text = "".join(CONFUSABLE_PROTOTYPES.get(ch, ch) for ch in text)
    # 'rn' reads as 'm' (confusables.txt maps U+006D to U+0072 U+006E)
    return unicodedata.normalize("NFD", text.replace("m", "rn"))


def first_difference(a: str, b: str) -> str:
    """The first character where ``a`` and ``b`` differ, named (the one outside ASCII where one is)."""
    for x, y in zip(a, b):
        if x != y:
            return char_name(y if x.isascii() and not y.isascii() else x)
    longer = a if len(a) > len(b) else b
    return char_name(longer[min(len(a), len(b))]) if len(a) != len(b) else "no character"


#: a label's reading: its ASCII characters, and ``None`` for each maximal run of other characters (a wildcard)
Reading = tuple["str | None", ...]


def wildcard_reading(label: str) -> Reading | None:
    """``label`` with each maximal run of non-ASCII characters as one wildcard (``None``), or ``None`` when the
    label is all ASCII or holds no ASCII letter or digit (a CJK or Greek label is judged by the other rules only).

    A whitelist where :func:`skeleton` is a blacklist: a reader can only be sure of a label's ASCII characters,
    as any character outside ASCII may look like some ASCII one (``ƻ`` U+01BB like ``2``, ``໐`` U+0ED0 like
    ``0``, ``ɡ`` U+0261 like ``9``, ``ɑ`` U+0251 like ``a``: no confusables subset lists them all)."""
    if label.isascii() or not any(ch.isascii() and ch.isalnum() for ch in label):
        return None
    out: list[str | None] = []
    for ch in label:
        if ch.isascii():
            out.append(ch)
        elif not out or out[-1] is not None:
            out.append(None)
    return tuple(out)


def may_read_alike(a: Reading, b: Reading) -> bool:
    """Whether some ASCII text reads as both ``a`` and ``b`` (:func:`wildcard_reading`; an all-ASCII label is the
    tuple of its characters): each wildcard stands for one or more ASCII characters of the other label. A wildcard
    is never matched against the other's wildcard: two runs of non-ASCII characters at one place are told apart
    by the other rules (:func:`skeleton`, NFKC, the ASCII letters and digits they spell), not guessed alike."""
    if (a[0] is None and b[0] is None) or (a[-1] is None and b[-1] is None) or not _ends_agree(a, b):
        return False  # a wildcard never stands for the other's wildcard
    memo: dict[tuple[int, int], bool] = {}

    def rest(i: int, j: int) -> bool:
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(a) or j == len(b):
            found = i == len(a) and j == len(b)
        elif a[i] is None:
            found = any(rest(i + 1, e) for e in range(j + 1, _literal_end(b, j) + 1))
        elif b[j] is None:
            found = any(rest(e, j + 1) for e in range(i + 1, _literal_end(a, i) + 1))
        else:
            found = a[i] == b[j] and rest(i + 1, j + 1)
        memo[(i, j)] = found
        return found

    return rest(0, 0)


def _literal_end(reading: Reading, start: int) -> int:
    """The end of the run of ASCII characters of ``reading`` from ``start`` (a wildcard stands for those only)."""
    end = start
    while end < len(reading) and reading[end] is not None:
        end += 1
    return end


def _ends_agree(a: Reading, b: Reading) -> bool:
    """A quick necessary condition of :func:`may_read_alike`: the ASCII characters before the first wildcard of
    each agree, and those after the last one (a level of thousands of place names is compared pair by pair)."""
    for x, y in ((a, b), (a[::-1], b[::-1])):
        for p, q in zip(x, y):
            if p is None or q is None:
                break
            if p != q:
                return False
    return True


def reading_pattern(reading: Reading) -> re.Pattern[str]:
    """A regular expression finding a line (of labels joined by newlines) that ``reading`` may read as: each
    wildcard one or more characters of the line."""
    parts = "".join("[^\\n]+" if ch is None else re.escape(ch) for ch in reading)
    return re.compile(f"^{parts}$", re.MULTILINE)
