"""The bundle's program: the desktop application, as the installed ``evalgui`` command starts it."""

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()     # the stability experiments' "spawn" workers start this program again
    from evalgui.gui.app import main

    sys.exit(main())
