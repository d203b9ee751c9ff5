"""The parameters pane: the methods the engine offers for the loaded kind of data and a form for the
chosen method's declared parameters.

Nothing here keeps a list of methods or parameters: the methods come from
:func:`anonstudio.core.algorithms.available` and the widgets from each algorithm's ``parameters``
(:class:`anonstudio.core.params.ParamSet`), so the GUI, the job files and the CLI never drift. Every entry
is checked with the engine's own :meth:`Param.validate` as it is typed; an invalid entry gets a red border
and the engine's message under it, before Run is pressed.
"""

from __future__ import annotations

import math
from typing import Any

from PySide6 import QtCore, QtWidgets

from anonstudio.core import algorithms
from anonstudio.core.errors import AnonStudioError
from anonstudio.core.params import Param, ParamSet
from anonstudio.gui.dialogs import in_screen_words
from anonstudio.gui.panes._common import INVALID, StateBinding, placeholder

_INT_LIMIT = 2_000_000_000
_FLOAT_LIMIT = 1e12


def parse_weights(text: str, choices: tuple[str, ...]) -> Any:
    """A ``weights`` entry: one of ``choices``, or ``"age=0.2, sex=1"`` → ``{"age": 0.2, "sex": 1.0}``
    (values are validated by :meth:`Param.validate`; malformed pairs are returned as the raw text)."""
    text = text.strip()
    if text in choices or "=" not in text:
        return text
    out: dict[str, Any] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        if "=" not in part:
            return text
        key, value = part.split("=", 1)
        key = key.strip()
        if not key:
            return text
        try:
            out[key] = float(value)
        except ValueError:
            out[key] = value.strip()
    return out


def file_filter(declared: str) -> str:
    """The file dialog's filter for a parameter's ``filter``: ``formats:<kind>`` names every registered format of
    that kind (:func:`anonstudio.core.io.formats.dialog_filter`), anything else is a filter string as it is."""
    if declared.startswith("formats:"):
        from anonstudio.core.io import formats

        kind = declared.split(":", 1)[1]
        return formats.dialog_filter(kind, label=f"{kind.capitalize()}s")
    return declared or "All files (*)"


def format_weights(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}={v:g}" if isinstance(v, (int, float)) else f"{k}={v}" for k, v in value.items())
    return "" if value is None else str(value)


class ModelsEditor(QtWidgets.QWidget):
    """The privacy models a method enforces beyond k (a ``"models"`` parameter, its ``choices``): one checkable box
    per model, titled as the model calls itself, holding a form of the model's own declared parameters. Its value
    is ``{model name: {parameter: value}}`` for the checked models (the job file's ``[algorithm.models.<name>]``)."""

    changed = QtCore.Signal()

    def __init__(self, names: tuple[str, ...], parent: QtWidgets.QWidget | None = None) -> None:
        from anonstudio.core.privacy import MODELS

        super().__init__(parent)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.boxes: dict[str, QtWidgets.QGroupBox] = {}
        self.forms: dict[str, ParamForm] = {}
        self.classes = {name: MODELS[name] for name in names if name in MODELS}
        for name, cls in self.classes.items():
            box = QtWidgets.QGroupBox(cls.label())
            box.setObjectName(f"model_{name}")
            box.setCheckable(True)
            box.setChecked(False)
            box.setToolTip(((cls.__doc__ or "").strip().split("\n\n")[0]).replace("\n", " "))
            form = ParamForm()
            form.setObjectName(f"modelform_{name}")
            form.set_parameters(cls.parameters, cls.reference)
            form.setVisible(False)
            QtWidgets.QVBoxLayout(box).addWidget(form)
            box.toggled.connect(form.setVisible)
            box.toggled.connect(lambda *_: self.changed.emit())
            form.changed.connect(self.changed.emit)
            layout.addWidget(box)
            self.boxes[name], self.forms[name] = box, form

    def value(self) -> dict[str, dict[str, Any]]:
        return {name: self.forms[name].values() for name, box in self.boxes.items() if box.isChecked()}

    def set_value(self, value: Any) -> None:
        value = value if isinstance(value, dict) else {}
        for name, box in self.boxes.items():
            blocker = QtCore.QSignalBlocker(box)
            box.setChecked(name in value)
            del blocker
            self.forms[name].setVisible(name in value)
            self.forms[name].set_values(value.get(name) or {})

    def error(self) -> str:
        """The first problem of a checked model's entries ('' if none), checked by the model's declarations."""
        for name, values in self.value().items():
            errors = self.forms[name].errors()
            if errors:
                return f"{self.classes[name].label()}: {next(iter(errors.values()))}"
            try:
                self.classes[name](**values).check_parameters()
            except AnonStudioError as exc:
                return f"{self.classes[name].label()}: {in_screen_words(exc.message)}"
        return ""


