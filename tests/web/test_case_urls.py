"""Case links are built from one reverse() per file: they must equal what reverse() gives for
every id and path."""

from django.urls import reverse
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector import presenters

IDS = st.text(min_size=1, max_size=20)
DOCUMENTS = st.sampled_from(["evals/a.yaml", "x y/ü.yaml", "a%20b.jsonl", "deep/er/#?.toml"])


@settings(max_examples=500, deadline=None)
@given(case_id=IDS, document=DOCUMENTS)
def test_a_case_link_is_what_reverse_gives(case_id, document):
    expected = reverse("case", kwargs={"bundle_id": "b_-1", "document": document,
                                       "case_id": presenters.encode_case_id(case_id)})
    assert presenters.case_url("b_-1", document, case_id) == expected
    assert presenters.case_url("b_-1", document, case_id, "profile=spec") == expected + "?profile=spec"
