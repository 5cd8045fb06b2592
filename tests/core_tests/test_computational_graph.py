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
    # Chainer's default styles: filled grey octagons for variables, blue records for functions.
    assert f'{id(x.node)} [label="x: (2, 3), float32",shape="octagon",fillcolor="#E0E0E0",style="filled"];' in dot
    assert 'label="Tanh"' in dot and 'fillcolor="#6495ED"' in dot
    edges = re.findall(r"^(\d+) -> (\d+);$", dot, re.M)
    assert len(edges) == 6


def test_options():
    _, _, y = _graph()
    dot = c.build_computational_graph([y], remove_variable=True, rankdir="LR", show_name=False).dump()
    assert "rankdir=LR" in dot and "octagon" not in dot
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


def test_style_label_replaces_the_node_label_and_dot_node():
    x, _, y = _graph()
    dot = c.build_computational_graph([y], variable_style={"label": "v"}, function_style=None).dump()
    assert 'label="v"' in dot and 'label="x: (2, 3), float32"' not in dot
    assert 'label="Tanh",shape="box"' in dot  # no style: a plain box
    node = c.DotNode(x.node, {"color": "red"})
    assert node.id_ == id(x.node)
    assert node.attribute == {"label": "x: (2, 3), float32", "shape": "oval", "color": "red"}
    assert node.label == f'{id(x.node)} [label="x: (2, 3), float32",shape="oval",color="red"];'
