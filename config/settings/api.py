"""The REST API (/api/) and its OpenAPI schema."""

# ── The REST API (/api/) ───────────────────────────────────────────────────────────────────────────
# Token or session login, the admin's named permissions, JSON pages of 100 rows
# by cursor with their total count (a CSV download streams every row instead).
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["api.permissions.Needs"],
    "DEFAULT_PAGINATION_CLASS": "api.pagination.CountedCursorPagination",
    "PAGE_SIZE": 100,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Stancework API",
    "DESCRIPTION": "Script jobs, results, aggregation, releases and crawls. Authenticate with "
    "`Authorization: Token <key>` (manage.py drf_create_token USER).",
    "VERSION": "1",
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SERVE_AUTHENTICATION": [],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
}
