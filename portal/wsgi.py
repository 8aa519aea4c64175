import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
application = get_wsgi_application()

# Everything loaded so far (Django, the apps, Plotly, the URL and template machinery) lives as
# long as the process: move it out of the garbage collector's reach, so that the collections
# that requests trigger walk only the objects requests made, not the whole heap (a full
# collection over it costs ~20 ms, which lands on some unlucky request's latency).
gc.collect()
gc.freeze()
