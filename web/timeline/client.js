// Requests to the worker's timeline half (web/worker/timeline.js; the message is
// worker/protocol.js's Msg.timeline), as promises. Each request names the trace it is about (the
// load id the report came with); the worker answers 'stale' when that trace is no longer the one
// it keeps.
import { timelineMsg } from '../worker/protocol.js';

export class TimelineClient {
  constructor(post) {
    this.post = post; // (message) => void: app.js's current worker
    this.nextReq = 1;
    this.pending = new Map();
    this.session = null;
  }

  attach(session) {
    this.session = session;
    for (const [, p] of this.pending) p.reject(Object.assign(new Error('a new trace was loaded'), { code: 'stale' }));
    this.pending.clear();
  }

  request(op, args) {
    if (this.session === null) return Promise.reject(new Error('no trace is loaded'));
    const req = this.nextReq++;
    return new Promise((resolve, reject) => {
      this.pending.set(req, { resolve, reject });
      this.post(timelineMsg(this.session, req, op, args));
    });
  }

  // app.js hands every Msg.timelineReply message here.
  onReply(m) {
    const p = this.pending.get(m.req);
    if (!p) return;
    this.pending.delete(m.req);
    if (m.error) p.reject(Object.assign(new Error(m.error.message), { code: m.error.code }));
    else p.resolve(m.result);
  }
}
