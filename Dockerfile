# The service's image: daphne (web), Celery worker and beat all run from it.
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
# DejaVu: the day's card image (frontend/social.py) draws every language's letters.
RUN apt-get update && apt-get install -y --no-install-recommends fonts-dejavu-core \
    && rm -rf /var/lib/apt/lists/*
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
# Static files are collected at build time (WhiteNoise serves them); any random
# key will do here (placeholders are refused), thrown away with the layer's shell.
RUN SECRET_KEY="$(python -c "import secrets; print(secrets.token_urlsafe(50))")" \
    DAILY_DEAL_SECRET="$(python -c "import secrets; print(secrets.token_urlsafe(50))")" \
    python manage.py collectstatic --noinput -v 0
# A fixed numeric user: Kubernetes' runAsNonRoot can only check a number
# (deploy/k8s/ runs the pods as 10001).
RUN groupadd --system --gid 10001 patience \
    && useradd --system --uid 10001 --gid 10001 --home /app patience \
    && chown -R patience /app
USER 10001:10001
EXPOSE 8000
# -v 0: daphne's own plain-text access log off; the service logs each request as JSON.
CMD ["daphne", "-v", "0", "-b", "0.0.0.0", "-p", "8000", "--proxy-headers", "config.asgi:application"]
