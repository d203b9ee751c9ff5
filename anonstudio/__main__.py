"""``python -m anonstudio`` is the command line."""

from anonstudio.cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())
