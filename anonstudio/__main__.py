"""``python -m anonstudio`` is the command line."""

try:
    from anonstudio.cli.main import entry
except KeyboardInterrupt:  # Ctrl-C while the command line's modules load: a stop, not a traceback (issue 44)
    import sys

    sys.stderr.write("anonstudio: cancelled\n")
    raise SystemExit(130) from None

if __name__ == "__main__":
    entry()
