"""One settings module, driven by environment variables; runs with no environment at all.

Nothing set: DEBUG off (DJANGO_SECRET_KEY required), SQLite, tasks run in-process. DJANGO_DEBUG=true
is development (`make run` sets it); DATABASE_URL / REDIS_URL switch to PostgreSQL and Redis;
PORTAL_EMBEDDED_BROKER=true runs tasks on a real worker without Redis (`make run`, see README).
"""

from datetime import timedelta
from pathlib import Path

import environ
from django.utils.translation import gettext_lazy as _
from whitenoise.compress import Compressor as _WhiteNoiseCompressor

BASE_DIR = Path(__file__).resolve().parent.parent
env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DJANGO_DEBUG", default=False)
_DEV_KEY = "dev-only-insecure-key-change-me-0123456789-abcdefghijklmnopqrstuvwxyz"
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default=_DEV_KEY if DEBUG else "")
if not SECRET_KEY:
    raise RuntimeError("DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off")
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "reports.staticfiles.StaticFilesConfig",  # django.contrib.staticfiles, ReDoc left out
    "django.contrib.humanize",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "simple_history",
    "axes",
    "core",
    "accounts",
    "vendors",
    "quotes",
    "benchmarks",
    "rankings",
    "reports",
    "sourcing",
    "serving",
    "contracts",
    "demo",  # top layer: `manage.py demo_setup` loads every app's demo data
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # WhiteNoise answers static files before anything builds a page; CSP concerns the pages
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "portal.security.ContentSecurityPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    # a body above DATA_UPLOAD_MAX_MEMORY_SIZE under /api/: 413 in JSON, not the HTML 400 page
    "portal.limits.ApiBodyLimitMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "core.teams.TeamMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
    # Last: turns a locked-out log-in (any path, see accounts.throttle) into the lock-out page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "portal.urls"

