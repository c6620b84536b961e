"""The ``import`` command: quiz pages copied from the web, added to the question bank.

- :mod:`.pages`: what a page holds (a question, its options and answer), read from its text;
- :mod:`.langguess`: the language a page is written in, when it does not say;
- :mod:`.slugs`: readable ids for a new question or topic;
- :mod:`.bank`: where the pages go in the bank, and the files written, once the bank they make is valid.
"""
