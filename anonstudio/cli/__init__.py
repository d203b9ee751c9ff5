"""The command line: ``anonstudio run | verify | generate | demo | gui | experiment``."""
