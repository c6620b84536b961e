"""Translations kept true: what each one was made from, and the commands that look after them.

- :mod:`.record`: the translations record (``translations.lock``): the source text each
  translation was made from, and the translations possibly outdated since;
- :mod:`.status`: per language, what is left to translate; marking translations current;
  adding a language;
- :mod:`.po`: the texts exchanged with translators as PO files.
"""
