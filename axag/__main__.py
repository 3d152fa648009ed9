from axag.cli import main

main()
