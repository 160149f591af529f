from django.urls import path

from inspector import views
from inspector.api import api

urlpatterns = [
    path("", views.home, name="home"),
    path("api/", api.urls),
]
