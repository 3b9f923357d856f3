// --- Several files at once (web/ranks/, web/compare/) ----------------------------------------------
// A file opened with `loadIndex` (a rank of a job) also sends its rank digest; one opened with
// `diffDigest: true` (BASE or TEST of a comparison) its diff digest. Then one worker gets
//   {combine, id, digests, reports, markdowns}  -> {combined, id, json, markdown}
//     the multi-rank report (`kinetoscope report --format json|md FILES...`), files in load order
//   {diff, id, base, test}                      -> {combined, id, json, markdown}
//     the trace diff (`kinetoscope diff BASE TEST --format json|md`)
import { Msg, errorBody, errorMsg } from './protocol.js';
import { loadModule, moduleLoadError, resetModule } from './module.js';

// The digests a load's report message carries besides the report.
export function combinable(session, msg) {
  const out = {};
  if (typeof msg.loadIndex === 'number' && typeof session.digestJson === 'function') out.digest = session.digestJson(msg.loadIndex);
  if (msg.diffDigest && typeof session.diffDigestJson === 'function') out.diffDigest = session.diffDigestJson();
  return out;
}

function stringList(M, items) {
  const list = new M.StringList();
  for (const s of items) list.push_back(s);
  return list;
}

export async function combine(msg) {
  const fail = (code, message) => self.postMessage(errorMsg(msg.id, errorBody(code, message)));
  let M;
  try {
    M = await loadModule();
  } catch (e) {
    const err = moduleLoadError(e);
    return fail(err.code, err.message);
  }
  const lists = [];
  try {
    let json;
    let markdown = '';
    if (msg.type === Msg.combine) {
      const digests = stringList(M, msg.digests);
      lists.push(digests);
      lists.push(stringList(M, msg.reports));
      json = M.combineRanks(digests, lists[1]);
      if (msg.markdowns && typeof M.combineRanksMarkdown === 'function') {
        lists.push(stringList(M, msg.markdowns));
        markdown = M.combineRanksMarkdown(digests, lists[2]);
      }
    } else {
      json = M.diffTraces(msg.base, msg.test, 'json');
      markdown = M.diffTraces(msg.base, msg.test, 'md');
    }
    if (!json) return fail('bad_digest', 'the analyzer could not read what the files sent back');
    self.postMessage({ type: Msg.combined, id: msg.id, json, markdown });
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) resetModule();
    fail('analyzer_crashed', `combining the files failed: ${e.message || e}`);
  } finally {
    for (const l of lists) l.delete();
  }
}
