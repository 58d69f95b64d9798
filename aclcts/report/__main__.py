"""`python -m aclcts.report diff|merge|expectations ...`, the same as `aclcts report ...`."""

import sys

from aclcts.report.cli import main

sys.exit(main(sys.argv[1:]))
