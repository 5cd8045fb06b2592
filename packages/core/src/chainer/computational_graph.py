"""The computational graph behind some outputs, as Graphviz dot."""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Any

from chainer import function_node, variable

_DEFAULT_VARIABLE_STYLE = {"shape": "octagon", "fillcolor": "#E0E0E0", "style": "filled"}
_DEFAULT_FUNCTION_STYLE = {"shape": "record", "fillcolor": "#6495ED", "style": "filled"}


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class DotNode:
    """One node of the dot output: a variable node (an oval labelled with its shape and
    dtype, and its name with ``show_name``) or a function node (a box labelled with the
    function's label).

    Args:
        node: A :class:`~chainer.variable.VariableNode` or :class:`~chainer.FunctionNode`.
        attribute: dot attributes that override the defaults (``label`` included).
        show_name: Prefix a variable's label with its name.

    Attributes:
        id_: The node's identifier in the dot output.
        attribute: The node's dot attributes.
    """

    def __init__(self, node: Any, attribute: dict[str, Any] | None = None, show_name: bool = True) -> None:
        self.node = node
        self.id_ = id(node)
        if isinstance(node, variable.VariableNode):
            self.attribute = {"label": _variable_label(node, show_name), "shape": "oval"}
        else:
            self.attribute = {"label": node.label, "shape": "box"}
        if attribute is not None:
            self.attribute.update(attribute)

    @property
    def label(self) -> str:
        """The node's line in the dot language (Chainer's name for it)."""
        attrs = ",".join(f"{key}={_quote(str(value))}" for key, value in self.attribute.items())
        return f"{self.id_} [{attrs}];"


def _variable_label(node: variable.VariableNode, show_name: bool) -> str:
    label = node.label
    if show_name and node.name is not None:
        label = f"{node.name}: {label}"
    return label


class ComputationalGraph:
    """A graph of :class:`~chainer.variable.VariableNode` s and
    :class:`~chainer.FunctionNode` s; :meth:`dump` writes it in the dot language.

    Args:
        nodes: Variable and function nodes.
        edges: ``(source, destination)`` pairs of nodes.
        variable_style: dot attributes of variables, ``'default'``, or a callable
            ``style(node) -> dict``.
        function_style: The same for functions.
        rankdir: Graph direction: ``'TB'``, ``'BT'``, ``'LR'`` or ``'RL'``.
        remove_variable: Leave variables out (edges then connect functions).
        show_name: Prefix variable labels with their names.
    """

    def __init__(
        self,
        nodes: Iterable[Any],
        edges: Iterable[tuple[Any, Any]],
        variable_style: Any = "default",
        function_style: Any = "default",
        rankdir: str = "TB",
        remove_variable: bool = False,
        show_name: bool = True,
    ) -> None:
        if rankdir not in ("TB", "BT", "LR", "RL"):
            raise ValueError(f"ComputationalGraph: rankdir must be 'TB', 'BT', 'LR' or 'RL', got {rankdir!r}")
        self.nodes = list(nodes)
        self.edges = list(edges)
        self.variable_style = _DEFAULT_VARIABLE_STYLE if variable_style == "default" else variable_style
        self.function_style = _DEFAULT_FUNCTION_STYLE if function_style == "default" else function_style
        self.rankdir = rankdir
        self.remove_variable = remove_variable
        self.show_name = show_name

    def _style(self, style: Any, node: Any) -> dict[str, str]:
        if style is None:
            return {}
        if callable(style):
            return dict(style(node))
        return dict(style)

    def _to_dot(self) -> str:
        lines = [f"digraph graphname{{rankdir={self.rankdir};"]
        for node in self.nodes:
            if isinstance(node, variable.VariableNode):
                if self.remove_variable:
                    continue
                style = self.variable_style
            else:
                style = self.function_style
            # A style's own 'label' replaces the node's.
            lines.append(DotNode(node, self._style(style, node), self.show_name).label)
        for src, dst in self.edges:
            lines.append(f"{id(src)} -> {id(dst)};")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def dump(self, format: str = "dot") -> str:
        """The graph as text; only ``'dot'`` is supported."""
        if format != "dot":
            raise NotImplementedError(f"ComputationalGraph.dump: only format='dot' is supported, got {format!r}")
        return self._to_dot()

    def _repr_html_(self) -> str:
        return f"<pre>{html.escape(self._to_dot())}</pre>"


def build_computational_graph(
    outputs: Any,
    remove_split: bool = True,
    variable_style: Any = "default",
    function_style: Any = "default",
    rankdir: str = "TB",
    remove_variable: bool = False,
    show_name: bool = True,
) -> ComputationalGraph:
    """Build the graph of functions and variables backward-reachable from ``outputs``.

    Args:
        outputs: A :class:`~chainer.Variable`, a variable node, or a list/tuple of them.
        remove_split: Kept for compatibility (there are no split nodes any more).
        variable_style, function_style, rankdir, remove_variable, show_name: See
            :class:`ComputationalGraph`.

    Returns:
        The :class:`ComputationalGraph`.

    Example:
        >>> x = chainer.Variable(np.ones((2, 3), np.float32))
        >>> loss = F.sum(F.relu(x) * 2)
        >>> g = chainer.computational_graph.build_computational_graph([loss])
        >>> with open('graph.dot', 'w') as f:
        ...     _ = f.write(g.dump())
    """
    if isinstance(outputs, (variable.Variable, variable.VariableNode)):
        outputs = [outputs]
    if not isinstance(outputs, (list, tuple)):
        raise TypeError(
            f"build_computational_graph: outputs must be a Variable or a list/tuple of Variables, got {type(outputs).__name__}"
        )
    nodes: dict[int, Any] = {}
    edges: list[tuple[Any, Any]] = []
    seen_edges: set[tuple[int, int]] = set()

    def add_edge(src: Any, dst: Any) -> None:
        key = (id(src), id(dst))
        if key not in seen_edges:
            seen_edges.add(key)
            edges.append((src, dst))

    stack: list[Any] = []
    for out in outputs:
        if isinstance(out, variable.Variable):
            out = out.node
        elif not isinstance(out, variable.VariableNode):
            raise TypeError(f"build_computational_graph: expected Variables, got {type(out).__name__}")
        nodes[id(out)] = out
        stack.append(out)

    while stack:
        current = stack.pop()
        if isinstance(current, variable.VariableNode):
            creator = current.creator_node
            if creator is not None:
                add_edge(creator, current)
                if id(creator) not in nodes:
                    nodes[id(creator)] = creator
                    stack.append(creator)
        elif isinstance(current, function_node.FunctionNode):
            for in_node in current.inputs or ():
                add_edge(in_node, current)
                if id(in_node) not in nodes:
                    nodes[id(in_node)] = in_node
                    stack.append(in_node)

    if remove_variable:
        # Connect functions directly: f -> v -> g becomes f -> g.
        producers = {id(dst): src for src, dst in edges if isinstance(dst, variable.VariableNode)}
        function_edges = []
        seen: set[tuple[int, int]] = set()
        for src, dst in edges:
            if isinstance(src, variable.VariableNode) and id(src) in producers:
                pair = (producers[id(src)], dst)
                if (id(pair[0]), id(pair[1])) not in seen:
                    seen.add((id(pair[0]), id(pair[1])))
                    function_edges.append(pair)
        edges = function_edges

    return ComputationalGraph(
        list(nodes.values()), edges, variable_style, function_style, rankdir, remove_variable, show_name
    )
