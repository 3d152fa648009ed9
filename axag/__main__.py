import sys

from axag.cli.entry import main

sys.exit(main())
