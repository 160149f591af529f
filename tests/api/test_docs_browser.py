import pytest

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.mark.browser
def test_docs_page_renders_every_operation_under_the_strict_csp(live_server):
    from playwright.sync_api import sync_playwright

    problems: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.on("console", lambda message: message.type == "error" and problems.append(message.text))
            page.on("pageerror", lambda error: problems.append(str(error)))
            page.on(
                "request",
                lambda request: (
                    request.url.startswith(live_server.url)
                    or request.url.startswith("data:")
                    or problems.append(f"off-site: {request.url}")
                ),
            )
            page.goto(f"{live_server.url}/api/docs")
            page.wait_for_selector(".opblock-summary-path", timeout=15_000)
            paths = page.locator(".opblock-summary-path").all_inner_texts()
        finally:
            browser.close()
    assert any("/api/bundles/{bundle_id}/cases/{case_id}/payload" in path for path in paths), paths
    assert any("/api/render" in path for path in paths)
    assert problems == []
