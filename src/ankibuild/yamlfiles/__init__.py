"""YAML files as the writer wrote them: read safely, checked, explained and edited byte for byte.

:mod:`.reader` finds a bank's files and parses each one (no tags, bounded depth
and aliases, every key with its line); :mod:`.checker` checks a table's keys
and values; :mod:`.words` says what a parser's complaint means in the writer's
words; :mod:`.writer` changes a file while keeping every byte it does not
change; :mod:`.conflicts` finds a merge's conflict markers in any file of the bank.
"""
