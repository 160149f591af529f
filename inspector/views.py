from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from inspector.models import Bundle


def home(request: HttpRequest) -> HttpResponse:
    examples = Bundle.objects.exclude(example="").order_by("example")
    return render(request, "home.html", {"examples": examples})
