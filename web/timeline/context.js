// Where a slice sits: its ancestors (the CPU-op and Python stack it runs under), read by walking
// the worker's `details` answers up the parent links; for GPU work (kernel, memcpy, memset) the
// walk starts at the runtime call that launched it, so the drawer shows the launching aten op with
// its `Input Dims` and the Python frames above it in one place (issue 18, item 1: reaching the
// Python frame of a kernel took 24 "Inside" clicks).
const MAX_DEPTH = 64;
const GPU_KINDS = new Set(['kernel', 'memcpy', 'memset', 'gpu_user_annotation']);

const brief = (d) => ({ slice: d.slice, name: d.name, kind: d.kind, dur_ns: d.dur_ns });

// `details(slice)` resolves to the worker's details object (or null). Resolves to
// {ancestors: [nearest first], launcher: {slice, name, inputDims, inputTypes} | null, via}.
export async function sliceContext(d, details) {
  const out = { ancestors: [], launcher: null, via: null };
  if (!d) return out;
  let cur = d;
  if (GPU_KINDS.has(d.kind)) {
    if (!d.partner) return out;
    cur = await details(d.partner.slice);
    if (!cur) return out;
    out.via = brief(cur); // the runtime call (cudaLaunchKernel, cudaMemcpyAsync)
  }
  for (let n = 0; cur && cur.parent && n < MAX_DEPTH; n++) {
    const p = await details(cur.parent.slice);
    if (!p) break;
    out.ancestors.push(brief(p));
    if (!out.launcher && p.kind === 'cpu_op' && out.via) {
      const args = p.args && typeof p.args === 'object' ? p.args : {};
      out.launcher = { ...brief(p), inputDims: args['Input Dims'], inputTypes: args['Input type'] };
    }
    cur = p;
  }
  return out;
}
