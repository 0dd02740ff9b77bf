"""Static files with hashed names (issue 24): ``collectstatic`` writes each file
also under a name carrying a hash of its contents (``play.3f2a9c1b04de.js``), with
the ES modules' ``import … from "./x.js"`` rewritten to the hashed names (Django's
``support_js_module_import_aggregation``), and gzips them; WhiteNoise then serves
every hashed name with ``Cache-Control: max-age=315360000, public, immutable``: a
browser asks for a file once, and a new release's changed file has a new name.

Without ``collectstatic`` (``make run``, the test client) there is no manifest:
the pages name the files as they are (``{% static %}`` as in DEBUG) and
WhiteNoise serves them from the apps' folders with a short max-age, as before.
"""

from __future__ import annotations

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticStorage(CompressedManifestStaticFilesStorage):
    support_js_module_import_aggregation = True

    def stored_name(self, name: str) -> str:
        if not self.hashed_files:  # no manifest: collectstatic has not run
            return name
        return super().stored_name(name)
