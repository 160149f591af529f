"""The attacks of issue 27 in a real Chromium: a page of another origin on the same host (the other
name of this server) posts to the API with the victim's cookies, as a no-cors text/plain fetch
and as JSON; and an old manage link opens the manage page without putting its token in a further
address or leaving it in the address bar."""

from urllib.parse import urlsplit

import pytest

from inspector.bundles.ingest import store_bundle
from inspector.review import service
from inspector.review.models import Comment, Thread
from tests.api.test_review import FILES

pytestmark = pytest.mark.browser


@pytest.fixture
def suite(transactional_db):
    return store_bundle(FILES, title="suite")


def other_origin(url: str) -> str:
    """The same server under its other name: another origin to the browser."""
    parts = urlsplit(url)
    other = "127.0.0.1" if parts.hostname == "localhost" else "localhost"
    return f"{parts.scheme}://{other}:{parts.port}"


def test_a_page_of_another_origin_cannot_write_as_the_visitor(page, live_server, suite):
    bundle, _ = suite
    victim = live_server.url
    thread = Thread.objects.create(
        bundle=bundle,
        kind="line",
        path="evals/suite.yaml",
        start_line=1,
        end_line=1,
        quote="q",
        quote_hash="h",
        family=bundle.pk,
        author_key_hash=service.hash_token("v" * 32),
    )
    Comment.objects.create(
        thread=thread,
        author="Victim",
        body="mine",
        html="<p>mine</p>",
        author_key_hash=thread.author_key_hash,
    )
    page.context.add_cookies([{"name": service.KEY_COOKIE, "value": "v" * 32, "url": victim}])
    # The attacker's page: no CSP of this app's stands in its way.
    attacker = other_origin(victim) + "/attacker.html"
    page.route(
        attacker,
        lambda route: route.fulfill(
            status=200, content_type="text/html", body="<!doctype html><title>elsewhere</title>"
        ),
    )
    # The attack of the issue: a page on the same host, so Chromium's local network check allows it.
    page.context.grant_permissions(["local-network-access"], origin=other_origin(victim))
    page.goto(attacker)
    answers = []
    page.on("response", lambda response: "/api/" in response.url and answers.append(response.status))
    target = f"{victim}/api/bundles/{bundle.pk}/threads/{thread.pk}"
    page.evaluate(
        """async ([target]) => {
      const attempts = [
        [target + '/comments', {method: 'POST', mode: 'no-cors', credentials: 'include',
          headers: {'Content-Type': 'text/plain'}, body: JSON.stringify({body: 'as the victim'})}],
        [target + '/resolve', {method: 'POST', mode: 'no-cors', credentials: 'include',
          headers: {'Content-Type': 'text/plain'}, body: JSON.stringify({resolved: true})}],
        [target + '/comments', {method: 'POST', credentials: 'include',
          headers: {'Content-Type': 'application/json'}, body: JSON.stringify({body: 'as the victim'})}],
      ];
      for (const [url, options] of attempts) {
        try { await fetch(url, options); } catch (error) { /* CORS hides the answer */ }
      }
    }""",
        [target],
    )
    thread.refresh_from_db()
    assert Comment.objects.count() == 1 and not thread.resolved
    assert answers.count(403) >= 2  # the requests reached the server, which refused them


def test_an_old_manage_link_opens_the_page_without_a_further_address_holding_the_token(
    page, live_server, suite
):
    bundle, token = suite
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(f"{live_server.url}/b/{bundle.pk}/manage/{token}/")
    page.wait_for_selector("#delete-bundle")
    assert token not in page.url
    assert [url for url in requested if token in url] == [f"{live_server.url}/b/{bundle.pk}/manage/{token}/"]
