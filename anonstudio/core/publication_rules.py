"""Sentences of the publication rules that both the job reader and the publication enforce (one wording)."""

#: a method whose guarantee needs a random row order (``Algorithm.random_row_order``), asked to keep the input's
SHUFFLE_REQUIRED = ("method '{method}' publishes its rows only in a random order: set output.shuffle_rows = true "
                    "(in the input's order a row's position names its record, which its guarantee does not allow; "
                    "add output.shuffle_seed, random and at least 2^48, for 'anonstudio verify' to re-check it)")
