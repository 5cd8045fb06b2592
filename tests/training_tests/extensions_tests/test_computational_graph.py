"""DumpGraph: the dot file of the first iteration's loss."""

import re

import pytest
from _training_testlib import make_trainer, save_and_load

import chainer
from chainer.training import extensions


def test_dot_file(tmp_path):
    trainer = make_trainer(tmp_path, stop=(3, "iteration"))
    ext = extensions.DumpGraph("main/loss")
    trainer.extend(ext)
    assert chainer.config.keep_graph_on_report is False
    kept_graph = []
    trainer.extend(
        lambda t: kept_graph.append(t.observation["main/loss"].creator is not None),
        name="probe",
        priority=extensions.DumpGraph.priority + 1,
    )
    trainer.run()
    dot = (tmp_path / "result" / "cg.dot").read_text()
    assert dot.startswith("digraph")
    assert "LinearFunction" in dot and "ReLU" in dot
    assert '"octagon"' in dot and '"record"' in dot and "#6495ED" in dot
    # One edge per arrow: the graph of an MLP has at least a dozen.
    assert len(re.findall(r"->", dot)) >= 12
    # keep_graph_on_report was on during the first iteration only.
    assert kept_graph == [True, False, False]
    assert chainer.config.keep_graph_on_report is False


def test_custom_file_and_styles(tmp_path):
    trainer = make_trainer(tmp_path, stop=(1, "iteration"))
    trainer.extend(extensions.DumpGraph("main/loss", out_name="g.dot", variable_style={"shape": "box"}))
    trainer.run()
    dot = (tmp_path / "result" / "g.dot").read_text()
    assert '"box"' in dot and "octagon" not in dot


def test_missing_root(tmp_path):
    trainer = make_trainer(tmp_path, stop=(1, "iteration"))
    trainer.extend(extensions.DumpGraph("main/nothing"))
    with pytest.raises(KeyError, match="'main/nothing' was not reported"):
        trainer.run(show_loop_exception_msg=False)
    assert chainer.config.keep_graph_on_report is False


def test_written_once_and_serialized(tmp_path):
    ext = extensions.DumpGraph("main/loss")
    ext._flag_called = True
    resumed = extensions.DumpGraph("main/loss")
    save_and_load(ext, resumed)
    assert resumed.trigger(None) is False


def test_snapshot_keys_are_those_chainer_7_reads(tmp_path):
    """Chainer 7's DumpGraph reads _flag_called and _original_flag (the
    keep_graph_on_report setting to restore, a bool) from a snapshot: both are written,
    so that a trainer snapshot of ours resumes there."""
    trainer = make_trainer(tmp_path, stop=(2, "iteration"))
    trainer.extend(extensions.DumpGraph("main/loss"))
    trainer.run()
    target = chainer.serializers.DictionarySerializer()
    trainer.serialize(target)
    keys = {key: value for key, value in target.target.items() if key.startswith("extensions/dump_graph/")}
    assert sorted(keys) == ["extensions/dump_graph/_flag_called", "extensions/dump_graph/_original_flag"]
    assert keys["extensions/dump_graph/_original_flag"].dtype == bool
    assert not keys["extensions/dump_graph/_original_flag"]  # keep_graph_on_report was off


def test_is_return_code_zero():
    import sys

    from chainer.training.extensions import computational_graph

    assert computational_graph.is_return_code_zero([sys.executable, "-c", "pass"]) is True
    assert computational_graph.is_return_code_zero([sys.executable, "-c", "raise SystemExit(3)"]) is False
    assert computational_graph.is_return_code_zero(["no-such-program-for-this-test"]) is False


def test_png_is_rendered_when_graphviz_is_installed(tmp_path, monkeypatch):
    # A stand-in `dot` on PATH: answers -V, and for -Tpng writes the -o file with the
    # input's first line, so the test sees which file it was given.
    import os
    import stat
    import sys

    from chainer.training.extensions import computational_graph

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "dot"
    fake.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        "args = sys.argv[1:]\n"
        "if args == ['-V']:\n"
        "    raise SystemExit(0)\n"
        "src, out = args[1], args[args.index('-o') + 1]\n"
        "open(out, 'w').write('PNG of ' + open(src).readline())\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(bin_dir))
    assert computational_graph.is_graphviz_available()
    trainer = make_trainer(tmp_path, stop=(1, "iteration"))
    trainer.extend(extensions.DumpGraph("main/loss", filename="graph.dot"))
    trainer.run()
    assert (tmp_path / "result" / "graph.png").read_text().startswith("PNG of digraph")
    assert sorted(os.listdir(tmp_path / "result")) == ["graph.dot", "graph.png"]
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert not computational_graph.is_graphviz_available()
