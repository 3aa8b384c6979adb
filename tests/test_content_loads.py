"""The bundled content parses, builds and checks with no diagnostics."""

from lastbreath.dsl import load_content


def test_bundled_content_loads_clean():
    rs, diags = load_content()
    assert [d.format() for d in diags] == []
    assert rs is not None
    assert "big-bad-wolf" in rs.killers
    assert "storybook-woods" in rs.scenarios


def test_a_node_shows_itself_as_attrs_would():
    """Node.__repr__ (one for every node class) keeps attrs' form: Kind(field=value, …), nested."""
    from lastbreath.dsl import nodes as n

    sp = n.Span("<t>", 1, 2, 1, 9)
    inner = n.FgAtTag(sp, "shed")
    assert repr(inner) == f"FgAtTag(span={sp!r}, tag='shed')"
    assert repr(n.Not(sp, inner)) == f"Not(span={sp!r}, cond={inner!r})"
