FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DJANGO_SETTINGS_MODULE=portal.settings
# Pango for WeasyPrint (PDF reports), a CJK font, Chromium for the report charts (kaleido).
RUN apt-get update && apt-get install -y --no-install-recommends fonts-noto-cjk curl \
    libpango-1.0-0 libpangoft2-1.0-0 chromium \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY pyproject.toml ./
COPY . .
RUN pip install --no-cache-dir . && useradd --create-home portal && mkdir -p /app/var && chown portal /app/var
USER portal
RUN DJANGO_DEBUG=false DJANGO_SECRET_KEY=build-only python manage.py collectstatic --noinput
EXPOSE 8000
CMD ["gunicorn", "portal.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3"]
