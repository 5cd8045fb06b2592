"""The public names of chainer.training with the signatures and members of Chainer
7.8.1 (from the API reference that is the contract of this project)."""

import importlib
import inspect

import pytest

import chainer.training
from chainer.training.extensions import util

# (qualified name, signature as Chainer 7.8.1 prints it, members)
API = [
    (
        "chainer.training.Extension",
        "(/, *args, **kwargs)",
        ["default_name", "finalize", "initialize", "on_error", "serialize"],
    ),
    (
        "chainer.training.Trainer",
        "(updater, stop_trigger=None, out='result', extensions=None)",
        ["elapsed_time", "extend", "get_extension", "is_before_training", "run", "serialize"],
    ),
    (
        "chainer.training.Updater",
        "(/, *args, **kwargs)",
        ["connect_trainer", "finalize", "get_all_optimizers", "get_optimizer", "serialize", "update"],
    ),
    (
        "chainer.training.extensions.DumpGraph",
        "(root_name, filename=None, variable_style=None, function_style=None, **kwargs)",
        ["initialize", "serialize", "trigger"],
    ),
    (
        "chainer.training.extensions.Evaluator",
        "(iterator, target, converter=CONCAT_EXAMPLES, device=None, eval_hook=None, eval_func=None, **kwargs)",
        ["evaluate", "finalize", "get_all_iterators", "get_all_targets", "get_iterator", "get_target"],
    ),
    (
        "chainer.training.extensions.ExponentialShift",
        "(attr, rate, init=None, target=None, optimizer=None)",
        ["initialize", "serialize"],
    ),
    ("chainer.training.extensions.FailOnNonNumber", "(/, *args, **kwargs)", []),
    (
        "chainer.training.extensions.InverseShift",
        "(attr, gamma, power, init=None, target=None, optimizer=None)",
        ["initialize", "serialize"],
    ),
    (
        "chainer.training.extensions.LinearShift",
        "(attr, value_range, time_range, optimizer=None)",
        ["initialize", "serialize"],
    ),
    (
        "chainer.training.extensions.LogReport",
        "(keys=None, trigger=(1, 'epoch'), postprocess=None, filename=None, **kwargs)",
        ["log", "serialize"],
    ),
    (
        "chainer.training.extensions.MicroAverage",
        "(numerator_key, denominator_key, result_key, trigger=(1, 'epoch'))",
        ["serialize"],
    ),
    (
        "chainer.training.extensions.MultistepShift",
        "(attr, gamma, step_value, init, optimizer=None)",
        ["initialize", "serialize"],
    ),
    (
        "chainer.training.extensions.ParameterStatistics",
        "(links, statistics='default', report_params=True, report_grads=True, prefix=None, trigger=(1, 'epoch'), skip_nan_params=False)",
        ["register_statistics"],
    ),
    (
        "chainer.training.extensions.PlotReport",
        "(y_keys, x_key='iteration', trigger=(1, 'epoch'), postprocess=None, filename=None, marker='x', grid=True, **kwargs)",
        ["available", "serialize"],
    ),
    (
        "chainer.training.extensions.PolynomialShift",
        "(attr, rate, max_count, init=None, target=None, optimizer=None)",
        ["initialize", "serialize"],
    ),
    ("chainer.training.extensions.PrintReport", "(entries, log_report='LogReport', out=STDOUT)", ["serialize"]),
    (
        "chainer.training.extensions.ProgressBar",
        "(training_length=None, update_interval=100, bar_length=50, out=STDOUT)",
        ["finalize"],
    ),
    (
        "chainer.training.extensions.StepShift",
        "(attr, gamma, step, init=None, target=None, optimizer=None)",
        ["initialize", "serialize"],
    ),
    (
        "chainer.training.extensions.VariableStatisticsPlot",
        "(targets, max_sample_size=1000, report_data=True, report_grad=True, plot_mean=True, plot_std=True, percentile_sigmas=(0, 0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87, 100), trigger=(1, 'epoch'), filename=None, figsize=None, marker=None, grid=True, **kwargs)",
        ["available", "save_plot_using_module"],
    ),
    (
        "chainer.training.extensions.WarmupShift",
        "(attr, warmup_start, warmup_iter, init, optimizer=None)",
        ["initialize", "serialize"],
    ),
    ("chainer.training.extensions.observe_lr", "(optimizer_name='main', observation_key='lr')", []),
    ("chainer.training.extensions.observe_value", "(observation_key, target_func)", []),
    (
        "chainer.training.extensions.snapshot",
        "(savefun=None, filename='snapshot_iter_{.updater.iteration}', **kwargs)",
        [],
    ),
    ("chainer.training.extensions.snapshot_object", "(target, filename, savefun=None, **kwargs)", []),
    (
        "chainer.training.extensions.snapshot_writers.ProcessQueueWriter",
        "(savefun=SAVE_NPZ, task=None)",
        ["create_consumer", "create_queue"],
    ),
    ("chainer.training.extensions.snapshot_writers.ProcessWriter", "(savefun=SAVE_NPZ, **kwds)", ["create_worker"]),
    (
        "chainer.training.extensions.snapshot_writers.QueueWriter",
        "(savefun=SAVE_NPZ, task=None)",
        ["consume", "create_consumer", "create_queue", "create_task", "finalize"],
    ),
    ("chainer.training.extensions.snapshot_writers.SimpleWriter", "(savefun=SAVE_NPZ, **kwds)", []),
    (
        "chainer.training.extensions.snapshot_writers.ThreadQueueWriter",
        "(savefun=SAVE_NPZ, task=None)",
        ["create_consumer", "create_queue"],
    ),
    ("chainer.training.extensions.snapshot_writers.ThreadWriter", "(savefun=SAVE_NPZ, **kwds)", ["create_worker"]),
    ("chainer.training.extensions.snapshot_writers.Writer", "()", ["finalize", "save"]),
    ("chainer.training.extensions.unchain_variables", "()", ["initialize", "trigger"]),
    ("chainer.training.get_trigger", "(trigger)", []),
    (
        "chainer.training.make_extension",
        "(trigger=None, default_name=None, priority=None, finalizer=None, initializer=None, on_error=None, **kwargs)",
        [],
    ),
    ("chainer.training.triggers.BestValueTrigger", "(key, compare, trigger=(1, 'epoch'))", ["serialize"]),
    (
        "chainer.training.triggers.EarlyStoppingTrigger",
        "(check_trigger=(1, 'epoch'), monitor='main/loss', patience=None, mode='auto', verbose=False, max_trigger=(100, 'epoch'), **kwargs)",
        ["get_training_length"],
    ),
    ("chainer.training.triggers.IntervalTrigger", "(period, unit)", ["get_training_length", "serialize"]),
    ("chainer.training.triggers.ManualScheduleTrigger", "(points, unit)", ["serialize"]),
    ("chainer.training.triggers.MaxValueTrigger", "(key, trigger=(1, 'epoch'))", []),
    ("chainer.training.triggers.MinValueTrigger", "(key, trigger=(1, 'epoch'))", []),
    ("chainer.training.triggers.OnceTrigger", "(call_on_resume=False)", ["finished", "serialize"]),
    ("chainer.training.triggers.TimeTrigger", "(period)", ["serialize"]),
    (
        "chainer.training.updaters.MultiprocessParallelUpdater",
        "(iterators, optimizer, converter=CONCAT_EXAMPLES, devices=None, auto_new_epoch=True)",
        ["available", "finalize", "setup_workers", "update_core"],
    ),
    (
        "chainer.training.updaters.ParallelUpdater",
        "(iterator, optimizer, converter=CONCAT_EXAMPLES, models=None, devices=None, loss_func=None, loss_scale=None, auto_new_epoch=True)",
        ["connect_trainer", "update_core"],
    ),
    (
        "chainer.training.updaters.StandardUpdater",
        "(iterator, optimizer, converter=CONCAT_EXAMPLES, device=None, loss_func=None, loss_scale=None, auto_new_epoch=True, **kwargs)",
        [
            "device",
            "epoch",
            "epoch_detail",
            "finalize",
            "get_all_optimizers",
            "get_iterator",
            "get_optimizer",
            "input_device",
            "is_new_epoch",
            "previous_epoch_detail",
            "serialize",
            "update",
            "update_core",
        ],
    ),
]


