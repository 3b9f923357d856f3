#include "analysis/math_efficiency.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "analysis/name_families.h"
#include "analysis/nvtx_context.h"

namespace ks {

const char* math_no_shapes_hint(const MathEfficiency& m) {
  if (m.nsys_export)
    return "this Nsight Systems export has no tensor shapes: profile with nsys profile "
           "--pytorch=autograd-shapes-nvtx (or torch.autograd.profiler.emit_nvtx(record_shapes="
           "True)) to get FLOPs, achieved TFLOP/s and MFU";
  return "no input shapes in this trace: profile with torch.profiler.profile(record_shapes=True) "
         "to get FLOPs, achieved TFLOP/s and MFU";
}

namespace {

bool contains_ci(std::string_view s, std::string_view what) {
  auto it = std::search(s.begin(), s.end(), what.begin(), what.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  });
  return it != s.end();
}

bool is_tf32_kernel(std::string_view name) {
  return contains_ci(name, "tf32") || name.find("tensorop_s1688") != std::string_view::npos ||
         name.find("tensorop_s16816") != std::string_view::npos;
}

// "Input Dims" shown compactly: the tensors' shapes, "141x512, 512x512" (scalars left out).
std::string shapes_text(std::string_view dims_json) {
  ShapeList s = parse_input_dims(dims_json);
  if (!s.ok) return std::string(dims_json);
  std::string out;
  for (const auto& d : s.dims) {
    if (d.empty()) continue;
    if (!out.empty()) out += ", ";
    for (size_t i = 0; i < d.size(); ++i) {
      if (i) out += 'x';
      out += std::to_string(d[i]);
    }
  }
  return out.empty() ? "scalars" : out;
}

// A kernel's element type from its name, for ops whose trace lacks their inputs' types (an
// nsys export's emit_nvtx ranges carry sizes only). cuBLAS, CUTLASS, cuDNN and flash-attention
// name them: "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", "ampere_fp16_s16816gemm_fp16_...",
// "flash_fwd_kernel<... cutlass::bfloat16_t ...>", "cutlass_80_tensorop_s1688gemm_..." (tf32),
// "volta_sgemm_128x64_nn". Unknown when the name says nothing (Triton's, inductor's).
MathDtype dtype_from_kernel_name(std::string_view name) {
  auto has = [name](std::string_view what) { return contains_ci(name, what); };
  if (has("e4m3") || has("e5m2") || has("fp8")) return MathDtype::kFp8;
  if (has("bf16") || has("bfloat16")) return MathDtype::kBf16;
  if (has("f16") || has("fp16") || has("half") || has("hgemm") || has("h884") || has("h1688") ||
      has("h16816"))
    return MathDtype::kFp16;
  if (is_tf32_kernel(name)) return MathDtype::kTf32;
  if (has("int8") || has("imma")) return MathDtype::kInt8;
  if (has("dgemm") || has("f64") || has("double")) return MathDtype::kFp64;
  if (has("sgemm") || has("f32") || has("float")) return MathDtype::kFp32;
  return MathDtype::kUnknown;
}

// The op a shaped slice is: its name, or for an emit_nvtx range of an Nsight Systems export
// ("aten::addmm, seq = 3, op_id = 7, sizes = [...]", one name per call) its op's family
// (analysis/name_families.h), so the calls of one op with one shape are one row.
class OpNames {
 public:
  explicit OpNames(const Trace& t) : t_(t), families_(t) {}
  StringId of(StringId name) { return per_call_ ? families_.row_of(name, true) : name; }
  // Asked once per shaped op: a view, no copy (a PyTorch trace's names are the trace's own).
  std::string_view text(StringId op) {
    if (!per_call_) return t_.str(op);
    auto it = text_.find(op);
    if (it == text_.end()) {
      std::string family = families_.label_of(op);
      it = text_.emplace(op, family.empty() ? std::string(t_.str(op)) : family).first;
    }
    return it->second;
  }

