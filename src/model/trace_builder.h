// Builds a Trace from events in input order: finds or creates processes and tracks, pairs B/E
// per thread and b/e async pairs, then finalize() sorts slices per track and computes depth and
// parent. Knows nothing about JSON: importers of other formats can use it too.
#pragma once
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/trace.h"
#include "model/trace_part.h"

namespace ks {

// The flow keys (category, id) whose starts and finishes differ in number: the flows whose other
// end is missing (Diag::kFlowWithoutEnd), of a whole file or of one rank's part of it.
uint64_t count_unpaired_flows(const FlowTable& flows);

struct SliceArgs {
  int64_t correlation = kNoValue;
  int64_t external_id = kNoValue;  // Kineto's call-order number: orders ties on (ts, dur)
  int64_t bytes = kNoValue;
  int64_t stream = kNoValue;
  int64_t device = kNoValue;
  const KernelLaunchInfo* launch = nullptr;
  std::string_view call_stack;  // kept (interned) only when present
  // Shape args (raw JSON), kept when `has_shapes` (math ops: model/math_op_names.h).
  bool has_shapes = false;
  std::string_view input_dims, input_types, concrete_inputs;
  // Collective args, kept only when `has_collective`.
  bool has_collective = false;
  int64_t in_nelems = kNoValue, out_nelems = kNoValue, group_size = kNoValue;
  int64_t peer = kNoValue;
  std::string_view collective, dtype, process_group, process_group_ranks;
  // cuda_sync wait args, kept only when wait_on_stream >= 0.
  int64_t wait_on_stream = kNoValue, wait_on_record_correlation = kNoValue;
};

struct EventSource {  // where the event sits in the input, for diagnostics and details views
  uint64_t offset = 0;
  uint32_t length = 0;
};

class TraceBuilder {
 public:
  explicit TraceBuilder(Trace* trace);

  uint32_t process(std::string_view pid_text);
  TrackId track(std::string_view pid_text, std::string_view tid_text);

  void add_complete(TrackId track, int64_t ts, int64_t dur, std::string_view name,
                    std::string_view cat, const SliceArgs& args, EventSource src);
  // For importers with a name table of their own (Nsight Systems' StringIds): the same as
  // add_complete with the name and category already interned in this trace's pool and the kind
  // given, so a row costs no hashing of its name.
  // Returns the slice's index, valid until finalize() sorts the slices.
  uint32_t add_complete_ids(TrackId track, int64_t ts, int64_t dur, StringId name, StringId cat,
                            SliceKind kind, const SliceArgs& args, EventSource src) {
    return append_slice(track, ts, dur, name, cat, kind, args, src);
  }
  void add_begin(TrackId track, int64_t ts, std::string_view name, std::string_view cat,
                 const SliceArgs& args, EventSource src);
  void add_end(TrackId track, int64_t ts, std::string_view name, EventSource src);
  void add_async(char ph, std::string_view pid_text, int64_t ts, std::string_view name,
                 std::string_view cat, std::string_view id, EventSource src);
  void add_flow(TrackId track, char ph, int64_t ts, std::string_view id, std::string_view cat,
                bool binds_enclosing);
  // add_flow with the id made (flow_id_of) and the category interned already.
  void add_flow_ids(TrackId track, char ph, int64_t ts, FlowId id, StringId cat,
                    bool binds_enclosing) {
    FlowTable& f = t_->flows;
    f.ts.push_back(ts);
    f.track.push_back(track);
    f.id.push_back(id);
    f.cat.push_back(cat);
    f.phase.push_back(ph);
    f.binds_enclosing.push_back(binds_enclosing);
  }
  // Room for this many more slices and flows, for importers that know their row counts up front
  // (Nsight Systems exports; launch_infos: kernels and copies): columns grown by push_back hold up
  // to twice what they use, and each doubling briefly holds old and new, which set the peak memory
  // of a large import.
  void reserve(size_t slices, size_t flows, size_t launch_infos);
  void add_counter(std::string_view pid_text, int64_t ts, std::string_view series, double value);
  void add_instant(TrackId track, int64_t ts, std::string_view name, std::string_view cat,
                   char scope, int64_t mem_bytes, int64_t total_allocated, int64_t total_reserved,
                   int64_t mem_device);

  void set_process_name(std::string_view pid_text, std::string_view name, uint64_t offset);
  void set_process_labels(std::string_view pid_text, std::string_view labels);
  void set_process_sort_index(std::string_view pid_text, int64_t index);
  void set_thread_name(std::string_view pid_text, std::string_view tid_text, std::string_view name,
                       uint64_t offset);
  void set_thread_sort_index(std::string_view pid_text, std::string_view tid_text, int64_t index);

  // Times seen on any non-metadata event, for the trace span.
  void observe_time(int64_t ts, int64_t end);

  void finalize();

  // Two importers on one file (trace_part.h). The second's builder, at the end of its part: what
  // the merge needs beyond the model.
  PartState part_state() const;
  // The first's, before finalize(): takes the part's model (its events came after all of this
  // builder's) as if its events had been added here one by one. The part holds no paired events.
  void merge_part(const Trace& part, const PartState& state);

 private:
  uint32_t append_slice(TrackId track, int64_t ts, int64_t dur, StringId name, StringId cat,
                        SliceKind kind, const SliceArgs& args, EventSource src);
  void apply_base_time();
  void close_open_slices();
  void leave_out_stray_times();
  void sort_slices();
  void compute_depth_and_parent();
  void classify_tracks();
  void check_flows();

  Trace* t_;
  std::unordered_map<std::string, uint32_t> process_index_;
  std::unordered_map<std::string, TrackId> track_index_;
  std::vector<std::vector<uint32_t>> open_begins_;  // per track: open B slices
  std::unordered_map<std::string, uint32_t> open_async_;
  std::unordered_map<StringId, SliceKind> kind_of_cat_;
  std::string key_;  // scratch
  bool any_time_ = false;
  int64_t last_ts_ = 0;
  bool out_of_order_ = false;
  PartState part_;              // kept up to date for part_state()
  std::vector<uint8_t> stray_;  // per slice, 1: left out by sort_slices (empty: none)
};

}  // namespace ks
