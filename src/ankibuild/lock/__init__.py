"""The lock: when each note's and notetype's content last changed.

Anki updates an imported note only when the incoming modification time is newer
than its own, and never compares content. So a note's time must move exactly
when its content changes, and stay put otherwise, across builds on any machine:
it is kept in the lock file, committed beside the bank.

- :mod:`.format`: what the lock holds, and its file (written one entry per line);
- :mod:`.gitattributes`: git told to merge that file line by line;
- :mod:`.memo`: the lock a build wrote, kept parsed for the next build;
- :mod:`.clock`: the times a build hands out;
- :mod:`.stamp`: which notes and notetypes keep their time, and which get a new one.
- :mod:`.plan`: the lock a build writes, planned with its packages and saved after them.
"""
