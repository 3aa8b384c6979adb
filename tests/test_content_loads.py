"""The bundled content parses, builds and checks with no diagnostics."""

from lastbreath.dsl import load_content


def test_bundled_content_loads_clean():
    rs, diags = load_content()
    assert [d.format() for d in diags] == []
    assert rs is not None
    assert "big-bad-wolf" in rs.killers
    assert "storybook-woods" in rs.scenarios
