// One trace event as read from JSON, before it enters the model. String views point into the
// parser's buffers and are valid only until the next event is read.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

namespace ks {

// A pid or tid: Kineto writes numbers, legacy and DevTools traces sometimes strings.
struct RawId {
  bool present = false;
  std::string_view text;  // the number's digits or the string
};

struct RawCounterValue {
  std::string_view key;
  double value;
};

// Everything of an event but its counter values: trivially copyable, so that resetting it for the
// next event is one copy (it was 3.7% of reading a trace in WebAssembly, field by field).
struct RawEventFields {
  char ph = 0;
  std::string_view ph_text;
  std::string_view name;
  std::string_view cat;
  // A text field (name, cat, ph, a metadata or collective arg) was a JSON object or array, read
  // as its JSON text (non_string_text.h): counted as name_not_string.
  bool text_was_json = false;
  RawId pid, tid;
  bool has_ts = false, has_dur = false, bad_number = false;
  int64_t ts_ns = 0, dur_ns = 0;
  std::string_view id;           // flow / async id (number digits or string)
  bool binds_enclosing = false;  // bp:"e"
  char scope = 0;                // instant scope g/p/t

  // Selected args.
  int64_t correlation = -1, stream = -1, device = -1, bytes = -1;
  // "External id" ("external id" in 2021): Kineto numbers ops in call order, parent first (orders
  // ties on ts and dur).
  int64_t external_id = -1;
  bool has_grid = false, has_block = false;
  uint32_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  float blocks_per_sm = -1, warps_per_sm = -1, occupancy_pct = -1, bandwidth_gbps = -1;
  bool has_call_stack = false, has_input_dims = false;
  bool has_flops = false;  // a "flops" arg (with_flops)
  // Shape args as raw JSON text (arrays), kept by the builder for math ops only.
  std::string_view input_dims_json, input_types_json, concrete_inputs_json;
  std::string_view call_stack;  // "Call stack" (with_stack, older Kineto): "file.py(12): fn;..."
  // Collective args (NCCL kernels, record_param_comms).
  bool has_collective = false;
  int64_t in_nelems = -1, out_nelems = -1, group_size = -1;
  int64_t peer = -1;  // a send's "Dst Rank", a receive's "Src Rank"
  std::string_view collective, dtype, process_group;
  std::string_view process_group_ranks;  // "Process Group Ranks": "[0, 1, 2, 3]" (2.2+)
  // Before Kineto's collective args (PyTorch < 2.2): the "nccl:<collective>" record_function
  // carries its input tensor's "Input Dims" and "Input type" (a C++ type name).
  int64_t legacy_nelems = -1;
  // cuda_sync waits: "wait_on_stream", "wait_on_cuda_event_record_corr_id".
  int64_t wait_on_stream = -1, wait_on_record_corr = -1;
  std::string_view legacy_dtype;
  // Metadata (M) args.
  std::string_view meta_name, meta_labels;
  bool has_sort_index = false;
  int64_t sort_index = 0;
  // [memory] instant values.
  int64_t mem_bytes = -1, mem_total_allocated = -1, mem_total_reserved = -1, mem_device = -1;
};

struct RawEvent : RawEventFields {
  // Counter (C) series values.
  std::vector<RawCounterValue> counter_values;

  void reset() {
    static const RawEventFields kEmpty;
    static_cast<RawEventFields&>(*this) = kEmpty;
    counter_values.clear();  // keeps its capacity
  }
};

}  // namespace ks