def tooltip_for(param: Param, reference: str = "") -> str:
    """A parameter's tooltip: its help, range or choices, default, and the paper it comes from."""
    lines = [param.help or param.name]
    rng = param.describe_range()
    if rng:
        lines.append(f"Allowed: {rng}")
    if param.required:
        lines.append("Required (no default).")
    elif param.default is not None:
        lines.append(f"Default: {format_weights(param.default) if param.kind == 'weights' else param.default}")
    if reference:
        lines.append(f"Reference: {reference}")
    lines.append(f"In a job file: {param.name}")
    return "\n".join(lines)


class _Field:
    """One parameter's editor, error label and read/write/validate logic."""

    def __init__(self, param: Param, reference: str, on_change) -> None:
        self.param = param
        p = param
        self.editor: QtWidgets.QWidget
        #: an optional parameter without a default: left empty, it is not set at all (e.g. Mondrian's l)
        self.optional = p.default is None and not p.required
        # a float whose default a 4-decimal spin box would round (SafePub's δ = 1e-6 became 0) is typed as text
        fine = p.kind == "float" and isinstance(p.default, (int, float)) and round(float(p.default), 4) != p.default
        if p.kind in ("int", "float") and not p.required and not self.optional and not fine:
            if p.kind == "int":
                w = QtWidgets.QSpinBox()
                # never below 0 when the parameter cannot be negative (k = −2,000,000,000 is not typed at all); a
                # value below the parameter's own low (k = 1) is typed and marked red with the engine's message
                w.setRange(0 if p.low is not None and p.low >= 0 else -_INT_LIMIT,
                           int(p.high) if p.high is not None and p.high < _INT_LIMIT else _INT_LIMIT)
                w.valueChanged.connect(on_change)
            else:
                w = QtWidgets.QDoubleSpinBox()
                w.setDecimals(4)
                w.setRange(0.0 if p.low is not None and p.low >= 0 else -_FLOAT_LIMIT, _FLOAT_LIMIT)
                span = (p.high - p.low) if (p.low is not None and p.high is not None) else None
                w.setSingleStep(0.05 if span is not None and span <= 1 else 0.1 if span is not None and span <= 10 else 1.0)
                w.valueChanged.connect(on_change)
            w.setKeyboardTracking(True)
            self.editor = w
        elif p.kind == "choice":
            w = QtWidgets.QComboBox()
            w.addItems(list(p.choices))
            w.currentTextChanged.connect(on_change)
            self.editor = w
        elif p.kind == "bool":
            w = QtWidgets.QCheckBox()
            w.toggled.connect(on_change)
            self.editor = w
        elif p.kind == "models":
            w = ModelsEditor(p.choices)
            w.changed.connect(on_change)
            self.editor = w
        elif p.kind == "weights":
            w = QtWidgets.QComboBox()
            w.setEditable(True)
            w.addItems(list(p.choices))
            w.setInsertPolicy(QtWidgets.QComboBox.NoInsert)
            w.lineEdit().setPlaceholderText(" | ".join(p.choices) + " or attr=weight, …")
            w.currentTextChanged.connect(on_change)
            self.editor = w
        else:  # str, str_list, required numbers
            w = QtWidgets.QLineEdit()
            if p.kind == "str_list":
                w.setPlaceholderText("comma-separated values")
            elif p.required:
                w.setPlaceholderText("required")
            elif self.optional:
                w.setPlaceholderText("not set (optional)")
            w.textChanged.connect(on_change)
            self.editor = w
        self.editor.setObjectName(f"param_{p.name}")
        self.editor.setToolTip(tooltip_for(p, reference))
        # the red border goes on a frame around the editor (a style sheet on a spin box itself would
        # replace its native look, arrows included)
        self.frame = QtWidgets.QFrame()
        self.frame.setObjectName(f"frame_{p.name}")
        box = QtWidgets.QHBoxLayout(self.frame)
        box.setContentsMargins(2, 2, 2, 2)
        box.addWidget(self.editor)
        #: a list parameter can offer values to pick (e.g. highly_sensitive: the sensitive column's values)
        self.picker: QtWidgets.QToolButton | None = None
        if p.kind == "str_list":
            self.picker = QtWidgets.QToolButton()
            self.picker.setObjectName(f"pick_{p.name}")
            self.picker.setText("Pick ▾")
            self.picker.setPopupMode(QtWidgets.QToolButton.InstantPopup)
            self.picker.setMenu(QtWidgets.QMenu(self.picker))
            self.picker.menu().aboutToShow.connect(self._sync_picks)
            self.picker.hide()
            box.addWidget(self.picker)
        #: a path parameter gets a file or folder dialog
        self.browse: QtWidgets.QToolButton | None = None
        if p.browse and isinstance(self.editor, QtWidgets.QLineEdit):
            self.browse = QtWidgets.QToolButton()
            self.browse.setObjectName(f"browse_{p.name}")
            self.browse.setText("Browse…")
            self.browse.setToolTip(f"Choose the {'folder' if p.browse == 'folder' else 'file'} with a dialog")
            self.browse.clicked.connect(self._browse)
            box.addWidget(self.browse)
        self.error = QtWidgets.QLabel()
        self.error.setObjectName(f"error_{p.name}")
        self.error.setStyleSheet(f"color: {INVALID};")
        self.error.setWordWrap(True)
        self.error.hide()
        self.message = ""
        if not p.required:
            self.set(p.default)

    def _browse(self) -> None:
        start = self.editor.text().strip()
        if self.param.browse == "folder":
            path = QtWidgets.QFileDialog.getExistingDirectory(self.frame, self.param.help or self.param.name, start)
        else:
            path, _ = QtWidgets.QFileDialog.getOpenFileName(self.frame, self.param.help or self.param.name, start,
                                                            file_filter(self.param.filter))
        if path:
            self.editor.setText(path)

    # -- value ---------------------------------------------------------------------------------------------
    def raw(self) -> Any:
        """What the widget holds, in the type the job file would hold (unvalidated)."""
        p, w = self.param, self.editor
        if isinstance(w, ModelsEditor):
            return w.value()
        if isinstance(w, QtWidgets.QSpinBox):
            return int(w.value())
        if isinstance(w, QtWidgets.QDoubleSpinBox):
            return float(w.value())
        if isinstance(w, QtWidgets.QCheckBox):
            return bool(w.isChecked())
        if isinstance(w, QtWidgets.QComboBox):
            text = w.currentText()
            return parse_weights(text, p.choices) if p.kind == "weights" else text
        text = w.text()
        if p.kind == "levels":  # "age=1, education=2" → {"age": 1, "education": 2}
            parsed = parse_weights(text, ())
            if isinstance(parsed, dict):
                return {k: (int(v) if isinstance(v, float) and v.is_integer() else v) for k, v in parsed.items()}
            return {} if not text.strip() else text
        if p.kind == "str_list":
            return [v.strip() for v in text.split(",") if v.strip()]
        if p.kind in ("int", "float"):
            text = text.strip()
            if not text:
                return None
            try:
                num = float(text)
            except ValueError:
                return text
            return int(num) if p.kind == "int" and num.is_integer() else num
        return text

    # -- picking list values ---------------------------------------------------------------------------
    def set_choices(self, values: list[str], source: str = "") -> None:
        """Offer ``values`` as checkable entries beside a list parameter's text (none: no picker)."""
        if self.picker is None:
            return
        if list(values) == self.choices():
            self._sync_picks()
            return
        menu = self.picker.menu()
        menu.clear()
        for v in values:
            act = menu.addAction(v)
            act.setCheckable(True)
            act.toggled.connect(self._picked)
        self.picker.setToolTip(f"Pick from the values of {source}" if source else "Pick values")
        self.picker.setVisible(bool(values))
        self._sync_picks()

    def choices(self) -> list[str]:
        return [a.text() for a in self.picker.menu().actions()] if self.picker is not None else []

    def _sync_picks(self) -> None:
        chosen = set(self.raw()) if self.picker is not None else set()
        for act in self.picker.menu().actions() if self.picker is not None else []:
            blocker = QtCore.QSignalBlocker(act)
            act.setChecked(act.text() in chosen)
            del blocker

    def _picked(self, *_: Any) -> None:
        """A value was (un)checked: the text lists the checked values, in the column's order, followed by
        any typed value that is not among them."""
        offered = self.choices()
        checked = [a.text() for a in self.picker.menu().actions() if a.isChecked()]
        typed = [v for v in self.raw() if v not in offered]
        self.editor.setText(", ".join(checked + typed))

    def set(self, value: Any) -> None:
        p, w = self.param, self.editor
        blocker = QtCore.QSignalBlocker(w)
        try:
            if isinstance(w, ModelsEditor):
                w.set_value(value)
            elif isinstance(w, QtWidgets.QSpinBox):
                number = int(value) if value is not None else 0
                if number > w.maximum():  # a job's k above the records: kept as given (the run refuses it, in the
                    w.setMaximum(number)  # command line's words), never silently lowered
                w.setValue(number)
            elif isinstance(w, QtWidgets.QDoubleSpinBox):
                v = float(value) if value is not None else 0.0
                w.setValue(v if math.isfinite(v) else 0.0)
            elif isinstance(w, QtWidgets.QCheckBox):
                w.setChecked(bool(value))
            elif isinstance(w, QtWidgets.QComboBox):
                text = format_weights(value) if p.kind in ("weights", "levels") else ("" if value is None else str(value))
                i = w.findText(text)
                if i >= 0:
                    w.setCurrentIndex(i)
                else:
                    w.setEditText(text) if w.isEditable() else None
            else:
                if isinstance(value, (list, tuple)):
                    w.setText(", ".join(map(str, value)))
                elif isinstance(value, dict):
                    w.setText(format_weights(value))
                else:
                    w.setText("" if value is None else str(value))
        finally:
            del blocker

    def is_unset(self) -> bool:
        """An empty entry of an optional parameter without a default (left out of the parameters)."""
        value = self.raw()
        return self.optional and (value is None or value == "" or value == [] or value == {})

    def check(self) -> bool:
        """Validate with the engine; mark the editor red with the message when invalid."""
        value = self.raw()
        try:
            if self.is_unset():
                pass
            elif value is None or (value == "" and self.param.kind != "str"):
                if self.param.required:
                    raise AnonStudioError(f"parameter '{self.param.name}' is required")
                self.param.validate(self.param.default)
            else:
                self.param.validate(value)
            self.message = self.editor.error() if isinstance(self.editor, ModelsEditor) else ""
        except AnonStudioError as exc:
            self.message = in_screen_words(exc.message) if hasattr(exc, "message") else str(exc)
        ok = not self.message
        self.editor.setProperty("invalid", not ok)
        self.frame.setStyleSheet(
            "" if ok else f"QFrame#frame_{self.param.name} {{ border: 2px solid {INVALID}; border-radius: 3px; }}"
        )
        self.error.setText(self.message)
        self.error.setVisible(not ok)
        return ok


