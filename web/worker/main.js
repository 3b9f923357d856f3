// The analyzer worker's entry: one message in, one concern's module out (worker/protocol.js names
// every message). web/worker.js (a classic worker, so that the Emscripten glue can be loaded with
// importScripts) imports this module; the single-file page (scripts/dist.mjs) bundles it, with
// everything it imports, into the classic script it starts from a Blob. See README.md here.
import { Msg } from './protocol.js';
import { cancelTrace, helperLost, openTrace } from './job.js';
import { runPart } from './split.js';
import { runUnzip } from './unzip.js';
import { stopWarmup, warm } from './warm.js';
import { timelineRequest } from './timeline.js';
import { stepRange, statsReport } from './kept.js';
import { combine } from './combine.js';

const handlers = {
  [Msg.open]: (m) => {
    stopWarmup(); // a spare still warming up: the file does not wait for the rest of it
    return openTrace(m);
  },
  [Msg.cancel]: (m) => cancelTrace(m.id),
  [Msg.warm]: warm,
  [Msg.part]: runPart,
  [Msg.unzip]: runUnzip,
  [Msg.partLost]: (m) => helperLost(m.id, m.index),
  [Msg.timeline]: timelineRequest,
  [Msg.stepRange]: stepRange,
  [Msg.statsReport]: statsReport,
  [Msg.combine]: combine,
  [Msg.diff]: combine,
};

export function onMessage(e) {
  const msg = e.data;
  const handle = msg && handlers[msg.type];
  if (handle) handle(msg);
}

self.onmessage = onMessage;
