"""``python -m evalgui``: the desktop application, as the ``evalgui`` command."""

import sys

from evalgui.gui.app import main

if __name__ == "__main__":
    sys.exit(main())
