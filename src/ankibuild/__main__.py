from ankibuild.cli import run

run()
