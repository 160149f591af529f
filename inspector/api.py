"""The JSON API (django-ninja). (Stub: the API issue fills this in.)"""

from ninja import NinjaAPI

api = NinjaAPI(title="Prompt Inspector API", version="1", urls_namespace="api")
