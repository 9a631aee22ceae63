# The floor page (uthctl floor page, docs/floor.md): the Flask app (app.py)
# with its templates and static files, the tiles and the page's users.
