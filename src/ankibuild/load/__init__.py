"""The load stage: the bank read, validated and rendered, every problem collected and raised once.

:mod:`.stage` is the stage itself (``load_all``, giving a ``LoadedBank``);
:mod:`.validate` checks ``bank.yaml`` and each question file;
:mod:`.deckfiles` reads, checks and renders one question file, the unit of
caching and of parallel work; :mod:`.render` turns a question into a note per
language and reads the card templates of each note type; :mod:`.schema`
writes the files' JSON Schemas from the same tables the checks use.
"""
