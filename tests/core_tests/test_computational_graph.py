import re

import numpy as np
import pytest

import chainer
import chainer.functions as F
from chainer import computational_graph as c


def _graph():
    x = chainer.Variable(np.ones((2, 3), np.float32), name="x")
    h = F.tanh(x)
    y = F.sum(h * 2)
    return x, h, y


def test_nodes_and_edges_are_backward_reachable():
    x, h, y = _graph()
    g = c.build_computational_graph([y])
    labels = sorted(n.label for n in g.nodes)
    assert labels == sorted(
        ["Sum", "_ * 2", "Tanh", "(2, 3), float32", "(2, 3), float32", "(2, 3), float32", "float32"]
    )
    assert len(g.edges) == 6
    assert (x.node, h.creator) in g.edges


def test_dot_output():
    x, _, y = _graph()
    dot = c.build_computational_graph(y).dump()
    assert dot.startswith("digraph graphname{rankdir=TB;")
    assert dot.rstrip().endswith("}")
    assert f'{id(x.node)} [shape="oval",label="x: (2, 3), float32"];' in dot
    assert 'label="Tanh"' in dot and 'fillcolor="#6495ED"' in dot
    edges = re.findall(r"^(\d+) -> (\d+);$", dot, re.M)
    assert len(edges) == 6


def test_options():
    _, _, y = _graph()
    dot = c.build_computational_graph([y], remove_variable=True, rankdir="LR", show_name=False).dump()
    assert "rankdir=LR" in dot and "oval" not in dot
    assert len(re.findall(r" -> ", dot)) == 2  # Tanh -> mul -> Sum
    styled = c.build_computational_graph(
        [y], variable_style={"shape": "box"}, function_style={"shape": "circle"}
    ).dump()
    assert 'shape="box"' in styled and 'shape="circle"' in styled
    with pytest.raises(ValueError, match="rankdir"):
        c.build_computational_graph([y], rankdir="XX")
    with pytest.raises(NotImplementedError, match="only format='dot'"):
        c.build_computational_graph([y]).dump("png")
    with pytest.raises(TypeError, match="outputs must be a Variable"):
        c.build_computational_graph(3)
