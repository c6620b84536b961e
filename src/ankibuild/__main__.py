from ankibuild.cli import main

main()
