"""Pure domain code: parsers, cost model, credential checks, billing.

Nothing in this package may import django, rest_framework or celery (a test enforces it).
"""
