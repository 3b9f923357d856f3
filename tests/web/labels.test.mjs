// Evidence labels (web/views/format.js labelFor): a finding's evidence keys read as words, with
// the names of tools and units spelled as their owners spell them. Run: node --test tests/web/
import test from 'node:test';
import assert from 'node:assert/strict';
import { fmtByKey, fmtDuration, fmtPct, fmtPctAsTitle, fmtUs, fmtUsRanges, labelFor, labelsFor } from '../../web/views/format.js';

test('evidence keys read as words, units dropped, names spelled as their owners spell them', () => {
  assert.equal(labelFor('cudnn_find_calls'), 'cuDNN find calls');  // a small first letter kept
  assert.equal(labelFor('cublas_calls'), 'cuBLAS calls');
  assert.equal(labelFor('gpu_kernel_kernel_overhead_pct'), 'Kernel-kernel gap'); // HTA's bound_by names
  assert.equal(labelFor('longest_early_cuda_call_us'), 'Longest early CUDA call');
  assert.equal(labelFor('cuda_api_calls'), 'CUDA API calls');
  assert.equal(labelFor('gpu_idle_after_sync_us'), 'GPU idle after sync');
  assert.equal(labelFor('comm_us'), 'Communication');  // a mapped word is still capitalized
  assert.equal(labelFor('idle_pct'), 'Idle');
  assert.equal(labelFor('gb_per_s'), 'GB/s');
});

test('two keys of one finding that read alike get distinct labels: the share says (%)', () => {
  // sync.dtoh_in_step's evidence on a real H100 trace: "GPU idle after sync" twice, 2.29 ms and 4.6%.
  assert.deepEqual(labelsFor(['bytes', 'gpu_idle_after_sync_us', 'gpu_idle_after_sync_pct']), ['Bytes', 'GPU idle after sync', 'GPU idle after sync (%)']);
  assert.deepEqual(labelsFor(['largest_other_class', 'largest_other_class_pct']), ['Largest other class', 'Largest other class (%)']);
  // A share alone keeps its plain label.
  assert.deepEqual(labelsFor(['share_pct', 'total_us']), ['Share', 'Total']);
});

test('a share that is not all or nothing never rounds to 100% or 0%', () => {
  assert.equal(fmtPct(99.99), '>99.9%'); // GPU idle beside 16 µs of kernels
  assert.equal(fmtPct(0.01), '<0.1%');
  assert.equal(fmtPct(100), '100%');
  assert.equal(fmtPct(0), '0.0%');
  assert.equal(fmtPct(99.94), '99.9%');
  assert.equal(fmtPct(-5), '-5.0%'); // a change, not a share: as before
});

test('a share of the analysis window says what it is a share of, in the title\'s words', () => {
  // kernels.overhead_dominant read "Overhead of window" beside a title that says "of step time".
  assert.equal(labelFor('overhead_pct_of_window', 'steps'), 'Non-math kernels, share of step time');
  assert.equal(labelFor('overhead_pct_of_window', 'gpu_span'), 'Non-math kernels, share of the GPU span');
  assert.equal(labelFor('gemm_conv_pct_of_window', 'steps'), 'GEMM/convolution kernels, share of step time');
  assert.equal(labelFor('overhead_kernel_us'), 'Non-math kernels');
  assert.ok(!/\bwindow\b/.test(labelFor('overhead_pct_of_window')), labelFor('overhead_pct_of_window'));
});

test('a finding\'s times read as its title writes them (format_duration in src/util/format.cpp)', () => {
  assert.equal(fmtDuration(209980), '209.98 ms'); // the title's "209.98 ms to 425.24 ms", not "210 ms"
  assert.equal(fmtDuration(1080000), '1.08 s');
  assert.equal(fmtDuration(12.46), '12.5 µs');
  assert.equal(fmtDuration(999.96), '1000.0 µs'); // as printf does: the unit from the unrounded value
});

