"""Exports: the bank as files a learning platform imports (Moodle XML, GIFT, QTI 1.2), beside the packages.

Each note becomes a platform question (:mod:`ankibuild.kinds.platform`), made by its kind from
the note's rendered fields, so a platform shows the same HTML as the cards; each
format (one module here) writes those questions, and :mod:`.target` is the
target a build runs. The formats' names, which a bank and a build ask for,
are ``options.FORMATS``.
"""
