"""``python -m psdviz.cli``: the ``psdviz`` command."""
import sys

from .dispatch import main

sys.exit(main())
