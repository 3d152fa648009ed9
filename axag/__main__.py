import sys

from axag.commands.entry import main

sys.exit(main())
