"""Where the capture scripts write their traces: <out>/<stem>.<unix-ms>.pt.trace.json[.gz].

torch 1.13's exporter never compresses, and newer ones only by the file name: the scripts export
plain JSON and gzip it themselves, so every torch version writes the same kind of file.
"""

import gzip
import os
import shutil
import time


def trace_saver(out, stem, compress=True):
    """An on_trace_ready callback, and the list of paths it has written."""
    written = []

    def save(prof):
        os.makedirs(out, exist_ok=True)
        path = os.path.join(out, "%s.%d.pt.trace.json" % (stem, int(time.time() * 1000)))
        prof.export_chrome_trace(path)
        if compress:
            with open(path, "rb") as src, gzip.open(path + ".gz", "wb", compresslevel=9) as dst:
                shutil.copyfileobj(src, dst)
            os.remove(path)
            path += ".gz"
        written.append(path)

    return save, written
