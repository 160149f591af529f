"""Case links are built from one reverse() per file: they must equal what reverse() gives for
every id and path."""

from django.urls import reverse
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.cases import addresses

IDS = st.text(min_size=1, max_size=20)
DOCUMENTS = st.sampled_from(["evals/a.yaml", "x y/ü.yaml", "a%20b.jsonl", "deep/er/#?.toml"])


@settings(max_examples=500, deadline=None)
@given(case_id=IDS, document=DOCUMENTS)
def test_a_case_link_is_what_reverse_gives(case_id, document):
    expected = reverse(
        "case",
        kwargs={"bundle_id": "b_-1", "document": document, "case_id": addresses.encode_case_id(case_id)},
    )
    assert addresses.case_url("b_-1", document, case_id) == expected
    assert addresses.case_url("b_-1", document, case_id, "profile=spec") == expected + "?profile=spec"


@settings(max_examples=300, deadline=None)
@given(
    case_id=IDS,
    document=DOCUMENTS | st.sampled_from(["./a.yaml", "a/../b.yaml", ".x/y.yaml"]),
    root=st.sampled_from(["", "https://inspector.example.com", "https://x.example/sub/"]),
)
def test_the_api_links_every_case_as_build_absolute_uri_does(case_id, document, root):
    from django.test import RequestFactory, override_settings

    from inspector.api.common import case_urls

    request = RequestFactory().get("/api/bundles/b_-1/cases")
    with override_settings(SITE_ROOT=root):
        link = case_urls(request, "b_-1", document)(case_id)
        assert link == addresses.absolute_url(request, addresses.case_url("b_-1", document, case_id))
