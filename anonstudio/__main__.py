"""``python -m anonstudio`` is the command line."""

from anonstudio.cli.main import entry

if __name__ == "__main__":
    entry()
