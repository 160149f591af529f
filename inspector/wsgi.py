import os

from django.core.exceptions import ImproperlyConfigured
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "inspector.settings")
application = get_wsgi_application()


def _refuse_the_built_in_key() -> None:
    from django.conf import settings

    if not settings.DEBUG and settings.SECRET_KEY == settings.DEVELOPMENT_SECRET_KEY:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set: refusing to serve with the built-in development key. Set "
            "SECRET_KEY (see the README's Production section), or DEBUG=true on a laptop."
        )


_refuse_the_built_in_key()

from inspector.rendering.warmup import warm_up  # noqa: E402 - needs the settings configured above

warm_up()
