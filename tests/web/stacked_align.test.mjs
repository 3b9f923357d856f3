// The ranks view's stacked timelines (web/ranks/stacked.js alignedWindows): the window each rank's
// own timeline shows. A Kineto rank's axis counts from its first event; an Nsight Systems export's
// from its session start (report.trace.first_event_us after it), and the global-min clock must
// come out the same either way. Run: node --test tests/web/
import test from 'node:test';
import assert from 'node:assert/strict';
import { alignedWindows } from '../../web/ranks/stacked.js';

// Two ranks; rank 1's trace starts 5 ms after rank 0's on the shared clock, and each runs step 3
// from 10 ms to 20 ms after its own first event. `zero`: where each first event lies on its own
// axis (0 for Kineto; an export's first event after its session start).
function multi(zero) {
  const report = (z) => ({ trace: { first_event_us: z }, steps: { rows: [{ number: 3, start_us: z + 10_000, end_us: z + 20_000 }] } });
  return {
    reports: [report(zero[0]), report(zero[1])],
    alignment: { ranks: [{ first_event_us: 0 }, { first_event_us: 5_000 }] },
  };
}

test('global min: the same clock whether the axes count from the first event or a session start', () => {
  const kineto = alignedWindows(multi([0, 0]), [0, 1], 3, 'global-min');
  const nsys = alignedWindows(multi([56_574, 30_000]), [0, 1], 3, 'global-min');
  // One window of the shared clock: from rank 0's step start (10 ms) to rank 1's end (25 ms).
  assert.deepEqual(kineto.map((w) => [w.start, w.span, w.late]), [[10_000, 15_000, 0], [5_000, 15_000, 5_000]]);
  // On each export's own axis that window starts its first event's offset later.
  assert.deepEqual(nsys.map((w) => [w.start, w.span, w.late]), [[66_574, 15_000, 0], [35_000, 15_000, 5_000]]);
});

test('step alignment: each rank from its own step start, on its own axis', () => {
  const nsys = alignedWindows(multi([56_574, 30_000]), [0, 1], 3, 'step');
  assert.deepEqual(nsys.map((w) => [w.start, w.span]), [[66_574, 10_000], [40_000, 10_000]]);
});
