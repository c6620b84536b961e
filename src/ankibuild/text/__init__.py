"""A question's texts: Markdown to HTML, clozes, formulas, images and right-to-left numbers.

:mod:`.richtext` renders a text (Markdown, code, formulas); :mod:`.clozes`
reads the clozes written in it and :mod:`.clozemarkers` the markers Anki reads
in a field; :mod:`.formulas` says where MathJax ends a formula and
:mod:`.mathml` writes one for the preview; :mod:`.media` finds and checks the
images a text shows, :mod:`.svg` the SVG ones; :mod:`.bidi` finds numbers that
right-to-left text shows reversed.
"""
