def test_home_page_lists_examples(client, db):
    from inspector.bundles.examples import load_examples

    load_examples()
    response = client.get("/")
    assert response.status_code == 200
    assert b"Code review eval" in response.content
