"""Test overrides: fast hashing, temporary uploads, tasks in-process unless a test sends them."""

import tempfile

from .settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
MEDIA_ROOT = tempfile.mkdtemp(prefix="portal-test-media-")
CELERY_TASK_ALWAYS_EAGER = True
REPORTS_WARM_CHART_RENDERER = False  # worker subprocesses of the tests render no charts
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}  # noqa: F405
LOGGING["root"]["level"] = "WARNING"  # noqa: F405
STATIC_ROOT = tempfile.mkdtemp(prefix="portal-test-static-")
# Tests assert English texts unless they ask for Chinese explicitly (Accept-Language or override).
LANGUAGE_CODE = "en"
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
