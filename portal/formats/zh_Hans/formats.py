"""Simplified Chinese formats: Django's, except that money is grouped by thousands with commas
(323,000 rather than 32,3000 or 323000), as Chinese procurement and finance documents print it."""

from django.conf.locale.zh_Hans.formats import *  # noqa: F403

THOUSAND_SEPARATOR = ","
NUMBER_GROUPING = 3