# The team models, named for `core` (which imports no app), as AUTH_USER_MODEL names the user's.
TEAM_MODEL = "accounts.Team"
TEAM_MEMBERSHIP_MODEL = "accounts.Membership"
WSGI_APPLICATION = "portal.wsgi.application"
# Every form label starts with a capital letter (core/forms.py).
FORM_RENDERER = "core.forms.PortalFormRenderer"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "accounts.context_processors.team",
            ]
        },
    }
]

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DB_CONN_MAX_AGE", default=0)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# PostgreSQL: parameters bound by the server, and each statement a connection has run
# DB_PREPARE_THRESHOLD times kept prepared (psycopg's cache, at most 100 per connection), so
# PostgreSQL no longer parses and plans it. The pages' joins took longer to plan than to run
# (the compare page's seven tables: 0.76 ms of planning for 0.23 ms of execution); under
# `make load` every page answered 15-35% more requests. It pays with persistent connections
# (DB_CONN_MAX_AGE). DB_SERVER_SIDE_BINDING=false binds on the client and prepares nothing,
# e.g. behind a transaction-pooling PgBouncer, which cannot keep prepared statements.
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env.bool(
    "DB_SERVER_SIDE_BINDING", default=True
):
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        server_side_binding=True, prepare_threshold=env.int("DB_PREPARE_THRESHOLD", default=5)
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# The failure limit first (it only refuses locked-out names), then the caseless name lookup;
# ModelBackend stays listed for sessions that name it (it never gets to check a password).
AUTHENTICATION_BACKENDS = [
    "accounts.backends.LoginLimitBackend",
    "accounts.backends.NormalisedUsernameBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Log-in failure limit (django-axes, accounts.throttle): 5 failures per normalised user name and
# client address within 15 minutes lock that pair for 15 minutes, on every password path.
# Counted in PostgreSQL (database handler), so a Redis outage changes nothing here.
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_USERNAME_CALLABLE = "accounts.throttle.axes_username"
AXES_LOCKOUT_CALLABLE = "accounts.throttle.lockout_response"
AXES_RESET_ON_SUCCESS = True
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False  # a lock-out ends 15 minutes after it began
AXES_HTTP_RESPONSE_CODE = 429
AXES_VERBOSE = False
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "dashboard"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "zh-hans"
LANGUAGES = [("zh-hans", _("Simplified Chinese")), ("en", _("English"))]
FORMAT_MODULE_PATH = ["portal.formats"]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "Asia/Shanghai"
USE_I18N = True
USE_TZ = True
DEFAULT_CURRENCY = "CNY"

STATIC_URL = "/static/"
STATIC_ROOT = env.path("STATIC_ROOT", default=BASE_DIR / "staticfiles")


# plotly.min.js is served from the installed plotly package, at the version the figures expect
# (reports.staticfiles.PlotlyFinder: that one file, not the package's other 5 MB).
STATICFILES_DIRS = [BASE_DIR / "static"]
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "reports.staticfiles.PlotlyFinder",
]
# Source maps are never requested by the pages: copied (CSS and JS name them) but not compressed.
WHITENOISE_SKIP_COMPRESS_EXTENSIONS = (*_WhiteNoiseCompressor.SKIP_COMPRESS_EXTENSIONS, "map")
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
# Uploaded evidence is private: it lives outside STATIC/MEDIA URLs and is only served by views that
# check the team (see core.files).
MEDIA_ROOT = env.path("MEDIA_ROOT", default=BASE_DIR / "var" / "uploads")
MEDIA_URL = "/media-not-served/"
UPLOAD_MAX_BYTES = env.int("UPLOAD_MAX_BYTES", default=200 * 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["accounts.permissions.TeamRolePermission"],
    "DEFAULT_PARSER_CLASSES": [
        "core.parsers.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_FILTER_BACKENDS": [
        "core.filters.TeamFilterBackend",  # django-filter's, id filters scoped to the team
        "rest_framework.filters.SearchFilter",
        "rest_framework.filters.OrderingFilter",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "core.api.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "GPU cluster procurement portal API",
    "DESCRIPTION": "Vendors, due diligence, quotes, benchmark evidence and cost rankings.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Several apps have fields named state / kind / fabric with different choice sets: name each.
    "ENUM_NAME_OVERRIDES": {
        "ProvinceEnum": "domain.regions.PROVINCE_CHOICES",
        "VerificationStateEnum": "vendors.choices.VerificationState",
        "CertificationKindEnum": "vendors.choices.CertificationKind",
        "FabricEnum": "vendors.choices.Fabric",
        "TestKindEnum": "benchmarks.choices.TestKind",
        "ReportKindEnum": "reports.choices.ReportKind",
        "RfqStateEnum": "sourcing.choices.RfqState",
        "FabricRequirementEnum": "sourcing.choices.FabricRequirement",
        "AwardStateEnum": "sourcing.choices.AwardState",
        "TrafficStatusEnum": "serving.choices.TrafficStatus",
        "ContractStatusEnum": "contracts.choices.ContractStatus",
        "BandwidthSourceEnum": "contracts.choices.BandwidthSource",
        "DeliveryUploadKindEnum": "contracts.choices.UploadKind",
        "DeliveryUploadOriginEnum": "contracts.choices.UploadOrigin",
        "IncidentKindEnum": "contracts.choices.IncidentKind",
        "StatusEnum": "core.models.JobStatus",  # the jobs' status, named as before TrafficStatus
    },
}

REDIS_URL = env.str("REDIS_URL", default="")
# ---- Cache (core.cache): keys carry what each value is made of, so nothing is invalidated;
# entries expire after CACHE_TIMEOUT_S. In Redis when there is one: shared by every web
# process; it also carries the queue, so it fails open (a down Redis is a miss, logged; see
# portal.cache) and gives up on a silent Redis within a second; entries are kept only with
# a timeout, so a Redis run with `maxmemory-policy volatile-lru` evicts cache, never queue.
# Without Redis (`make run`, tests): this process's memory, bounded in bytes.
CACHE_TIMEOUT_S = env.int("CACHE_TIMEOUT_S", default=6 * 3600)
CACHE_LOCAL_MAX_BYTES = env.int("CACHE_LOCAL_MAX_BYTES", default=64 * 1024 * 1024)
LOCAL_CACHE = {
    "BACKEND": "portal.cache.SizedLocMemCache",
    "TIMEOUT": CACHE_TIMEOUT_S,
    "OPTIONS": {"MAX_ENTRIES": 50_000, "MAX_BYTES": CACHE_LOCAL_MAX_BYTES},
}
CACHES = {
    "default": {
        "BACKEND": "portal.cache.FailOpenRedisCache",
        "LOCATION": REDIS_URL,
        "TIMEOUT": CACHE_TIMEOUT_S,
        "OPTIONS": {
            "socket_connect_timeout": env.float("CACHE_REDIS_TIMEOUT_S", default=0.5),
            "socket_timeout": env.float("CACHE_REDIS_TIMEOUT_S", default=0.5),
        },
    }
    if REDIS_URL
    else LOCAL_CACHE
}
# ---- end of cache settings
# Without Redis, `make run` still runs a real worker (progress bars move): the broker is a folder
# of message files (kombu's filesystem transport), shared by runserver and the worker on one
# machine. Development only; a deployment uses Redis.
EMBEDDED_BROKER = env.bool("PORTAL_EMBEDDED_BROKER", default=False) and not REDIS_URL
EMBEDDED_BROKER_DIR = env.path("PORTAL_EMBEDDED_BROKER_DIR", default=BASE_DIR / "var" / "broker")
CELERY_BROKER_URL = REDIS_URL or (
    "filesystem://localhost/" if EMBEDDED_BROKER else "memory://localhost/"
)
CELERY_RESULT_BACKEND = REDIS_URL or None
CELERY_TASK_ALWAYS_EAGER = env.bool(
    "CELERY_TASK_ALWAYS_EAGER", default=not REDIS_URL and not EMBEDDED_BROKER
)
CELERY_TASK_EAGER_PROPAGATES = False
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = env.str("CELERY_QUEUE", default="portal")
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {
    # An unacknowledged task (its worker died) is handed to another worker after this long.
    "visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=3600),
    # How often a worker looks for such messages (kombu sweeps every interval × throttle s).
    "unacked_restore_interval": env.int("CELERY_UNACKED_RESTORE_INTERVAL", default=10),
    "unacked_restore_throttle": env.int("CELERY_UNACKED_RESTORE_THROTTLE", default=10),
    # A broker that accepts the connection but never answers must not hang a request.
    "socket_timeout": env.float("CELERY_BROKER_SOCKET_TIMEOUT", default=5.0),
}
if EMBEDDED_BROKER:
    Path(EMBEDDED_BROKER_DIR).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(EMBEDDED_BROKER_DIR),
        "data_folder_out": str(EMBEDDED_BROKER_DIR),
        # The exchanges' tables; kombu's default is "control" in the working directory, which
        # put broker state into the checkout.
        "control_folder": str(Path(EMBEDDED_BROKER_DIR) / "control"),
        "store_processed": False,
        "polling_interval": 0.2,
        "visibility_timeout": CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"],
    }
    if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
        # Two processes write one SQLite file: wait for the other's lock instead of failing,
        # and take the write lock when a transaction starts (no upgrade deadlocks).
        DATABASES["default"].setdefault("OPTIONS", {}).update(
            timeout=20,
            transaction_mode="IMMEDIATE",
            init_command="PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        )
# Publishing a task must fail fast when the broker is down: core.queue.enqueue catches the
# error, keeps the job pending and core.tasks.requeue_stale_jobs sends it again later.
CELERY_BROKER_CONNECTION_TIMEOUT = env.float("CELERY_BROKER_CONNECTION_TIMEOUT", default=2.0)
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 2,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.5,
}
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = CELERY_BROKER_CONNECTION_TIMEOUT
# Pending jobs older than this are sent again by core.tasks.requeue_stale_jobs.
CELERY_REQUEUE_STALE_AFTER_S = env.int("CELERY_REQUEUE_STALE_AFTER_S", default=300)
# Running jobs that started longer ago than this (well past the visibility timeout, so neither
# finished nor redelivered: their message was lost, e.g. Redis restarted) are sent again too.
CELERY_REQUEUE_RUNNING_AFTER_S = env.int(
    "CELERY_REQUEUE_RUNNING_AFTER_S",
    default=CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] + 600,
)
# Job heartbeats (core.jobs): a running job stamps its row this often; one silent for longer
# than JOB_STALE_HEARTBEAT_S has lost its worker and is sent again by requeue_stale_jobs.
JOB_HEARTBEAT_S = env.float("JOB_HEARTBEAT_S", default=5.0)
JOB_STALE_HEARTBEAT_S = env.int("JOB_STALE_HEARTBEAT_S", default=60)
# Seconds one attempt at building an export file may take (reports.jobs): past it the build
# ends failed with the reason (Celery's soft time limit in the worker, the job system's own
# deadline at each progress report, and the stale-job re-sender never sends it again).
EXPORT_TIME_LIMIT_S = env.int("EXPORT_TIME_LIMIT_S", default=600)
CELERY_TIMEZONE = TIME_ZONE
CELERY_BEAT_SCHEDULE = {
    "refresh-vendor-findings": {"task": "vendors.tasks.refresh_all_findings", "schedule": 6 * 3600},
    "close-due-rfqs": {"task": "sourcing.tasks.close_due_rfqs", "schedule": 60},
    "requeue-stale-jobs": {"task": "core.tasks.requeue_stale_jobs", "schedule": 60},
    "pull-contract-prometheus": {"task": "contracts.tasks.pull_all_prometheus", "schedule": 900},
    "warn-claim-deadlines": {"task": "contracts.tasks.warn_claim_deadlines", "schedule": 6 * 3600},
    # jobs whose publishing failed while the broker was down: sent within seconds of its return
    "requeue-unsent-jobs": {
        "task": "core.tasks.requeue_stale_jobs",
        "schedule": 5,
        "kwargs": {"unsent_only": True},
    },
}

