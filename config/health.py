"""A health check for load balancers and docker-compose: is the database reachable?"""

from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse


def healthz(request: HttpRequest) -> HttpResponse:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError as error:
        return HttpResponse(f"database unreachable: {error}", status=503, content_type="text/plain")
    return HttpResponse("ok", content_type="text/plain")
