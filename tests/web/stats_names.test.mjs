// The page's `nsys stats` tables (web/views/stats.js): a name cell is cut past NAME_CELL_MAX
// characters with its length, as the CLI's text table cuts it; a real name (a few KB at most)
// stays whole. Run: node --test tests/web/
import test from 'node:test';
import assert from 'node:assert/strict';
import { NAME_CELL_MAX, cutStatsName } from '../../web/views/stats.js';

test('a 1 MB kernel name is shown as its first 4,096 characters and its length', () => {
  const name = 'void k<' + 'x'.repeat(1 << 20) + '>()';
  const shown = cutStatsName(name);
  assert.ok(shown.length < NAME_CELL_MAX + 40, `shown ${shown.length} chars`);
  assert.ok(shown.startsWith(name.slice(0, NAME_CELL_MAX)));
  assert.ok(shown.endsWith(`… (${name.length.toLocaleString('en-US')} chars)`), shown.slice(-40));
});

test('names up to the bound stay whole; a cut never splits a surrogate pair', () => {
  const real = 'void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nt_align4>(Params)';
  assert.equal(cutStatsName(real), real);
  assert.equal(cutStatsName('y'.repeat(NAME_CELL_MAX)), 'y'.repeat(NAME_CELL_MAX));
  assert.equal(cutStatsName(null), '');
  const emoji = 'a'.repeat(NAME_CELL_MAX - 1) + '😀'.repeat(10);
  const cut = cutStatsName(emoji);
  assert.ok(cut.startsWith('a'.repeat(NAME_CELL_MAX - 1) + '…'), 'the pair left whole out');
});
