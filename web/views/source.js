// Which profiler wrote the report's trace, for the words a view uses: an Nsight Systems export has
// NVTX ranges where a PyTorch trace has CPU operators and annotations.
export function fromNsys(report) {
  return !!(report && report.trace && report.trace.format === 'nsys_sqlite');
}
