"""Card templates: the one template parser, the templates folders, and the files cards need.

:mod:`.template` parses an Anki card template as Anki does (strict: an unknown
field fails the build); :mod:`.folders` lays a bank's templates folder over the
defaults shipped with ankibuild; :mod:`.assets` packages the files the
templates load under content-hashed names.
"""