def key_text(secret_draws: bool) -> str:
    """The release box's line about the release key: its fingerprint (or that it is made on the first run)."""
    from anonstudio.core.keys import default_key_path, load_key

    try:
        key = load_key()
    except AnonStudioError as exc:
        return f"Release key: {exc.message}"
    what = "This method's draws and the row order come" if secret_draws else "The row order comes"
    if key is None:
        return f"{what} from your release key, made on the first run in {default_key_path().parent}."
    return f"{what} from your release key {key.fingerprint} (the key itself is never shown or saved)."


class ParamForm(QtWidgets.QWidget):
    """A form with one validated editor per declared :class:`Param` (usable for generators and
    experiments too: any :class:`ParamSet`)."""

    changed = QtCore.Signal()

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self._layout = QtWidgets.QFormLayout(self)
        self._layout.setFieldGrowthPolicy(QtWidgets.QFormLayout.AllNonFixedFieldsGrow)
        # in a narrow dock (1280 × 720) a field goes below its label rather than past the dock's right edge
        self._layout.setRowWrapPolicy(QtWidgets.QFormLayout.WrapLongRows)
        self._fields: dict[str, _Field] = {}
        self.parameters = ParamSet()

    def set_parameters(self, parameters: ParamSet, reference: str = "") -> None:
        while self._layout.rowCount():
            self._layout.removeRow(0)
        self._fields = {}
        self.parameters = parameters
        for p in parameters:
            f = _Field(p, reference, self._on_change)
            box = QtWidgets.QWidget()
            v = QtWidgets.QVBoxLayout(box)
            v.setContentsMargins(0, 0, 0, 0)
            v.setSpacing(1)
            v.addWidget(f.frame)
            v.addWidget(f.error)
            label = QtWidgets.QLabel(p.label + ("*" if p.required else ""))
            label.setWordWrap(True)
            label.setToolTip(f.editor.toolTip())
            self._layout.addRow(label, box)
            self._fields[p.name] = f
            f.check()

    def _on_change(self, *_: Any) -> None:
        for f in self._fields.values():
            f.check()
        self.changed.emit()

    def field(self, name: str) -> _Field:
        return self._fields[name]

    def editor(self, name: str) -> QtWidgets.QWidget:
        return self._fields[name].editor

    def set_choices(self, name: str, values: list[str], source: str = "") -> None:
        """Offer ``values`` to pick for list parameter ``name`` (no such parameter: nothing happens)."""
        if name in self._fields:
            self._fields[name].set_choices(values, source)

    def values(self) -> dict[str, Any]:
        """The entries as job-file values (validated and converted where valid, raw where not; empty
        entries give the default, and optional parameters without a default are left out)."""
        out: dict[str, Any] = {}
        for name, f in self._fields.items():
            if f.is_unset():
                continue
            raw = f.raw()
            try:
                out[name] = f.param.validate(raw) if raw is not None else f.param.default
            except AnonStudioError:
                out[name] = raw
        return out

    def set_values(self, values: dict[str, Any]) -> None:
        """Set the entries to ``values``; parameters it does not name go back to their defaults."""
        for name, f in self._fields.items():
            f.set(values[name] if name in values else f.param.default)
        self._on_change()

    def errors(self) -> dict[str, str]:
        return {n: f.message for n, f in self._fields.items() if not f.check()}

    def is_valid(self) -> bool:
        if self.errors():
            return False
        try:
            self.parameters.validate(self.values())
        except AnonStudioError:
            return False
        return True


