"""The Anki target: ``.apkg`` packages made byte-for-byte reproducible, and those already published.

- :mod:`.target`: the packages of a bank planned and written, with its lock and changelog;
- :mod:`.spec`: what one package holds (its note types, decks, notes and media);
- :mod:`.collection`: the package's SQLite collection, made from nothing or updated;
- :mod:`.kept`: the collection kept between builds, for the next build to update;
- :mod:`.deflate`: the collection deflated in pieces on two threads;
- :mod:`.package`: the ``.apkg`` file itself, a zip of the collection and the media;
- :mod:`.published`: what the packages already published hold.
"""
