"""``tablewright explore``: a web page that shows a design's data the way the design means it.

An application on the runtime: it reads and writes only through ``tablewright.runtime`` (with a
design) or the DynamoDB client (without one), reviews with ``tablewright.lint`` and
``tablewright.cost``, and serves server-rendered HTML pages that are also JSON (``.json`` suffix or
``?_format=json``), in the manner of datasette. See docs/explore.md.
"""

from .app import create_app
from .workspace import ExploreError, Explorer, open_explorer

__all__ = ["ExploreError", "Explorer", "create_app", "open_explorer"]