# With DEBUG on (`make run`, the demo) mail is written to files under var/mail/ so that a newcomer
# can open the supplier links (the RFQ page links the latest invitation); production sets its
# own backend, and the console is the default without DEBUG.
EMAIL_BACKEND = env.str(
    "EMAIL_BACKEND",
    default="django.core.mail.backends.filebased.EmailBackend"
    if DEBUG
    else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_FILE_PATH = env.str("EMAIL_FILE_PATH", default=str(BASE_DIR / "var" / "mail"))
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="portal@localhost")

SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False
X_FRAME_OPTIONS = "DENY"
# Every page and answer (portal/security.py): scripts from the portal's own files only.
CONTENT_SECURITY_POLICY = env.str(
    "CONTENT_SECURITY_POLICY",
    default="; ".join((
        "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:", "font-src 'self'", "connect-src 'self'", "object-src 'none'",
        "base-uri 'self'", "form-action 'self'", "frame-ancestors 'none'",
    )),
)  # fmt: skip
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
# Container healthchecks call these over plain HTTP from inside the container: no HTTPS redirect
# (curl -f would count the 301 as healthy without ever reaching the view).
SECURE_REDIRECT_EXEMPT = [r"^health/$", r"^ping/$"]
if not DEBUG:
    SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=True)
    CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=True)
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        # Report rendering libraries narrate every step at INFO; keep their warnings only.
        **{
            name: {"level": "WARNING"}
            for name in ("weasyprint", "fontTools", "kaleido", "choreographer", "logistro")
        },
    },
}
