"""Why a file is a guideline (issue 30, friction 1): the pattern and the config line that made it
one, as the CLI and the API give it (the case page's wording: tests/web/test_new_user_round_two.py)."""

import json

from tests.api.test_review import FILES


def test_render_names_each_guideline_files_pattern_and_its_line(tmp_path):
    import io

    from inspector.cli.commands import main
    from inspector.cli.console import Output

    (tmp_path / ".git").mkdir()
    for path, data in FILES.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    printed = io.StringIO()
    assert main("render", [str(tmp_path / "evals/suite.yaml")], Output(printed, io.StringIO())) == 0
    first = json.loads(printed.getvalue())[0]
    assert first["guidelines"] == [
        {
            "path": "evals/rules.instructions.md",
            "pattern": "**/*.instructions.md",
            "source": ".agentv/config.yaml",
            "line": 2,
        }
    ]
    printed = io.StringIO()
    main(
        "render",
        [str(tmp_path / "evals/suite.yaml"), "--patterns", "evals/rules.*"],
        Output(printed, io.StringIO()),
    )
    assert json.loads(printed.getvalue())[0]["guidelines"] == [
        {"path": "evals/rules.instructions.md", "pattern": "evals/rules.*", "source": None, "line": None}
    ]


def test_the_api_gives_the_same_reasons(client, db):
    files = {path: data.decode() for path, data in FILES.items()}
    response = client.post(
        "/api/render", {"files": files, "path": "evals/suite.yaml"}, content_type="application/json"
    )
    assert response.status_code == 200
    assert response.json()["cases"][0]["guidelines"] == [
        {
            "path": "evals/rules.instructions.md",
            "pattern": "**/*.instructions.md",
            "source": ".agentv/config.yaml",
            "line": 2,
        }
    ]
