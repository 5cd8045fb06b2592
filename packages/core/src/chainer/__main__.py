"""``python -m chainer doctor``: the runtime report with known problems and advice."""

import sys

from chainer._runtime_info import main

if __name__ == "__main__":
    sys.exit(main())
