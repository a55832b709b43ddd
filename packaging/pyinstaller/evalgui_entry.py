"""The bundle's program: the desktop application, as the installed ``evalgui`` command starts it.

``evalgui --bundle-check [FILE]`` runs every engine headless instead (bundle_check.py): the bundle's test uses it.
"""

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()     # the stability experiments' "spawn" workers start this program again
    if sys.argv[1:2] == ["--bundle-check"]:
        import bundle_check

        sys.exit(bundle_check.main(sys.argv[2:]))
    from evalgui.gui.app import main

    sys.exit(main())
