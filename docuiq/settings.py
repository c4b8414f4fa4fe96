"""DocuIQ settings: one module, driven by the environment.

With no environment set, DocuIQ runs on SQLite with Celery in eager mode, so
`make run` works on a fresh machine. Production sets DATABASE_URL (PostgreSQL)
and CELERY_BROKER_URL (Redis) and runs real Celery workers.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONCE, NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from kombu import Exchange, Queue

from lib.env import env_bool, env_float, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("DOCUIQ_VAR_DIR", default=str(BASE_DIR / "var")))

# ---------------------------------------------------------------- core
# DOCUIQ_PROFILE=production (docs/production.md): secure defaults, and the app
# refuses to start on the development key or without ALLOWED_HOSTS. Unset:
# development values, so `make run` and `make test` need no environment.
PROFILE = env_str("DOCUIQ_PROFILE", default="development")
if PROFILE not in {"development", "production"}:
    raise ImproperlyConfigured(
        f"DOCUIQ_PROFILE={PROFILE!r}: expected development or production"
    )
PRODUCTION = PROFILE == "production"
DEBUG = env_bool("DEBUG", default=False)
# The fallback key is only for local runs; `check --deploy` rejects it (SEC-01).
DEVELOPMENT_SECRET_KEY = "django-insecure-docuiq-local-development-key-only"
SECRET_KEY = env_str("SECRET_KEY", default=DEVELOPMENT_SECRET_KEY)
ALLOWED_HOSTS = env_list(
    "ALLOWED_HOSTS",
    default=[] if PRODUCTION else ["127.0.0.1", "localhost", "testserver"],
)
if PRODUCTION:
    if DEBUG:
        raise ImproperlyConfigured("DEBUG is on under DOCUIQ_PROFILE=production.")
    if (
        SECRET_KEY == DEVELOPMENT_SECRET_KEY
        or SECRET_KEY.startswith("django-insecure-")
        or len(SECRET_KEY) < 50
        or len(set(SECRET_KEY)) < 5
    ):
        raise ImproperlyConfigured(
            "DOCUIQ_PROFILE=production needs SECRET_KEY: 50 or more random "
            "characters, e.g. python -c 'import secrets; "
            "print(secrets.token_urlsafe(50))'"
        )
    if not ALLOWED_HOSTS:
        raise ImproperlyConfigured(
            "DOCUIQ_PROFILE=production needs ALLOWED_HOSTS (the host names served)."
        )
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI assets served locally (no CDN)
    "django_htmx",
    "template_partials",
    "csp",
    "axes",
    "accounts",
    "ingest",
    "chat",
    "citations",
    "tabular",
    "playbook",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Bidi controls in document text shown as visible marks on every page.
    "lib.display.BidiControlMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "csp.middleware.CSPMiddleware",
    "accounts.middleware.TenantMiddleware",
    # Last, as django-axes asks: turns a locked-out login into its 429.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "docuiq.urls"
WSGI_APPLICATION = "docuiq.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "csp.context_processors.nonce",
                "accounts.context_processors.tenant",
            ],
        },
    },
]

# ---------------------------------------------------------------- database
# No DATABASE_URL: a SQLite file under var/ (the embedded default).
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'db.sqlite3'}",
        # Production keeps connections a minute (one per server thread).
        conn_max_age=env_int("DB_CONN_MAX_AGE", default=60 if PRODUCTION else 0),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets the web process read while a worker writes; the timeout rides
    # out short write locks instead of failing with "database is locked".
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# ---------------------------------------------------------------- auth
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LOGIN_URL = "accounts:login"
# Failed logins (accounts/throttling.py): django-axes checks the lockout
# before the password backend hashes anything.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", default=5)
# An account is locked only from the address that failed on it (its own
# budget per address), and an address after as many failures on any
# accounts: wrong passwords from anywhere no longer lock the owner out.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", default=15))
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "accounts.throttling.lockout_response"
AXES_CLIENT_IP_CALLABLE = "accounts.throttling.client_address"
AXES_VERBOSE = False
# Failed API keys per address and window, before 429 (accounts/throttling.py).
API_KEY_FAILURE_LIMIT = env_int("API_KEY_FAILURE_LIMIT", default=20)
API_KEY_FAILURE_WINDOW_S = env_int("API_KEY_FAILURE_WINDOW_S", default=60)
# A key found valid is remembered this long per process (no query per
# request); a revoked key stops working within it. 0: look up every time.
API_KEY_CACHE_S = env_float("API_KEY_CACHE_S", default=10.0)
# Reverse proxies in front of the app that append to X-Forwarded-For (0: the
# app is reached directly and REMOTE_ADDR is the client).
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", default=0)
if TRUSTED_PROXY_COUNT:
    # The TLS-terminating proxy says which scheme the client used.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
LOGIN_REDIRECT_URL = "ingest:document-list"
LOGOUT_REDIRECT_URL = "accounts:login"

# ---------------------------------------------------------------- cache
# Throttles and lockouts count in the cache: shared by every server process
# only with CACHE_URL (Redis) set; the local default counts per process.
CACHE_URL = env_str("CACHE_URL")
CACHES = {
    "default": (
        {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": CACHE_URL,
        }
        if CACHE_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}

# ---------------------------------------------------------------- i18n / static / media
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "static"
# WhiteNoise serves static files in every mode; finders mean no collectstatic
# step is needed for `make run` (production may still collect them).
WHITENOISE_USE_FINDERS = not PRODUCTION
WHITENOISE_AUTOREFRESH = DEBUG
if PRODUCTION:
    # `make serve` collects static files first; names carry their hash, so
    # they are cached for good, and WhiteNoise serves them compressed.
    STORAGES = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {
            "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        },
    }
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", default=str(VAR_DIR / "media")))

# ---------------------------------------------------------------- security
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", default=PRODUCTION)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=PRODUCTION)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # a load balancer probes over HTTP
SECURE_HSTS_SECONDS = env_int(
    "SECURE_HSTS_SECONDS", default=365 * 24 * 3600 if PRODUCTION else 0
)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_SECONDS > 0
SECURE_HSTS_PRELOAD = SECURE_HSTS_SECONDS > 0
# Strict CSP (SEC-02, LLM-03): scripts only from our origin or with the
# per-request nonce; images only from our origin so a model-written image URL
# cannot exfiltrate a conversation.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "frame-ancestors": [NONE],
        "form-action": [SELF],
    }
}

# Uploads: Django's own limits cap the non-file body; the file-size limit is ours.
DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
DATA_UPLOAD_MAX_NUMBER_FILES = 100

# ---------------------------------------------------------------- ingestion limits (SPEC §7)
INGEST_MAX_FILE_BYTES = env_int("INGEST_MAX_FILE_BYTES", default=50 * 1024 * 1024)
INGEST_MAX_PAGES = env_int("INGEST_MAX_PAGES", default=2000)
INGEST_TIME_LIMIT_S = env_float("INGEST_TIME_LIMIT_S", default=120.0)
INGEST_MEMORY_LIMIT_BYTES = env_int(
    "INGEST_MEMORY_LIMIT_BYTES", default=1024 * 1024 * 1024
)
# A document whose task was delivered this many times without finishing (the
# worker died each time) is failed instead of looping forever (CEL-05).
INGEST_MAX_ATTEMPTS = env_int("INGEST_MAX_ATTEMPTS", default=3)
# While a worker processes a document it renews the row's updated_at every
# INGEST_HEARTBEAT_S; a document processing with an older one than
# INGEST_STALE_AFTER_S lost its worker and is queued again by the sweep
# (CEL-04): at most stale + CELERY_SWEEP_S = 90 s after the worker died.
INGEST_HEARTBEAT_S = env_float("INGEST_HEARTBEAT_S", default=10.0)
INGEST_STALE_AFTER_S = env_float(
    "INGEST_STALE_AFTER_S", default=max(3 * INGEST_HEARTBEAT_S, 60.0)
)
# A ready document whose vectors did not come (the embedding server was
# down) is given another delivery this often (documents_sweep).
INGEST_VECTORS_RETRY_S = env_float("INGEST_VECTORS_RETRY_S", default=300.0)
CHUNK_TARGET_CHARS = env_int("CHUNK_TARGET_CHARS", default=1200)

# ---------------------------------------------------------------- connectors (issue 29)
# Web capture and database sources may reach only public addresses unless
# these allow more (SSRF: ingest/connectors/netpolicy.py). Tests allow
# loopback for the servers they start.
CONNECTORS_ALLOW_LOOPBACK = env_bool("CONNECTORS_ALLOW_LOOPBACK", default=False)
CONNECTORS_ALLOW_PRIVATE_NETWORKS = env_bool(
    "CONNECTORS_ALLOW_PRIVATE_NETWORKS", default=False
)
# SQLite files a database source may open: only under these folders (none:
# SQLite sources are refused), never the app's own database.
CONNECTORS_SQLITE_DIRS = env_list("CONNECTORS_SQLITE_DIRS")
# Fernet keys for source credentials, newest first (older ones still
# decrypt: rotation). Unset: one key derived from SECRET_KEY.
CONNECTORS_SECRET_KEYS = env_list("CONNECTORS_SECRET_KEYS")
CONNECTORS_FETCH_MAX_BYTES = env_int(
    "CONNECTORS_FETCH_MAX_BYTES", default=10 * 1024 * 1024
)
CONNECTORS_FETCH_TIMEOUT_S = env_float("CONNECTORS_FETCH_TIMEOUT_S", default=15.0)
CONNECTORS_QUERY_TIMEOUT_S = env_float("CONNECTORS_QUERY_TIMEOUT_S", default=120.0)
CONNECTORS_MAX_CHANNEL_MESSAGES = env_int(
    "CONNECTORS_MAX_CHANNEL_MESSAGES", default=100_000
)
CONNECTORS_STALE_AFTER_S = env_float("CONNECTORS_STALE_AFTER_S", default=60.0)
CHUNK_OVERLAP_CHARS = env_int("CHUNK_OVERLAP_CHARS", default=150)

# ---------------------------------------------------------------- celery
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", default="")
# No broker configured: run tasks in-process so `make run` works on a fresh machine.
CELERY_TASK_ALWAYS_EAGER = env_bool(
    "CELERY_TASK_ALWAYS_EAGER", default=not CELERY_BROKER_URL
)
CELERY_BROKER_URL = CELERY_BROKER_URL or "memory://"
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
# Ack after the task returns, so a killed worker's message is redelivered.
# Every task is idempotent (see each tasks.py docstring); the attempt counter on
# the row stops a poison file from looping (celery discussion #8969).
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", default=240)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", default=300)
CELERY_WORKER_MAX_MEMORY_PER_CHILD = env_int(
    "CELERY_WORKER_MAX_MEMORY_PER_CHILD", default=512_000
)  # KiB
# The Redis visibility timeout must exceed the hard limit (twice, for margin)
# and be set in every place Celery reads it (celery/celery#7651).
_VISIBILITY_TIMEOUT = env_int(
    "CELERY_VISIBILITY_TIMEOUT", default=2 * CELERY_TASK_TIME_LIMIT
)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": _VISIBILITY_TIMEOUT,
    # Queues are read in the order the worker lists them: interactive first.
    "queue_order_strategy": "priority",
    "socket_connect_timeout": 2,
}
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {"visibility_timeout": _VISIBILITY_TIMEOUT}
CELERY_VISIBILITY_TIMEOUT = _VISIBILITY_TIMEOUT
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Deploys (CEL-11): `make worker` maps SIGTERM to a cold shutdown; running
# tasks get this long to finish, then their messages go back to the queue
# ("Restoring N unacknowledged message(s)") for the next worker.
CELERY_WORKER_SOFT_SHUTDOWN_TIMEOUT = env_float(
    "CELERY_WORKER_SOFT_SHUTDOWN_TIMEOUT", default=10.0
)
CELERY_TASK_TRACK_STARTED = True
# Two queues, interactive before bulk (lib/worker/queues.py); a worker without
# -Q serves both, in that order. The prefix keeps test runs apart.
CELERY_QUEUE_PREFIX = env_str("CELERY_QUEUE_PREFIX", default="")
CELERY_TASK_DEFAULT_QUEUE = CELERY_QUEUE_PREFIX + "bulk"
CELERY_TASK_QUEUES = tuple(
    Queue(name, Exchange(name), routing_key=name)
    for name in (CELERY_QUEUE_PREFIX + "interactive", CELERY_QUEUE_PREFIX + "bulk")
)
CELERY_TASK_ROUTES = ("lib.worker.queues.route_task",)
# A broker that cannot be reached: a publish gives up after about a second
# (the caller keeps the row for a sweep) instead of holding a request.
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 2,
    "interval_start": 0,
    "interval_step": 0.3,
    "interval_max": 0.5,
}
# A queued document still waiting after this long has outlived any message the
# broker keeps for it (the visibility timeout): the sweep sends it again.
INGEST_REQUEUE_AFTER_S = env_float(
    "INGEST_REQUEUE_AFTER_S", default=_VISIBILITY_TIMEOUT + 60.0
)
# Sweeps (lib/worker/beat.py) run inside beat, which `make worker` starts with the
# worker: every CELERY_SWEEP_S seconds, stranded work is queued again.
CELERY_SWEEP_S = env_float("CELERY_SWEEP_S", default=30.0)
CELERY_BEAT_SCHEDULER = "lib.worker.beat:SweepScheduler"
# Touched every 10 s by a consuming worker and by a ticking beat, for health
# checks (lib/worker/liveness.py); empty: off.
CELERY_WORKER_ALIVE_FILE = env_str("CELERY_WORKER_ALIVE_FILE")
CELERY_BEAT_ALIVE_FILE = env_str("CELERY_BEAT_ALIVE_FILE")

# ---------------------------------------------------------------- models (OpenAI-compatible)
LLM_BASE_URL = env_str("LLM_BASE_URL")
LLM_API_KEY = env_str("LLM_API_KEY")
LLM_MODEL = env_str("LLM_MODEL", default="")
LLM_TIMEOUT_S = env_float("LLM_TIMEOUT_S", default=60.0)
LLM_MAX_RETRIES = env_int("LLM_MAX_RETRIES", default=2)
# Sent with every request; a reply cut at it is an error, never an answer.
LLM_MAX_TOKENS = env_int("LLM_MAX_TOKENS", default=1024)
# "none": leave it to the server (some reasoning models refuse any value).
LLM_TEMPERATURE = (
    None
    if env_str("LLM_TEMPERATURE").strip().lower() == "none"
    else env_float("LLM_TEMPERATURE", default=0.0)
)
# The model's context window: prompts (whole documents) are sized to it.
LLM_CONTEXT_TOKENS = env_int("LLM_CONTEXT_TOKENS", default=32768)
# Requests in flight per model server from one process; 0: ask the server
# (llama.cpp says how many slots it has), else 8.
LLM_PARALLEL = env_int("LLM_PARALLEL", default=0)
LLM_JUDGE_MODEL = env_str("LLM_JUDGE_MODEL")
LLM_ENSEMBLE_MODELS = env_list("LLM_ENSEMBLE_MODELS")
LLM_ENSEMBLE_QUORUM = env_int("LLM_ENSEMBLE_QUORUM", default=2)
# USD per 1M tokens (prompt, completion), by model name; unknown models cost 0.
LLM_PRICES = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-mini": (0.40, 1.60),
}
RETRIEVAL_TOP_K = env_int("RETRIEVAL_TOP_K", default=6)

# ---------------------------------------------------------------- embeddings and search
# EMBEDDINGS: "" = the server below when EMBEDDINGS_BASE_URL is set, else the
# offline WordLlama model; "off" = full-text search only (see llm/embeddings.py).
EMBEDDINGS = env_str("EMBEDDINGS")
EMBEDDINGS_BASE_URL = env_str("EMBEDDINGS_BASE_URL")
EMBEDDINGS_API_KEY = env_str("EMBEDDINGS_API_KEY")
EMBEDDINGS_MODEL = env_str("EMBEDDINGS_MODEL")
EMBEDDINGS_DIM = env_int("EMBEDDINGS_DIM", default=0)  # 0: the server's own
EMBEDDINGS_TIMEOUT_S = env_float("EMBEDDINGS_TIMEOUT_S", default=10.0)
EMBEDDINGS_MAX_RETRIES = env_int("EMBEDDINGS_MAX_RETRIES", default=1)
EMBEDDINGS_BATCH_SIZE = env_int("EMBEDDINGS_BATCH_SIZE", default=64)
EMBEDDINGS_COOLDOWN_S = env_float("EMBEDDINGS_COOLDOWN_S", default=30.0)
# fts | dense | hybrid (ingest/search/_fusion.py); weights measured on CUAD by
# bench/retrieval_eval.py.
SEARCH_MODE = env_str("SEARCH_MODE", default="hybrid")
SEARCH_DENSE_WEIGHT = env_float("SEARCH_DENSE_WEIGHT", default=0.1)
SEARCH_RRF_K = env_int("SEARCH_RRF_K", default=10)
# In-process vector cache per worker process, across tenants.
SEARCH_VECTOR_CACHE_MB = env_int("SEARCH_VECTOR_CACHE_MB", default=512)
TABULAR_CONCURRENCY = env_int("TABULAR_CONCURRENCY", default=8)
# With a model, a document that fits the context is asked this many of a
# review's columns in one call (tabular.model_reading): the document is sent
# once per row instead of once per cell.
TABULAR_COLUMNS_PER_CALL = env_int("TABULAR_COLUMNS_PER_CALL", default=4)
# A review task works this long, then queues its continuation (within the
# Celery time limits); cells already done are never redone.
TABULAR_SLICE_S = env_int("TABULAR_SLICE_S", default=150)
# A running review whose heartbeat is older than this lost its worker (the
# run task renews it every TABULAR_HEARTBEAT_S whatever its cells are doing).
TABULAR_HEARTBEAT_S = env_float("TABULAR_HEARTBEAT_S", default=10.0)
TABULAR_STALE_AFTER_S = env_float(
    "TABULAR_STALE_AFTER_S", default=max(3 * TABULAR_HEARTBEAT_S, 60.0)
)

# ---------------------------------------------------------------- REST
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.auth.ApiKeyAuthentication",
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.UserRateThrottle",
        "rest_framework.throttling.AnonRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "user": env_str("API_THROTTLE_USER", default="6000/min"),
        "anon": env_str("API_THROTTLE_ANON", default="120/min"),
    },
    "EXCEPTION_HANDLER": "docuiq.api.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "DocuIQ API",
    "DESCRIPTION": "Documents, search, chat and verified citations.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # The docs page loads its assets from our origin: the CSP allows no other,
    # and the machines have no internet.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Several models have a `status`; name each choice set after its model.
    "ENUM_NAME_OVERRIDES": {
        "DocumentStatusEnum": "ingest.models.Document.Status",
        "MessageStatusEnum": "chat.models.Message.Status",
        "VerificationStatusEnum": "citations.models.Status",
        "ReviewStatusEnum": "tabular.models.Review.Status",
        "CellStatusEnum": "tabular.models.Cell.Status",
        "QuestionStatusEnum": "chat.asking.QUESTION_STATES",
        "SourceKindEnum": "ingest.models.Source.Kind",
        "SourceStatusEnum": "ingest.models.Source.Status",
        "SourceExportKindEnum": "ingest.source_kinds.EXPORT_CHOICES",
        "FindingKindEnum": "playbook.findings.KINDS",
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", default="INFO")},
    "loggers": {
        "pdfminer": {"level": "ERROR"},
        "httpx": {"level": "WARNING"},
        "httpx2": {"level": "WARNING"},
        "celery": {"level": env_str("CELERY_LOG_LEVEL", default="WARNING")},
        "kombu": {"level": "ERROR"},
    },
}

CELERY_BEAT_SCHEDULE = {
    # Re-queue uploads made while the broker was down, lost with the broker's
    # queues, or lost with a worker.
    "sweep-documents": {
        "task": "ingest.tasks.sweep_documents",
        "schedule": CELERY_SWEEP_S,
    },
    # Re-queue tabular reviews whose worker vanished (their heartbeat went stale).
    "sweep-reviews": {
        "task": "tabular.tasks.sweep_reviews",
        "schedule": CELERY_SWEEP_S,
    },
    # Re-send questions asked with ask/async whose message is gone.
    "sweep-questions": {
        "task": "chat.tasks.sweep_questions",
        "schedule": CELERY_SWEEP_S,
    },
    # Sources due for their scheduled sync, and syncs whose worker vanished.
    "sweep-sources": {
        "task": "ingest.tasks.sweep_sources",
        "schedule": CELERY_SWEEP_S,
    },
    # Citations still pending: their verification message was lost.
    "sweep-citations": {
        "task": "citations.tasks.sweep_citations",
        "schedule": CELERY_SWEEP_S,
    },
}
# A citation still pending this long after it was stored is queued for
# verification again (citations/sweeps.py), at most once per this interval.
CITATIONS_PENDING_AFTER_S = env_float("CITATIONS_PENDING_AFTER_S", default=120.0)
# A question asked asynchronously and still unanswered after this long is
# sent again (longer than a model call with its retries can take).
CHAT_ASK_REQUEUE_AFTER_S = env_float("CHAT_ASK_REQUEUE_AFTER_S", default=300.0)
