"""ProgressBar: status with speed and ETA, on a terminal and in a plain file."""

import io
import re

import pytest

from chainer import testing
from chainer.training import extensions


class TTY(io.StringIO):
    def isatty(self):
        return True


def run(out, stop=(20, "iteration"), interval=5, n=20, **kwargs):
    trainer = testing.get_trainer_with_mock_updater(stop, iter_per_epoch=10)
    trainer.out = "unused"
    bar = extensions.ProgressBar(update_interval=interval, out=out, **kwargs)
    bar.initialize(trainer)
    for _ in range(n):
        trainer.updater.update()
        bar(trainer)
    bar.finalize(trainer)
    return out.getvalue()


def test_plain_file_gets_one_line_per_update():
    text = run(io.StringIO())
    lines = text.splitlines()
    assert len(lines) == 4  # iterations 5, 10, 15, 20
    assert "\033" not in text
    # The percentage padded to six characters with its sign, as Chainer 7 prints it.
    assert lines[0].startswith("total [" + "#" * 12 + "." * 38 + "] 25.00%")
    assert "this epoch [" + "#" * 25 + "." * 25 + "] 50.00%" in lines[0]
    assert "5 iter, 0 epoch / 20 iterations" in lines[0]
    assert re.search(r"iters/sec\. Estimated time to finish: \d+:\d\d:\d\d", lines[0])
    assert "] 100.00%" in lines[3]


def test_terminal_redraws_in_place():
    text = run(TTY(), interval=10)
    draws = text.split("\033[J")
    assert len(draws) == 4  # two draws, then the final erase
    assert "\033[4A" in draws[1]
    assert draws[-1] == ""


def test_epoch_length_and_explicit_training_length():
    text = run(io.StringIO(), stop=(2, "epoch"), interval=10)
    assert "10 iter, 1 epoch / 2 epochs" in text.splitlines()[0]
    text = run(io.StringIO(), training_length=(40, "iteration"), interval=20, n=40)
    assert "20 iter, 2 epoch / 40 iterations" in text.splitlines()[0]


def test_without_training_length():
    text = run(io.StringIO(), stop=None, interval=10)
    assert "total" not in text and "10 iter, 1 epoch |" in text


@pytest.mark.parametrize(
    "kwargs,error",
    [({"training_length": (3, "epochs")}, ValueError), ({"update_interval": 0}, ValueError), ({"out": 3}, TypeError)],
)
def test_bad_arguments(kwargs, error):
    with pytest.raises(error, match="ProgressBar"):
        extensions.ProgressBar(**kwargs)


def test_terminal_lines_as_chainer_7_draws_them():
    """The four lines of a draw: both bars (the percentage padded to six characters),
    the counts right-aligned in ten, the speed in ten with the time to finish."""
    draw = run(TTY(), interval=5, n=5).split("\033[J")[1]
    lines = draw.split("\n")
    assert lines[0] == "     total [" + "#" * 12 + "." * 38 + "] 25.00%"
    assert lines[1] == "this epoch [" + "#" * 25 + "." * 25 + "] 50.00%"
    assert lines[2] == "         5 iter, 0 epoch / 20 iterations"
    assert re.fullmatch(r" *\S+ iters/sec\. Estimated time to finish: \d+:\d\d:\d\d(\.\d+)?\.", lines[3])
    assert len(lines[3].split(" iters/sec")[0]) == 10
    assert lines[4] == "\033[4A"
