"""Delivery after the signature: what a contract commits, what the servers delivered, what is owed.

Pure Python (numpy for the series), no Django. Modules, in the order data flows:

- ``terms``: the committed figures and the compensation schedule, their checks and JSON shape;
- ``series``: streaming ingest of monitoring exports (Prometheus ``query_range`` JSON, plain CSV;
  ``_promscan`` is the JSON scanner, ``rawio`` undoes gzip and UTF-16);
- ``counters``: byte counters to rates, with resets and gaps handled as Prometheus does;
- ``windows``: per-host time windows of delivered bandwidth, ``up`` and coverage, and the delivery
  kit's test results as windows;
- ``incidents``: outages and tickets imported from CSV;
- ``engine``: availability, breach episodes, credits with the cap and claim deadlines per month;
- ``report``: the engine's frozen results and their JSON round trip.

The rules in words, with their sources: ``docs/DELIVERY.md``.
"""
