"""The demo: `manage.py demo_setup` (every app's demo data for the demo team) and the walk of
every HTML page with the demo's objects (`demo.pages`). Top layer: it reads every app."""
