"""anonstudio: a workbench for anonymizing tables, event sequences and biological strings."""

__version__ = "0.2.0"
