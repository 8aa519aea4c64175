"""Test overrides: fast hashing, temporary uploads, tasks in-process unless a test sends them."""

import os
import tempfile

# Tests run with the development settings (the test runner itself turns DEBUG off while tests
# run); production settings are checked in subprocesses by tests/deploy.
os.environ.setdefault("DJANGO_DEBUG", "true")

from .settings import *  # noqa: E402, F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
MEDIA_ROOT = tempfile.mkdtemp(prefix="portal-test-media-")
CELERY_TASK_ALWAYS_EAGER = True
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}  # noqa: F405
LOGGING["root"]["level"] = "WARNING"  # noqa: F405
STATIC_ROOT = tempfile.mkdtemp(prefix="portal-test-static-")
# Tests assert English texts unless they ask for Chinese explicitly (Accept-Language or override).
LANGUAGE_CODE = "en"
CACHES = {"default": LOCAL_CACHE}  # noqa: F405
