"""``DumpGraph``: writes the computational graph of a reported variable as Graphviz dot."""

from __future__ import annotations

import os
import subprocess
import warnings
from collections.abc import Sequence
from typing import Any

from chainer import computational_graph, configuration, variable
from chainer.training import _util
from chainer.training import extension as extension_module

_VARIABLE_STYLE = {"shape": "octagon", "fillcolor": "#E0E0E0", "style": "filled"}
_FUNCTION_STYLE = {"shape": "record", "fillcolor": "#6495ED", "style": "filled"}


def is_return_code_zero(args: Sequence[str]) -> bool:
    """Whether the command ``args`` runs and exits with status 0 (its output is discarded).

    Returns ``False`` also when the program does not exist.
    """
    try:
        completed = subprocess.run(list(args), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    except OSError:
        return False
    return completed.returncode == 0


def is_graphviz_available() -> bool:
    """Whether Graphviz's ``dot`` command can be run."""
    return is_return_code_zero(["dot", "-V"])


class DumpGraph(extension_module.Extension):
    """Trainer extension to dump a computational graph.

    At the first iteration it takes the variable reported as ``root_name`` (e.g.
    ``'main/loss'``), builds its computational graph with
    :func:`chainer.computational_graph.build_computational_graph` and writes it in
    Graphviz's dot format to ``<trainer.out>/<filename>``. Where Graphviz's ``dot``
    command is installed, the graph is also rendered to a PNG beside it (``cg.png``).
    To keep the graph of the reported variable,
    ``chainer.config.keep_graph_on_report`` is turned on from the start of training
    until the graph is written.

    Args:
        root_name: The observation key of the variable (``'main/loss'``).
        filename: The output file (``'cg.dot'``); ``out_name`` is its older keyword name.
        variable_style: Graphviz attributes of variable nodes.
        function_style: Graphviz attributes of function nodes.

    Example:
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
        >>> trainer.extend(extensions.DumpGraph('main/loss'))
        >>> trainer.run()
        >>> import os
        >>> os.listdir('result')
        ['cg.dot']
    """

    default_name = "dump_graph"  # type: ignore[assignment]
    priority = extension_module.PRIORITY_WRITER + 1

    def __init__(
        self,
        root_name: str,
        filename: str | None = None,
        variable_style: Any = None,
        function_style: Any = None,
        **kwargs: Any,
    ) -> None:
        out_name = kwargs.pop("out_name", "cg.dot")
        if kwargs:
            names = ", ".join(repr(k) for k in sorted(kwargs))
            raise TypeError(f"DumpGraph() got unexpected keyword argument(s) {names}")
        if not isinstance(root_name, str):
            raise TypeError(f"DumpGraph: root_name must be an observation key, got {type(root_name).__name__}")
        self._root_name = root_name
        self._filename = out_name if filename is None else filename
        self._variable_style = _VARIABLE_STYLE if variable_style is None else variable_style
        self._function_style = _FUNCTION_STYLE if function_style is None else function_style
        self._original_flag: bool | None = None
        self._flag_called = False

    def initialize(self, trainer: Any) -> None:
        if not self._flag_called:
            self._original_flag = configuration.config.keep_graph_on_report
            configuration.config.keep_graph_on_report = True

    def trigger(self, trainer: Any) -> bool:  # type: ignore[override]
        """Fire until the graph has been written."""
        return not self._flag_called

    def _restore_flag(self) -> None:
        if self._original_flag is not None:
            configuration.config.keep_graph_on_report = self._original_flag
            self._original_flag = None

    def __call__(self, trainer: Any) -> None:
        if self._flag_called:
            return
        try:
            if self._root_name not in trainer.observation:
                raise KeyError(
                    f"DumpGraph: {self._root_name!r} was not reported in the first iteration (reported: "
                    f"{sorted(trainer.observation)})"
                )
            var = trainer.observation[self._root_name]
            if not isinstance(var, variable.Variable):
                raise TypeError(
                    f"DumpGraph: the value reported as {self._root_name!r} must be a Variable, got {type(var).__name__}"
                )
            graph = computational_graph.build_computational_graph(
                [var], variable_style=self._variable_style, function_style=self._function_style
            )
            path = os.path.join(trainer.out, self._filename)
            _util.write_text_atomically(path, graph.dump())
            if is_graphviz_available():
                self._render_png(path)
        finally:
            self._restore_flag()
            self._flag_called = True

    @staticmethod
    def _render_png(dot_path: str) -> None:
        png_path = os.path.splitext(dot_path)[0] + ".png"
        completed = subprocess.run(
            ["dot", "-Tpng", dot_path, "-o", png_path], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False
        )
        if completed.returncode != 0:
            message = completed.stderr.decode(errors="replace").strip()
            warnings.warn(f"DumpGraph: Graphviz could not render {dot_path} to PNG: {message}", stacklevel=3)

    def finalize(self, trainer: Any = None) -> None:
        """Restore ``keep_graph_on_report`` if training ended before the graph was written."""
        self._restore_flag()

    def serialize(self, serializer: Any) -> None:
        """Save or load whether the graph has been written (key ``_flag_called``) and the
        ``keep_graph_on_report`` setting to restore (``_original_flag``; Chainer 7 reads
        both keys, so a snapshot of ours loads there)."""
        if not _util.is_loading(serializer):
            # Written for Chainer 7 only: ours reads the setting again when training starts.
            original = self._original_flag
            if original is None:  # already restored, or not started: the setting as it is
                original = bool(configuration.config.keep_graph_on_report)
            serializer("_original_flag", original)
        called = serializer("_flag_called", self._flag_called)
        if not _util.is_validating(serializer):
            self._flag_called = bool(called)


#: The name of :class:`DumpGraph` before Chainer 7 made it a class; still supported.
dump_graph = DumpGraph

__all__ = ["DumpGraph", "dump_graph", "is_graphviz_available", "is_return_code_zero"]
