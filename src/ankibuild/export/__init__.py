"""Exports: the bank as files a learning platform imports (Moodle XML, GIFT, QTI 1.2), beside the packages.

Each note becomes a platform question (:mod:`.platform`), made by its kind from
the note's rendered fields, so a platform shows the same HTML as the cards; each
format (one module here) writes those questions, and :mod:`.target` is the
target a build runs. Nothing here imports a kind: the kinds import
:mod:`.platform`.
"""

#: The export formats, by the name a bank's ``exports`` and ``ankibuild build --export`` give.
FORMATS: tuple[str, ...] = ("moodle-xml", "gift", "qti")
