# The image of the service, used by docker-compose.yml for web1, web2 (Daphne, the CMD), the worker
# tier (`python manage.py worker`) and migrate.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

# The runtime dependencies only (pyproject.toml, pinned by requirements.lock): no test tools.
COPY requirements.lock .
RUN pip install --no-cache-dir -r requirements.lock

COPY . .
# Static files are collected (and gzipped) into the image; WhiteNoise serves them.
RUN SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput --verbosity 0 \
    && useradd --system --uid 10001 --home-dir /app canfield

USER canfield
EXPOSE 8000

# Daphne with the settings' options (canfield_site/serve.py: websocket frames, pings).
CMD ["python", "-m", "canfield_site.serve", "-b", "0.0.0.0", "-p", "8000"]