test('a real H100 trace\'s math and non-math evidence reads as words with their units', () => {
  // math.far_below_peak read "Pct of peak 5.1", "Achieved tflops 50.8".
  assert.equal(labelFor('pct_of_peak'), 'Share of peak');
  assert.equal(fmtByKey('pct_of_peak', 5.1), '5.1%');
  assert.equal(labelFor('achieved_tflops'), 'Achieved TFLOP/s');
  assert.equal(labelFor('peak_tflops'), 'Peak TFLOP/s');
  // kernels.overhead_dominant: "Top overhead kernels" beside "Non-math kernels" named one thing twice.
  assert.equal(labelFor('top_overhead_kernels'), 'Top non-math kernels');
  assert.equal(labelFor('math_pct'), 'Math, share of kernel time');
});

test('a number the core writes with printf reads the same on the page: an exact tie goes to the even digit', () => {
  // um_thrash.sqlite: GPU idle 30.25% of step time; the title's printf said 30.2%, toFixed 30.3%.
  assert.equal(fmtPct(30.25), '30.2%');
  assert.equal(fmtPct(30.35), '30.4%'); // 30.35 is a little above the tie as a double: up, as printf
  assert.equal(fmtDuration(2125), '2.12 ms'); // printf("%.2f", 2.125)
  assert.equal(fmtDuration(209980), '209.98 ms');
  // A zero reads one way: the ranks' glance wrote 0.00 µs beside the straggler's wait 0.0 µs.
  assert.equal(fmtUs(0), fmtDuration(0));
  assert.equal(fmtUs(0), '0.0 µs');
  // A finding's evidence share as its title writes it (format_pct): 100.0%, not 100%.
  assert.equal(fmtPctAsTitle(100), '100.0%');
  // Under a title that says >99.9% (the core keeps 99.99 in the evidence): >99.9%, not 100.0%.
  assert.equal(fmtPctAsTitle(99.99), '>99.9%');
  assert.equal(fmtPctAsTitle(0.003), '<0.1%');
  assert.equal(fmtPctAsTitle(0), '0.0%');
  assert.equal(fmtPctAsTitle(30.25), '30.2%');
});

test('the ranges of one list share one precision, enough to tell each range\'s ends apart', () => {
  // The real CloverLeaf export's device-to-host copies: one 10 µs apart, the others 2 µs.
  assert.deepEqual(fmtUsRanges([[583472.1, 583474.0], [615960.2, 615970.4], [98800, 98801.2]]), [
    '583.472 ms → 583.474 ms',
    '615.960 ms → 615.970 ms',
    '98.800 ms → 98.801 ms',
  ]);
  // Ranges that differ at fmtUs's own precision keep it.
  assert.deepEqual(fmtUsRanges([[783410, 785360], [620810, 622760]]), ['783 ms → 785 ms', '621 ms → 623 ms']);
});

test('an evidence key that is a file name is shown as it is, not read word by word', () => {
  // ranks.identity on four nsys exports: "trace_rank0.sqlite" read "Trace rank0.sqlite".
  assert.equal(labelFor('trace_rank0.sqlite'), 'trace_rank0.sqlite');
  assert.equal(labelFor('rank-3.pt.trace.json.gz'), 'rank-3.pt.trace.json.gz');
  // ranks.straggler's wait of each rank: "rank 3 wait_us" read as it was, unit suffix and all.
  assert.equal(labelFor('rank 3 wait_us'), 'Rank 3 wait');
  assert.equal(labelFor('rank 12 gpu_idle_us'), 'Rank 12 GPU idle');
  // ranks.collective_count's "rank 3 collectives" read lowercase beside "Rank 3 wait".
  assert.equal(labelFor('rank 3 collectives'), 'Rank 3 collectives');
  assert.equal(labelFor('rank 0 collectives'), 'Rank 0 collectives');
  assert.equal(labelFor('kernels_le_4us'), 'Kernels ≤ 4 µs');
});
