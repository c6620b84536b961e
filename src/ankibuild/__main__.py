from ankibuild.command import run

run()