def resolve(qualified_name):
    module, _, attr = qualified_name.rpartition(".")
    return getattr(importlib.import_module(module), attr)


def printed_signature(obj):
    parts = []
    for p in inspect.signature(obj).parameters.values():
        text = p.name
        if p.kind is p.VAR_POSITIONAL:
            text = "*" + text
        elif p.kind is p.VAR_KEYWORD:
            text = "**" + text
        if p.default is not p.empty:
            default = p.default
            if default is chainer.dataset.concat_examples:
                text += "=CONCAT_EXAMPLES"
            elif default is chainer.serializers.save_npz:
                text += "=SAVE_NPZ"
            elif default is util._STDOUT_AT_IMPORT:  # sys.stdout when imported
                text += "=STDOUT"
            else:
                text += "=" + repr(default)
        parts.append(text)
    return "(" + ", ".join(parts) + ")"


# Classes whose __init__ Chainer 7.8.1 did not expose (printed as "(/, *args, **kwargs)").
OPAQUE = "(/, *args, **kwargs)"


@pytest.mark.parametrize("name,signature,members", API, ids=[row[0] for row in API])
def test_name_signature_and_members(name, signature, members):
    obj = resolve(name)
    if signature is not None and signature != OPAQUE:
        assert printed_signature(obj) == signature
    missing = [m for m in members if not hasattr(obj, m)]
    assert not missing, f"{name} lacks {missing}"
