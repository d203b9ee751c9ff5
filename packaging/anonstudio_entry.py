"""Entry point of the desktop bundle: the same ``entry`` as the ``anonstudio`` console script.

With no arguments the bundle opens the workbench (as ``anonstudio`` does); ``--version``, ``run``, ``demo``
and every other subcommand work as they do from a pip install.
"""

import multiprocessing

if __name__ == "__main__":
    multiprocessing.freeze_support()  # a frozen program re-executes itself for child processes
    from anonstudio.cli.main import entry

    entry()
