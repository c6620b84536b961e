"""The preview target: one static page with every card, for reading a bank without Anki.

:mod:`.target` plans and writes the page; ``page/`` holds its HTML, stylesheet
and script.
"""
