"""Production settings: `manage.py check --deploy` is clean and the security settings hold.

Production is `portal.settings` (the Dockerfile's DJANGO_SETTINGS_MODULE) with DJANGO_DEBUG=false,
configured by environment variables as in .env.example / docker-compose.yml. Every check runs in
a subprocess with a clean, production-like environment, so the test process's own test settings
do not leak in (a developer's .env only fills variables the environment leaves unset).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]
CHECK_LINE = re.compile(r"\((?:[\w.]+)\.([WE])\d+\)")


def _database_url() -> str:
    db = settings.DATABASES["default"]
    if "postgresql" not in db["ENGINE"]:
        return "postgres://portal:portal@127.0.0.1:5432/portal"
    user = db.get("USER") or "postgres"
    host = db.get("HOST") or "127.0.0.1"
    port = db.get("PORT") or 5432
    return f"postgres://{user}@{host}:{port}/{db['NAME']}"


def _dotenv_sets_secret_key() -> bool:
    dotenv = ROOT / ".env"
    return dotenv.exists() and bool(
        re.search(r"^\s*(export\s+)?DJANGO_SECRET_KEY\s*=\s*\S", dotenv.read_text(), re.M)
    )


def production_env(**over: str | None) -> dict[str, str]:
    """The environment a production web container gets; `NAME=None` removes a variable."""
    keep = {"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT"}
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update(
        DJANGO_SETTINGS_MODULE="portal.settings",
        DJANGO_DEBUG="false",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(64),
        DJANGO_ALLOWED_HOSTS="portal.example.com",
        DJANGO_CSRF_TRUSTED_ORIGINS="https://portal.example.com",
        DATABASE_URL=_database_url(),
        REDIS_URL=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
        EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
    )
    for key, value in over.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def run(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *argv], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def check_deploy(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return run(
        ["manage.py", "check", "--deploy", "--database", "default", "--fail-level", "WARNING"],
        env,
    )


def issues(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in (proc.stdout + proc.stderr).splitlines() if CHECK_LINE.search(line)]


_DUMP = """
import json, django
django.setup()
from django.conf import settings as s
print(json.dumps({
    "DEBUG": s.DEBUG,
    "SESSION_COOKIE_SECURE": s.SESSION_COOKIE_SECURE,
    "SESSION_COOKIE_HTTPONLY": s.SESSION_COOKIE_HTTPONLY,
    "CSRF_COOKIE_SECURE": s.CSRF_COOKIE_SECURE,
    "SECURE_SSL_REDIRECT": s.SECURE_SSL_REDIRECT,
    "SECURE_HSTS_SECONDS": s.SECURE_HSTS_SECONDS,
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": s.SECURE_HSTS_INCLUDE_SUBDOMAINS,
    "SECURE_PROXY_SSL_HEADER": s.SECURE_PROXY_SSL_HEADER,
    "SECURE_CONTENT_TYPE_NOSNIFF": s.SECURE_CONTENT_TYPE_NOSNIFF,
    "X_FRAME_OPTIONS": s.X_FRAME_OPTIONS,
    "ALLOWED_HOSTS": s.ALLOWED_HOSTS,
    "PASSWORD_VALIDATORS": [v["NAME"] for v in s.AUTH_PASSWORD_VALIDATORS],
    "MIDDLEWARE": s.MIDDLEWARE,
    "STATICFILES_BACKEND": s.STORAGES["staticfiles"]["BACKEND"],
    "WHITENOISE_USE_FINDERS": s.WHITENOISE_USE_FINDERS,
    "DB_ENGINE": s.DATABASES["default"]["ENGINE"],
    "SECRET_KEY_LEN": len(s.SECRET_KEY),
}))
"""


@pytest.fixture(scope="module")
def prod_settings() -> dict:  # type: ignore[type-arg]
    proc = run(["-c", _DUMP], production_env())
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_check_deploy_reports_no_issues() -> None:
    proc = check_deploy(production_env())
    assert issues(proc) == [], proc.stdout + proc.stderr
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "System check identified no issues" in proc.stdout


def test_check_deploy_flags_the_example_placeholder_key() -> None:
    """.env.example copied as it is must not pass: its key is a placeholder (W009)."""
    example = (ROOT / ".env.example").read_text()
    placeholder = re.search(r"^DJANGO_SECRET_KEY=(.*)$", example, re.M)
    assert placeholder, ".env.example documents DJANGO_SECRET_KEY"
    proc = check_deploy(production_env(DJANGO_SECRET_KEY=placeholder.group(1)))
    assert proc.returncode != 0
    assert any("security.W009" in line for line in issues(proc)), proc.stdout + proc.stderr


def test_check_deploy_flags_debug_on() -> None:
    """The check is not blind: the same environment with DEBUG on is reported (W018)."""
    proc = check_deploy(production_env(DJANGO_DEBUG="true"))
    assert proc.returncode != 0
    assert any("security.W018" in line for line in issues(proc)), proc.stdout + proc.stderr


def test_secure_cookies_hsts_and_proxy_header(prod_settings) -> None:  # type: ignore[no-untyped-def]
    s = prod_settings
    assert s["DEBUG"] is False
    assert s["SESSION_COOKIE_SECURE"] is True
    assert s["SESSION_COOKIE_HTTPONLY"] is True
    assert s["CSRF_COOKIE_SECURE"] is True
    assert s["SECURE_SSL_REDIRECT"] is True
    assert s["SECURE_HSTS_SECONDS"] >= 31536000
    assert s["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is True
    # TLS ends at the reverse proxy: Django trusts its X-Forwarded-Proto, and only that header.
    assert s["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert s["SECURE_CONTENT_TYPE_NOSNIFF"] is True
    assert s["X_FRAME_OPTIONS"] == "DENY"
    assert s["ALLOWED_HOSTS"] == ["portal.example.com"]
    assert s["DB_ENGINE"] == "django.db.backends.postgresql"
    assert s["SECRET_KEY_LEN"] >= 50


def test_password_validators_present(prod_settings) -> None:  # type: ignore[no-untyped-def]
    names = {name.rsplit(".", 1)[-1] for name in prod_settings["PASSWORD_VALIDATORS"]}
    assert {
        "UserAttributeSimilarityValidator",
        "MinimumLengthValidator",
        "CommonPasswordValidator",
        "NumericPasswordValidator",
    } <= names


def test_static_files_served_by_whitenoise(prod_settings) -> None:  # type: ignore[no-untyped-def]
    middleware = prod_settings["MIDDLEWARE"]
    assert "whitenoise.middleware.WhiteNoiseMiddleware" in middleware
    # WhiteNoise must sit right after SecurityMiddleware, before anything that builds responses.
    assert middleware.index("whitenoise.middleware.WhiteNoiseMiddleware") == (
        middleware.index("django.middleware.security.SecurityMiddleware") + 1
    )
    # Hashed, compressed files from collectstatic; no finders at request time.
    assert prod_settings["STATICFILES_BACKEND"] == (
        "whitenoise.storage.CompressedManifestStaticFilesStorage"
    )
    assert prod_settings["WHITENOISE_USE_FINDERS"] is False


@pytest.mark.parametrize("secret", [None, ""], ids=["unset", "empty"])
def test_production_refuses_to_start_without_a_secret_key(secret) -> None:  # type: ignore[no-untyped-def]
    if secret is None and _dotenv_sets_secret_key():
        pytest.skip("this checkout's .env sets DJANGO_SECRET_KEY")
    proc = run(["manage.py", "check"], production_env(DJANGO_SECRET_KEY=secret))
    assert proc.returncode != 0
    assert "DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off" in proc.stderr
    assert "System check identified" not in proc.stdout


def test_wsgi_application_refuses_to_load_without_a_secret_key() -> None:
    """What gunicorn imports fails as clearly as manage.py does."""
    if _dotenv_sets_secret_key():
        pytest.skip("this checkout's .env sets DJANGO_SECRET_KEY")
    proc = run(["-c", "import portal.wsgi"], production_env(DJANGO_SECRET_KEY=None))
    assert proc.returncode != 0
    assert "DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off" in proc.stderr
