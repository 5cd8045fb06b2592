"""chainer.config / global_config / using_config, following the docs' "Configuring Chainer"."""

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import chainer


@pytest.fixture
def restore_train():
    yield
    chainer.global_config.train = True
    if "train" in chainer.config._local.__dict__:
        del chainer.config.train


def test_documented_defaults():
    cfg = chainer.global_config
    assert cfg.train is True
    assert cfg.enable_backprop is True
    assert cfg.debug is False
    assert cfg.type_check is True
    assert cfg.dtype == np.dtype(np.float32)
    assert cfg.keep_graph_on_report is False
    assert cfg.use_cudnn == "auto"
    assert cfg.use_ideep == "never"
    assert cfg.lazy_grad_sum is False
    assert cfg.cudnn_deterministic is False
    assert cfg.autotune is False
    assert cfg.use_cudnn_tensor_core == "auto"
    assert cfg.cudnn_fast_batch_normalization is False
    assert cfg.in_recomputing is False
    assert cfg.use_static_graph is True
    assert cfg.warn_nondeterministic is False


def test_docs_global_changes_are_seen_by_local(restore_train):
    assert chainer.global_config.train is True and chainer.config.train is True
    chainer.global_config.train = False
    assert chainer.global_config.train is False
    assert chainer.config.train is False


def test_docs_local_changes_do_not_touch_global(restore_train):
    chainer.config.train = False
    assert chainer.global_config.train is True
    assert chainer.config.train is False


def test_using_config_restores_previous_value():
    with chainer.using_config("debug", True):
        assert chainer.config.debug is True
        with chainer.using_config("debug", False):
            assert chainer.config.debug is False
        assert chainer.config.debug is True
    assert chainer.config.debug is False
    assert "debug" not in chainer.config._local.__dict__


def test_using_config_restores_after_exception():
    with pytest.raises(ZeroDivisionError):
        with chainer.using_config("train", False):
            1 / 0  # noqa: B018
    assert chainer.config.train is True


def test_user_keys():
    with chainer.using_config("user_my_flag", 3):
        assert chainer.config.user_my_flag == 3
    with pytest.raises(AttributeError):
        chainer.config.user_my_flag  # noqa: B018


def test_thread_local():
    seen = {}

    def worker():
        seen["before"] = chainer.config.train
        chainer.config.train = False
        seen["after"] = chainer.config.train

    with chainer.using_config("train", "main-thread-value"):
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert chainer.config.train == "main-thread-value"
    assert seen == {"before": True, "after": False}


def test_config_change_is_seen_by_the_hot_path():
    x = chainer.Variable(np.ones(2, np.float32))
    with chainer.using_config("enable_backprop", False):
        assert (x * 2).creator is None
    assert (x * 2).creator is not None


def test_show_lists_keys(capsys):
    chainer.config.show()
    out = capsys.readouterr().out
    assert "enable_backprop" in out and "type_check" in out


def test_show_lists_chainer_7_keys_and_defaults():
    """The public keys and defaults that Chainer 7.8.1's config.show() prints (with no
    CHAINER_* variable set), in its layout: sorted, names padded to the longest."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHAINER_")}
    done = subprocess.run(
        [sys.executable, "-c", "import chainer; chainer.config.show()"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    expected = {
        "autotune": "False",
        "compute_mode": "None",
        "cudnn_deterministic": "False",
        "cudnn_fast_batch_normalization": "False",
        "debug": "False",
        "dtype": "float32",
        "enable_backprop": "True",
        "in_recomputing": "False",
        "keep_graph_on_report": "False",
        "lazy_grad_sum": "False",
        "schedule_func": "None",
        "train": "True",
        "type_check": "True",
        "use_cudnn": "auto",
        "use_cudnn_tensor_core": "auto",
        "use_ideep": "never",
        "use_static_graph": "True",
        "warn_nondeterministic": "False",
    }
    assert done.stdout.splitlines() == [f"{key:<30} {value}" for key, value in expected.items()]


def test_is_debug_set_debug_and_get_dtype():
    assert chainer.is_debug() is False
    chainer.set_debug(True)
    try:
        assert chainer.is_debug() is True
    finally:
        chainer.set_debug(False)
    assert chainer.get_dtype() == np.dtype(np.float32)
    assert chainer.get_dtype(np.float64) == np.dtype(np.float64)
    with chainer.using_config("dtype", chainer.mixed16):
        assert chainer.get_dtype() == np.dtype(np.float16)
        assert chainer.get_dtype(map_mixed16=np.float32) == np.dtype(np.float32)


def _run_with_env(env, code):
    full_env = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", code], env=full_env, capture_output=True, text=True)


def test_environment_variables_set_defaults():
    result = _run_with_env(
        {
            "CHAINER_DEBUG": "1",
            "CHAINER_TYPE_CHECK": "0",
            "CHAINER_DTYPE": "float16",
            "CHAINER_USE_IDEEP": "auto",
            "CHAINER_KEEP_GRAPH_ON_REPORT": "1",
            "CHAINER_LAZY_GRAD_SUM": "1",
        },
        "import chainer; c = chainer.global_config; "
        "print(c.debug, c.type_check, c.dtype, c.use_ideep, c.keep_graph_on_report, c.lazy_grad_sum)",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "False", "float16", "auto", "True", "True"]


def test_mixed16_from_environment():
    result = _run_with_env(
        {"CHAINER_DTYPE": "mixed16"}, "import chainer; print(chainer.config.dtype is chainer.mixed16)"
    )
    assert result.stdout.strip() == "True", result.stderr


def test_bad_environment_value_is_explained():
    result = _run_with_env({"CHAINER_DEBUG": "yes"}, "import chainer")
    assert result.returncode != 0
    assert "CHAINER_DEBUG must be '0' or '1', got 'yes'" in result.stderr
