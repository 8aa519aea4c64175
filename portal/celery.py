"""Celery application. Without REDIS_URL, settings make tasks run in-process (eager)."""

import os
import warnings

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")

app = Celery("portal")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

if os.environ.get("PORTAL_EMBEDDED_BROKER", "").lower() in ("1", "true", "yes"):
    # The demo worker (`make run`) runs as whoever starts it, often root in a fresh container;
    # Celery's advice against a root worker is for production, where the compose file and the
    # README run it as an unprivileged user, and would be the only warning in the demo's log.
    warnings.filterwarnings("ignore", message="You're running the worker with superuser")
