// The page's memory projection (web/worker/limits.js): a load is stopped early only when its
// model cannot fit even at the fewest bytes per event measured (96), and its columns are reserved
// for the whole file only when even the most (148) leave half the memory free. Run: node --test tests/web/
import test from 'node:test';
import assert from 'node:assert/strict';
import { WASM_MAX_BYTES, projectedTooLarge, reserveModel } from '../../web/worker/limits.js';

// A session that has read `bytes` of JSON holding `events` events (all the limits read of it).
function sessionAt(events, bytes) {
  const s = { reserved: null };
  s.progressJson = () => JSON.stringify({ events, bytes });
  s.reserveForTotal = (total) => (s.reserved = total);
  return s;
}
const MB16 = 16 * 2 ** 20;
// A file of `millions` million events at 100 bytes of JSON each, projected from its first 16 MiB.
const fileOf = (millions) => ({ session: sessionAt(MB16 / 100, MB16), total: millions * 1e6 * 100 });

test('a file of 50 million events is stopped: at 96 bytes each it needs 4.8 GB', () => {
  const { session, total } = fileOf(50);
  const err = projectedTooLarge(session, 'big.json', total);
  assert.ok(err, 'not stopped');
  assert.equal(err.code, 'too_large');
  assert.match(err.message, /about 50 million events, which need at least 4\.5 GiB.*kinetoscope report big\.json/);
});

test('a file of 40 million events is read: at 96 bytes each it fits in 4 GB', () => {
  const { session, total } = fileOf(40);
  assert.ok(40e6 * 96 < WASM_MAX_BYTES);
  assert.equal(projectedTooLarge(session, 'fits.json', total), null);
});

test('columns are reserved for 10 million events, not for 20 million (148 bytes each passes half the memory)', () => {
  const small = fileOf(10);
  reserveModel(small.session, small.total);
  assert.equal(small.session.reserved, small.total);
  const large = fileOf(20);
  reserveModel(large.session, large.total);
  assert.equal(large.session.reserved, null);
});
