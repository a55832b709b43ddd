"""python -m evalgui.cli"""

import sys

from evalgui.cli import main

sys.exit(main())
