"""Page machinery shared by the model's report and the tournament report.

Tables as text, the game's words for its parts, CSV cells a spreadsheet cannot
run, figures as embedded images, and the Jinja2 environment (autoescaped) that
renders the templates in ``templates/``.

Import rule (checked by the tests):
May import: skcodex.codex
"""
