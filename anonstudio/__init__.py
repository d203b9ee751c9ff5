"""anonstudio: a workbench for anonymizing tables, event sequences and biological strings."""

__version__ = "0.1.0"
