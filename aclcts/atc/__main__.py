"""`python -m aclcts.atc`: the simulator's ATC compiler."""

import sys

from aclcts.atc.cli import main

sys.exit(main())
