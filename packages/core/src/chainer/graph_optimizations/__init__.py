"""Static subgraph optimisation: :func:`~chainer.static_graph` records what a chain's
forward applies on its first call and replays it afterwards, without the Python code
around the functions."""

from chainer.graph_optimizations._schedule import StaticScheduleFunction
from chainer.graph_optimizations.static_graph import ScheduleManager, static_graph
from chainer.graph_optimizations.static_graph_utilities import static_code

__all__ = ["ScheduleManager", "StaticScheduleFunction", "static_code", "static_graph"]
