"""Test-wide settings: no third-party plugin autoload, deterministic seeds."""

import os

# Plugins installed in the developer's environment must not change test outcomes.
os.environ.setdefault("CHAINER_DISABLE_PLUGIN_AUTOLOAD", "1")