class ParametersPane(QtWidgets.QWidget):
    """Choose a method for the loaded kind of data and set its parameters.

    Signals
    -------
    paramsChanged(dict):
        The current entries (without ``name``) after every change, valid or not (see :meth:`is_valid`).
    methodChanged(str):
        The newly chosen method's job-file name.
    validityChanged(bool):
        Whether all entries are valid (for enabling Run).
    """

    paramsChanged = QtCore.Signal(dict)
    methodChanged = QtCore.Signal(str)
    validityChanged = QtCore.Signal(bool)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self._kind: str | None = None
        self._classes: list[type] = []
        self._valid = False
        self._updating = False
        self._binding = StateBinding(self, self._on_state)

        self.method_box = QtWidgets.QComboBox()
        self.method_box.setObjectName("method")
        # a long method title never widens the pane past its dock (the full title is in the drop-down)
        self.method_box.setSizeAdjustPolicy(QtWidgets.QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.method_box.setMinimumContentsLength(16)
        self.method_box.currentIndexChanged.connect(self._on_method)
        self.reference = QtWidgets.QLabel()
        self.reference.setWordWrap(True)
        self.reference.setStyleSheet("color: #555;")
        self.reference.setTextInteractionFlags(QtCore.Qt.TextSelectableByMouse)
        self.form = ParamForm()
        self.form.changed.connect(self._on_form)
        self.status = QtWidgets.QLabel()
        self.status.setWordWrap(True)
        self.empty = placeholder("Load data to see the methods for it.")
        # the release options (the job's [output] keys): how Export publishes, not what a run verifies
        self.release_box = QtWidgets.QGroupBox("Release")
        self.shuffle_rows = QtWidgets.QCheckBox("Publish rows in a random order (shuffle_rows)")
        self.shuffle_rows.setObjectName("shuffleRows")
        self.shuffle_rows.setToolTip(
            "Export writes the rows (an event log's sequences) in a random order after verification, so nobody who "
            "knows the input's order can link a published row to its person (job key output.shuffle_rows). The "
            "order is drawn from your release key (anonstudio key), never from a seed written in a job.")
        self.shuffle_rows.toggled.connect(self._on_release)
        release_layout = QtWidgets.QVBoxLayout(self.release_box)
        release_layout.addWidget(self.shuffle_rows)
        # where the secret draws come from: the release key, named by its fingerprint (never shown itself)
        self.key_label = QtWidgets.QLabel()
        self.key_label.setObjectName("releaseKey")
        self.key_label.setWordWrap(True)
        self.key_label.setStyleSheet("color: #555;")
        self.key_label.setTextInteractionFlags(QtCore.Qt.TextSelectableByMouse)
        self.key_label.setToolTip("RA, SafePub, Anatomy and the row shuffle draw from a key made on this machine "
                                  "(anonstudio key); it is never written into a job, report or project — they name "
                                  "its fingerprint. 'anonstudio verify' re-derives a release where the key is.")
        release_layout.addWidget(self.key_label)

        # one scroll area for the whole pane: in a short dock (1280 × 720 after a run) the method, its reference and
        # its first parameters stay readable and the rest scrolls, instead of every part being squeezed
        content = QtWidgets.QWidget()
        top = QtWidgets.QFormLayout()
        top.addRow("Method", self.method_box)
        inner = QtWidgets.QVBoxLayout(content)
        inner.setContentsMargins(0, 0, 0, 0)
        inner.addLayout(top)
        inner.addWidget(self.reference)
        inner.addWidget(self.form)
        inner.addWidget(self.release_box)
        inner.addWidget(self.status)
        inner.addWidget(self.empty)
        inner.addStretch(1)
        self.scroll = QtWidgets.QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QtWidgets.QFrame.NoFrame)
        # the content follows the dock's width (labels and errors wrap); only the height scrolls
        self.scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarAlwaysOff)
        self.scroll.setWidget(content)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.scroll)
        self._show_empty(True)

    # -- public API ----------------------------------------------------------------------------------------
    def set_state(self, state: Any) -> None:
        """Bind to a :class:`~anonstudio.core.workspace.Workspace`: follow its kind and method, and write
        the chosen method and parameters back to it."""
        self._binding.bind(state)
        self._sync_from_state()

    def set_kind(self, kind: str | None) -> None:
        """List the methods for ``kind`` (``"table"``, ``"events"``, ``"fasta"``; ``None``: none)."""
        self._kind = kind
        self._classes = list(algorithms.available(kind)) if kind else []
        self._updating = True
        try:
            self.method_box.clear()
            for cls in self._classes:
                self.method_box.addItem(cls.title or cls.name, cls.name)
                self.method_box.setItemData(self.method_box.count() - 1, "\n".join(filter(None, (cls.description, cls.reference))), QtCore.Qt.ToolTipRole)
            # the kind's first (main) method, whatever row the previous kind had chosen: a shown combo box
            # otherwise keeps the old row number across clear()
            self.method_box.setCurrentIndex(0 if self._classes else -1)
        finally:
            self._updating = False
        if not self._classes:
            self.empty.setText(
                "Load data to see the methods for it." if kind is None
                else f"This version offers no method for {kind} data yet."
            )
            self._show_empty(True)
            self.form.set_parameters(ParamSet())
            self._emit_validity()
            return
        self._show_empty(False)
        self._on_method(self.method_box.currentIndex())

    def method(self) -> str | None:
        """The chosen method's job-file name."""
        return self.method_box.currentData() if self.method_box.count() else None

    def algorithm_class(self) -> type | None:
        i = self.method_box.currentIndex()
        return self._classes[i] if 0 <= i < len(self._classes) else None

    def params(self) -> dict[str, Any]:
        """The parameter entries as job-file values (without ``name``)."""
        return self.form.values()

    def is_valid(self) -> bool:
        """True when a method is chosen and every entry passes the engine's validation."""
        return self.method() is not None and self.form.is_valid()

    def errors(self) -> dict[str, str]:
        """Parameter name → the engine's message, for every invalid entry."""
        return self.form.errors()

    def set_values(self, method: str, params: dict[str, Any]) -> None:
        """Choose ``method`` and fill in ``params`` (the others get their defaults)."""
        i = self.method_box.findData(method)
        if i < 0:
            raise KeyError(f"method '{method}' is not offered for {self._kind} data")
        self._updating = True
        try:
            self.method_box.setCurrentIndex(i)
            self._load_method(i)
            self.form.set_values(dict(params))
        finally:
            self._updating = False
        self._on_form()

    def show_outcome(self, outcome: Any) -> None:
        """Show the parameters a finished run used (from its report)."""
        if outcome is None:
            return
        params = dict(outcome.report.get("parameters", {}))
        name = params.pop("name", None) or outcome.report.get("algorithm")
        if name and self.method_box.findData(name) >= 0:
            self.set_values(name, {k: v for k, v in params.items() if k in self.form.parameters.names()})

    def clear(self) -> None:
        """Back to the chosen method's defaults."""
        i = self.method_box.currentIndex()
        if i >= 0:
            self._load_method(i)
            self._on_form()

    # -- internals -----------------------------------------------------------------------------------------
    def _show_empty(self, empty: bool) -> None:
        self.empty.setVisible(empty)
        self.release_box.setVisible(not empty and self._kind in ("table", "events"))
        self.method_box.setEnabled(not empty)
        self.reference.setVisible(not empty)

    def _load_method(self, index: int) -> None:
        cls = self._classes[index]
        # the method's own parameters, then those the pipeline takes for it (max_suppression), titled by the method
        self.form.set_parameters(cls.form_parameters(), cls.reference)
        self._bound_by_records()
        self.reference.setText(cls.reference)
        self.reference.setToolTip(cls.__doc__.strip().splitlines()[0] if cls.__doc__ else "")
        self.key_label.setText(key_text(cls.secret_draws))
        self._offer_sensitive_values()

    def _bound_by_records(self) -> None:
        """The group size k can be at most the number of records (a table's rows, an event log's sequences, the
        strings of a FASTA file): its spin box stops there (issue 40 item 4)."""
        state = self._binding.state if getattr(self, "_binding", None) is not None else None
        n = state.n_records() if state is not None and hasattr(state, "n_records") else 0
        if "k" not in self.form.parameters.names() or n <= 0:
            return
        editor = self.form.editor("k")
        if isinstance(editor, QtWidgets.QSpinBox):
            editor.setMaximum(max(n, editor.minimum()))
            editor.setToolTip(editor.toolTip().split("\nAt most")[0] + f"\nAt most {n:,}: the number of records")

    def _on_method(self, index: int) -> None:
        if self._updating or index < 0 or index >= len(self._classes):
            return
        self._load_method(index)
        self.methodChanged.emit(self._classes[index].name)
        self._on_form()

    def _on_form(self) -> None:
        if self._updating:
            return
        errors = self.form.errors()
        n = len(errors)
        self.status.setText(
            "" if not self.method() else
            f"<span style='color:{INVALID}'>{n} invalid parameter{'s' if n != 1 else ''}: correct {'them' if n != 1 else 'it'} before running</span>"
            if n else ""
        )
        params = self.params()
        self.paramsChanged.emit(params)
        self._emit_validity()
        state = self._binding.state
        if state is not None and self.method() is not None and hasattr(state, "set_method"):
            if state.method != self.method() or state.params != params:
                self._updating = True
                try:
                    state.set_method(self.method(), params)
                finally:
                    self._updating = False

    def _emit_validity(self) -> None:
        valid = self.is_valid()
        if valid != self._valid:
            self._valid = valid
            self.validityChanged.emit(valid)

    def _on_release(self, checked: bool) -> None:
        state = self._binding.state
        if state is not None and hasattr(state, "set_release") and state.release.shuffle_rows != checked:
            state.set_release(shuffle_rows=bool(checked))

    def _sync_release(self) -> None:
        state = self._binding.state
        release = getattr(state, "release", None)
        kind = getattr(state, "kind", None)
        self.release_box.setVisible(kind in ("table", "events"))  # pseudo-strings carry no input order
        if release is not None and self.shuffle_rows.isChecked() != release.shuffle_rows:
            self.shuffle_rows.blockSignals(True)
            self.shuffle_rows.setChecked(release.shuffle_rows)
            self.shuffle_rows.blockSignals(False)

    def _on_state(self, what: str) -> None:
        if what in ("data", "release", "project"):
            self._sync_release()
        if what in ("data", "roles", "project"):
            self._offer_sensitive_values()
        if what in ("data", "project"):
            self._bound_by_records()
        if self._updating:
            return
        if what in ("data", "project", "method"):
            self._sync_from_state()

    def _offer_sensitive_values(self) -> None:
        """``highly_sensitive`` is picked from the distinct values of the data's sensitive column."""
        if "highly_sensitive" not in self.form.parameters.names():
            return  # only methods with that parameter offer values (no pass over the column otherwise)
        binding = getattr(self, "_binding", None)
        state = binding.state if binding is not None else None
        data = getattr(state, "data", None)
        column = getattr(data, "sensitive", None) if data is not None else None
        if isinstance(column, (list, tuple)):  # a table names its sensitive columns; the first is offered
            column = column[0] if column else None
        values = state.column_values(column) if column and hasattr(state, "column_values") else []
        self.form.set_choices("highly_sensitive", sorted(values), f"the sensitive column '{column}'")

    def _sync_from_state(self) -> None:
        state = self._binding.state
        if state is None:
            return
        self._sync_release()
        kind = getattr(state, "kind", None)
        if kind != self._kind or not self._classes:
            self.set_kind(kind)
        method = getattr(state, "method", None)
        if method and method != self.method() and self.method_box.findData(method) >= 0:
            self.set_values(method, getattr(state, "params", {}) or {})
        elif method and method == self.method() and (getattr(state, "params", {}) or {}) != self.params():
            self.set_values(method, state.params)


if __name__ == "__main__":
    import sys

    from anonstudio.gui.panes._common import run_preview

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv)
    pane = ParametersPane()
    pane.set_kind(sys.argv[1] if len(sys.argv) > 1 else "table")
    pane.paramsChanged.connect(lambda p: print("params:", p, "valid:", pane.is_valid()))
    run_preview(pane, "Parameters — preview")
