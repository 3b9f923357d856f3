"""Kinetoscope's fleet view: hundreds to thousands of ranks, reduced on Dask.

Each trace is reduced where it lies to a small digest by the native CLI
(`kinetoscope digest`, kinetoscope.digest/1); the digests travel to one process and merge
into fleet.json (kinetoscope.fleet/1). docs/fleet.md says what is computed where.

  graph.py   the Dask part: one task per trace file, results streamed back as they finish
  reduce.py  the reducer: digests in, the fleet result out (memory grows with ranks x steps)
  rules.py   the fleet findings (stragglers, skew, slow nodes by median absolute deviation)
  write.py   fleet.json as text or Markdown
"""

FLEET_SCHEMA = "kinetoscope.fleet/1"
DIGEST_SCHEMA = "kinetoscope.digest/1"
