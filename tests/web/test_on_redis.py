"""The shared cache's tests again, with the render cache on a real redis-server (the tests' own, on
a free port): renders and refusals, pages and their ETags, the review write limit and comment cap
as several web workers see them. The same tests run on the file cache in their own modules."""

import pytest
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.test import override_settings

from inspector.rendering import cache as render_cache
from tests.api.test_review import (  # noqa: F401 - fixtures and tests collected again here
    suite,
    test_limits_on_size_count_and_rate_answer_clear_messages,
    test_the_write_limit_is_counted_once_for_every_web_worker,
    test_x_forwarded_for_names_the_client_only_behind_the_configured_proxies,
)
from tests.web.test_page_cache import *  # noqa: F403 - every page cache test, on Redis
from tests.web.test_render_cache import (  # noqa: F401 - the tests about what is kept
    counted_renders,
    test_a_refusal_is_cached_so_views_of_a_poisoned_bundle_do_not_parse_again,
    test_a_render_is_cached_per_settings,
    test_a_render_larger_than_an_eighth_of_the_budget_is_not_cached,
    test_an_upload_kept_in_the_cache_reads_back_as_its_render,
)


@pytest.fixture(autouse=True)
def renders_on_redis(redis_url):
    caches_on_redis = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
        "renders": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis_url,
            "TIMEOUT": None,
        },
    }
    with override_settings(CACHES=caches_on_redis):
        render_cache.clear()  # also this process's recent pages, kept from the file cache
        yield
        caches["renders"].clear()


def test_the_render_cache_is_the_redis_server(redis_url):
    assert isinstance(caches["renders"], RedisCache)
    name = render_cache.key("render", "bundle", "evals/suite.yaml")
    render_cache.put(name, {"cases": ["a", "b"]})
    # Another worker's client of the same server reads it back.
    other = caches.create_connection("renders")
    assert other.get(name) is not None and render_cache.get(name) == {"cases": ["a", "b"]}
