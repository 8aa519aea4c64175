"""What a set of benchmark logs proves about an offer.

Each parsed log is described by what it measured (scope, kind, direction, hosts, time window);
the logs of one offer are then turned into the offer's per-server figure by one rule that says
how, and each log is checked for internal consistency, re-use and provenance. Modules:

- derivation of an offer's figure from its evidence (scope, concurrency, kinds, uncertainty);
- integrity (the tool's own arithmetic), re-use and trust (who ran the test, challenge tokens).

Pure Python: no Django import.
"""