 private:
  const Trace& t_;
  NameFamilies families_;
  bool per_call_ = t_.facts.format == TraceFormat::kNsysSqlite;
  std::unordered_map<StringId, std::string> text_;  // per_call_: each op's name
};

struct Group {
  uint32_t first_slice;
  StringId op = 0;  // OpNames::of
  OpFlops f;
  MathDtype precision = MathDtype::kUnknown;
  std::map<StringId, int64_t> kernel_ns;
  uint64_t count = 0, kernels = 0;
  int64_t gpu_ns = 0;
  double peak = 0;
};

struct Instance {
  uint32_t slice;
  uint32_t group;
  int64_t gpu_ns = 0;
  bool fast = false;
};

}  // namespace

MathEfficiency compute_math_efficiency(const Trace& t, const LaunchJoin& join,
                                       const StepsResult& steps,
                                       const EnclosingNvtxRanges* shared) {
  MathEfficiency r;
  const SliceTable& s = t.slices;
  const size_t n = s.size();

  // The GPU: the device whose streams ran the most kernel time.
  std::map<int64_t, int64_t> ns_by_device;
  for (size_t i = 0; i < n; ++i)
    if (s.kind[i] == SliceKind::kKernel) ns_by_device[t.tracks[s.track[i]].device] += s.dur[i];
  int64_t best_device = kNoValue, best_ns = -1;
  for (const auto& [dev, ns] : ns_by_device)
    if (ns > best_ns) best_device = dev, best_ns = ns;
  for (const DeviceProperties& d : t.devices)
    if (d.id == best_device) r.gpu_name = d.name;
  if (r.gpu_name.empty() && !t.devices.empty()) r.gpu_name = t.devices.front().name;
  r.peak = find_gpu_peak(r.gpu_name);

  r.has_shapes = !s.op_shapes.empty();
  r.record_shapes_off = !t.facts.saw_input_dims;
  r.nsys_export = t.facts.format == TraceFormat::kNsysSqlite;
  if (!r.has_shapes) return r;  // costs one pass over the kernels on traces without shapes

  // Group the shaped ops by (name, dims, types, concrete): the interned texts make equal shapes
  // equal ids, so each distinct shape is parsed once.
  std::map<std::tuple<StringId, StringId, StringId, StringId>, uint32_t> group_of_key;
  std::vector<Group> groups;
  OpNames op_names(t);
  std::vector<uint8_t> ok(n, 0), named(n, 0);
  std::vector<uint32_t> group_of_shape(s.op_shapes.size());
  for (size_t j = 0; j < s.op_shapes.size(); ++j) {
    const auto& [i, a] = s.op_shapes[j];
    const StringId op = op_names.of(s.name[i]);
    if (!has_flops_formula(op_names.text(op))) continue;
    auto key = std::make_tuple(op, a.dims, a.types, a.concrete);
    auto [it, fresh] = group_of_key.emplace(key, static_cast<uint32_t>(groups.size()));
    if (fresh) {
      Group g;
      g.first_slice = i;
      g.op = op;
      g.f = op_flops(op_names.text(op), t.str(a.dims), t.str(a.types), t.str(a.concrete));
      groups.push_back(std::move(g));
    }
    group_of_shape[j] = it->second;
    named[i] = 1;
    ok[i] = groups[it->second].f.ok ? 1 : 0;
  }

  // Innermost: an op counts when no op below it has FLOPs. Children come after their parent in
  // slice order (sorted by track, start, longer first), so one backward pass propagates up.
  std::vector<uint8_t> below_ok(n, 0), below_named(n, 0);
  for (size_t i = n; i-- > 0;) {
    const int32_t p = s.parent[i];
    if (p < 0 || static_cast<size_t>(p) >= i) continue;
    below_ok[p] |= static_cast<uint8_t>(ok[i] | below_ok[i]);
    below_named[p] |= static_cast<uint8_t>(named[i] | below_named[i]);
  }
  std::vector<Instance> inst;
  std::vector<int32_t> owner(n, -1);  // per slice: the instance of its innermost counted ancestor
  std::map<std::pair<StringId, std::string>, uint64_t> uncounted;
  for (size_t j = 0; j < s.op_shapes.size(); ++j) {
    const uint32_t i = s.op_shapes[j].first;
    if (!named[i]) continue;
    if (ok[i] && !below_ok[i]) {
      owner[i] = static_cast<int32_t>(inst.size());
      inst.push_back({i, group_of_shape[j]});
    } else if (!ok[i] && !below_ok[i] && !below_named[i]) {
      ++uncounted[{groups[group_of_shape[j]].op, groups[group_of_shape[j]].f.why_not}];
    }
  }
  // Forward pass: every slice inherits its parent's owner unless it is counted itself.
  for (size_t i = 0; i < n; ++i) {
    if (owner[i] >= 0) continue;
    const int32_t p = s.parent[i];
    if (p >= 0 && static_cast<size_t>(p) < i) owner[i] = owner[p];
  }

  // Kernels -> the instance that launched them: the op around the launching call, or in an
  // Nsight Systems export (the calls on a row of their own) the op range open on the
  // launching thread at the call.
  std::vector<int32_t> kernel_owner(n, -1);
  std::optional<EnclosingNvtxRanges> own;
  const EnclosingNvtxRanges* nvtx = shared;
  if (!nvtx && t.facts.format == TraceFormat::kNsysSqlite) nvtx = &own.emplace(t, steps, 1);
  for (size_t k = 0; k < n; ++k) {
    if (s.kind[k] != SliceKind::kKernel) continue;
    const int32_t rt = join.partner[k];
    if (rt < 0) continue;
    kernel_owner[k] = owner[rt];
    if (kernel_owner[k] < 0 && nvtx)
      nvtx->walk_out_slices(static_cast<uint32_t>(rt), [&](uint32_t range) {
        kernel_owner[k] = owner[range];
        return false;  // the innermost open range has its op's instance (owner[] inherits)
      });
    if (kernel_owner[k] < 0) continue;
    Instance& in = inst[kernel_owner[k]];
    in.gpu_ns += s.dur[k];
    Group& g = groups[in.group];
    g.kernel_ns[s.name[k]] += s.dur[k];
    ++g.kernels;
  }
  for (Group& g : groups) {
    g.precision = g.f.dtype;
    if (g.precision == MathDtype::kUnknown) {  // no input types: the kernels' own, by time
      std::array<int64_t, 8> ns_by_dtype{};
      for (const auto& [name, ns] : g.kernel_ns)
        ns_by_dtype[static_cast<size_t>(dtype_from_kernel_name(t.str(name)))] += ns;
      for (size_t d = 1; d < ns_by_dtype.size(); ++d)
        if (ns_by_dtype[d] > ns_by_dtype[static_cast<size_t>(g.precision)])
          g.precision = static_cast<MathDtype>(d);
    }
    if (g.precision == MathDtype::kFp32)
      for (const auto& [name, ns] : g.kernel_ns)
        if (is_tf32_kernel(t.str(name))) g.precision = MathDtype::kTf32;
    g.peak = r.peak ? peak_tflops(*r.peak, g.precision) : 0;
  }
  for (Instance& in : inst) {
    Group& g = groups[in.group];
    ++g.count;
    g.gpu_ns += in.gpu_ns;
    // achieved TFLOP/s = flops / ns / 1000; >= 50% of peak
    in.fast = g.peak > 0 && in.gpu_ns > 0 && g.f.flops / in.gpu_ns / 1000 >= 0.5 * g.peak;
    r.total_flops += g.f.flops;
    r.total_math_ns += in.gpu_ns;
  }
  r.counted_ops = inst.size();

  for (const Group& g : groups) {
    if (!g.count) continue;
    MathOpRow row;
    row.name = std::string(op_names.text(g.op));
    row.example = g.first_slice;
    const OpShapeArgs* a = s.op_shape(g.first_slice);
    row.shapes = a ? shapes_text(t.str(a->dims)) : "";
    row.dtype = g.precision;
    row.family = g.f.family;
    row.formula = g.f.formula;
    row.m = g.f.m;
    row.n = g.f.n;
    row.k = g.f.k;
    row.count = g.count;
    row.flops_each = g.f.flops;
    row.flops = g.f.flops * static_cast<double>(g.count);
    row.gpu_ns = g.gpu_ns;
    row.kernels = g.kernels;
    std::vector<std::pair<std::string, int64_t>> ks;
    for (const auto& [name, ns] : g.kernel_ns) ks.emplace_back(std::string(t.str(name)), ns);
    std::sort(ks.begin(), ks.end(), [](const auto& x, const auto& y) {
      return x.second != y.second ? x.second > y.second : x.first < y.first;
    });
    if (ks.size() > 3) ks.resize(3);
    row.top_kernels = std::move(ks);
    if (g.gpu_ns > 0) row.achieved_tflops = row.flops / static_cast<double>(g.gpu_ns) / 1000;
    row.peak_tflops = g.peak;
    if (g.peak > 0 && g.gpu_ns > 0) row.pct_of_peak = row.achieved_tflops / g.peak * 100;
    r.ops.push_back(std::move(row));
  }
  std::sort(r.ops.begin(), r.ops.end(), [](const MathOpRow& x, const MathOpRow& y) {
    if (x.gpu_ns != y.gpu_ns) return x.gpu_ns > y.gpu_ns;
    if (x.flops != y.flops) return x.flops > y.flops;
    if (x.name != y.name) return x.name < y.name;
    return x.shapes < y.shapes;
  });
  for (const auto& [key, count] : uncounted)
    r.uncounted.push_back({std::string(op_names.text(key.first)), key.second, count});

  // Per step. Steps are in time order and do not overlap: a binary search finds each one.
  const std::vector<Step>& st = steps.steps;
  for (size_t i = 0; i < n; ++i)
    if (s.kind[i] == SliceKind::kKernel) r.total_kernel_ns += s.dur[i];
  if (st.empty()) return r;
  // Kernels by device time from where a step's own work starts (the first step's queued
  // backlog belongs to the steps before the capture), ops by host time.
  auto step_of = [&st](int64_t ts, bool host) -> int {
    auto it = std::upper_bound(st.begin(), st.end(), ts, [host](int64_t v, const Step& x) {
      return v < (host ? x.host_begin : x.begin + x.queued_ns);
    });
    if (it == st.begin()) return -1;
    --it;
    return ts < (host ? it->host_end : it->end) ? static_cast<int>(it - st.begin()) : -1;
  };
  std::vector<MathStepRow> rows(st.size());
  std::vector<std::array<double, 8>> by_dtype(st.size());
  for (auto& a : by_dtype) a.fill(0);
  for (const Instance& in : inst) {
    const int k = step_of(s.ts[in.slice], true);
    if (k < 0) continue;
    const Group& g = groups[in.group];
    rows[k].flops += g.f.flops;
    by_dtype[k][static_cast<size_t>(g.precision)] += g.f.flops;
  }
  for (size_t i = 0; i < n; ++i) {
    if (s.kind[i] != SliceKind::kKernel) continue;
    const int k = step_of(s.ts[i], false);
    if (k < 0) continue;
    rows[k].kernel_ns += s.dur[i];
    if (kernel_owner[i] < 0) continue;
    rows[k].math_ns += s.dur[i];
    if (inst[kernel_owner[i]].fast) rows[k].fast_math_ns += s.dur[i];
  }
  for (size_t k = 0; k < st.size(); ++k) {
    MathStepRow& row = rows[k];
    row.number = st[k].number;
    // Its own time: a first step that starts with the warm-up steps' GPU work still queued
    // (Step.queued_ns) did its own FLOPs in the rest.
    row.dur_ns = st[k].own_dur();
    size_t best = 0;
    for (size_t d = 1; d < 8; ++d)
      if (by_dtype[k][d] > by_dtype[k][best]) best = d;
    row.dominant = static_cast<MathDtype>(best);
    row.peak_tflops = r.peak ? peak_tflops(*r.peak, row.dominant) : 0;
    if (row.peak_tflops > 0 && row.dur_ns > 0)
      // TFLOP/s x ns = 1e3 FLOPs
      row.mfu_pct = row.flops / (static_cast<double>(row.dur_ns) * row.peak_tflops * 1e3) * 100;
    if (row.peak_tflops > 0 && row.kernel_ns > 0)
      row.fast_math_share_pct = static_cast<double>(row.fast_math_ns) / row.kernel_ns * 100;
  }
  r.steps = std::move(rows);
  return r;
}

}  // namespace ks
