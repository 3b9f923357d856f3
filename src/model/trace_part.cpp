#include "model/trace_part.h"

#include <cstring>
#include <type_traits>

namespace ks {

namespace {

// Columns go as a count and their raw bytes (both ends are the same build of this code, little
// endian: native x86-64/arm64 or WebAssembly), strings as a length and their bytes.
class Encoder {
 public:
  explicit Encoder(std::string* out) : out_(out) {}
  template <typename T>
  void value(const T& v) {
    static_assert(std::is_trivially_copyable<T>::value, "raw bytes only");
    out_->append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  template <typename T>
  void column(const std::vector<T>& v) {
    static_assert(std::is_trivially_copyable<T>::value, "raw bytes only");
    value(static_cast<uint64_t>(v.size()));
    out_->append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  void column(const std::vector<bool>& v) {
    value(static_cast<uint64_t>(v.size()));
    for (bool b : v) out_->push_back(b ? 1 : 0);
  }
  void text(const std::string& s) {
    value(static_cast<uint64_t>(s.size()));
    out_->append(s);
  }
  void bytes_of(std::string_view s) { out_->append(s.data(), s.size()); }
  template <typename T, typename F>
  void list(const std::vector<T>& v, F&& each) {
    value(static_cast<uint64_t>(v.size()));
    for (const T& x : v) each(const_cast<T&>(x));
  }
  void count_map(const std::map<std::string, uint64_t>& m) {
    value(static_cast<uint64_t>(m.size()));
    for (const auto& kv : m) {
      text(kv.first);
      value(kv.second);
    }
  }

 private:
  std::string* out_;
};

// The encoding's length, walked as the Encoder walks it: the part is written into a string of
// exactly that size. Grown by appends, the string of a 16 MB part was reallocated a dozen times
// and copied again behind the header (importer.cpp take_part), and each copy went into fresh
// memory, whose first write costs a page fault per 4 KiB (~16 us on this project's machine: most
// of the helper's time from its read's end to the part sent, docs/performance.md session 41).
class Sizer {
 public:
  size_t bytes = 0;
  template <typename T>
  void value(const T& v) {
    bytes += sizeof v;
  }
  template <typename T>
  void column(const std::vector<T>& v) {
    bytes += sizeof(uint64_t) + v.size() * sizeof(T);
  }
  void column(const std::vector<bool>& v) { bytes += sizeof(uint64_t) + v.size(); }
  void text(const std::string& s) { bytes += sizeof(uint64_t) + s.size(); }
  void bytes_of(std::string_view s) { bytes += s.size(); }
  template <typename T, typename F>
  void list(const std::vector<T>& v, F&& each) {
    bytes += sizeof(uint64_t);
    for (const T& x : v) each(const_cast<T&>(x));
  }
  void count_map(const std::map<std::string, uint64_t>& m) {
    bytes += sizeof(uint64_t);
    for (const auto& kv : m) bytes += sizeof(uint64_t) + kv.first.size() + sizeof(uint64_t);
  }
};

class Decoder {
 public:
  Decoder(const char* data, size_t len) : p_(data), end_(data + len) {}
  bool ok() const { return ok_; }
  bool at_end() const { return p_ == end_; }
  template <typename T>
  void value(T& v) {
    if (!need(sizeof v)) return;
    std::memcpy(&v, p_, sizeof v);
    p_ += sizeof v;
  }
  template <typename T>
  void column(std::vector<T>& v) {
    uint64_t n = count(sizeof(T));
    v.resize(n);
    if (n) std::memcpy(v.data(), p_, n * sizeof(T));
    p_ += n * sizeof(T);
  }
  void column(std::vector<bool>& v) {
    uint64_t n = count(1);
    v.resize(n);
    for (uint64_t i = 0; i < n; ++i) v[i] = p_[i] != 0;
    p_ += n;
  }
  void text(std::string& s) {
    uint64_t n = count(1);
    s.assign(p_, n);
    p_ += n;
  }
  template <typename T, typename F>
  void list(std::vector<T>& v, F&& each) {
    v.resize(count(1));  // every element takes at least a byte
    for (T& x : v) each(x);
  }
  void count_map(std::map<std::string, uint64_t>& m) {
    uint64_t n = count(16);
    m.clear();
    for (uint64_t i = 0; i < n && ok_; ++i) {
      std::string key;
      uint64_t c = 0;
      text(key);
      value(c);
      m[key] = c;
    }
  }

 private:
  bool need(uint64_t n) {
    if (ok_ && n <= static_cast<uint64_t>(end_ - p_)) return true;
    ok_ = false;
    return false;
  }
  // A count of elements of at least `size` bytes each: no more than the bytes left can hold.
  uint64_t count(size_t size) {
    uint64_t n = 0;
    value(n);
    if (!ok_ || n > static_cast<uint64_t>(end_ - p_) / size) {
      ok_ = false;
      return 0;
    }
    return n;
  }
  const char* p_;
  const char* end_;
  bool ok_ = true;
};

// Everything a part holds, in one order, for both directions.
template <typename Codec>
void visit_part(Trace& t, PartState& st, Codec& c) {
  c.list(t.processes, [&c](Process& p) {
    c.value(p.pid_text);
    c.text(p.name);
    c.text(p.labels);
    c.value(p.sort_index);
    c.value(p.has_sort_index);
    c.value(p.metadata_events);
  });
  c.list(t.tracks, [&c](Track& tr) {
    c.value(tr.process);
    c.value(tr.tid_text);
    c.text(tr.name);
    c.value(tr.sort_index);
    c.value(tr.has_sort_index);
    c.value(tr.kind);
    c.value(tr.stream);
    c.value(tr.device);
  });
  SliceTable& s = t.slices;
  c.column(s.ts);
  c.column(s.dur);
  c.column(s.track);
  c.column(s.name);
  c.column(s.cat);
  c.column(s.kind);
  c.column(s.correlation);
  c.column(s.launch_info);
  c.column(s.source.offset_low);
  c.column(s.source.length_low);
  c.column(s.source.key);
  c.column(s.source.high_offset);
  c.column(s.source.high_length);
  uint8_t wide = s.source.wide ? 1 : 0;  // a byte, not a bool: any byte decodes to a valid value
  c.value(wide);
  s.source.wide = wide != 0;
  c.column(s.source.wide_offset);
  c.column(s.source.wide_length);
  c.column(s.launch_infos);
  c.list(s.call_stacks, [&c](std::pair<uint32_t, StringId>& cs) {
    c.value(cs.first);
    c.value(cs.second);
  });
  c.list(s.collective_args, [&c](std::pair<uint32_t, CollectiveArgs>& a) {
    c.value(a.first);
    c.value(a.second.in_nelems);
    c.value(a.second.out_nelems);
    c.value(a.second.group_size);
    c.value(a.second.peer);
    c.value(a.second.collective);
    c.value(a.second.dtype);
    c.value(a.second.process_group);
    c.value(a.second.group_ranks);
  });
  c.list(s.op_shapes, [&c](std::pair<uint32_t, OpShapeArgs>& o) {
    c.value(o.first);
    c.value(o.second.dims);
    c.value(o.second.types);
    c.value(o.second.concrete);
  });
  c.list(s.sync_waits, [&c](std::pair<uint32_t, SyncWaitArgs>& w) {
    c.value(w.first);
    c.value(w.second.wait_on_stream);
    c.value(w.second.record_correlation);
  });
  c.list(s.copy_sizes, [&c](std::pair<uint32_t, int64_t>& x) {
    c.value(x.first);
    c.value(x.second);
  });
  c.list(s.external_ids, [&c](std::pair<uint32_t, int64_t>& x) {
    c.value(x.first);
    c.value(x.second);
  });
  FlowTable& f = t.flows;
  c.column(f.ts);
  c.column(f.track);
  c.column(f.id);
  c.column(f.cat);
  c.column(f.phase);
  c.column(f.binds_enclosing);
  CounterTable& k = t.counters;
  c.column(k.ts);
  c.column(k.process);
  c.column(k.series);
  c.column(k.value);
  InstantTable& in = t.instants;
  c.column(in.ts);
  c.column(in.track);
  c.column(in.name);
  c.column(in.cat);
  c.column(in.scope);
  c.column(in.mem_bytes);
  c.column(in.mem_total_allocated);
  c.column(in.mem_total_reserved);
  c.column(in.mem_device);
  TraceFacts& fa = t.facts;
  c.value(fa.events_total);
  c.count_map(fa.events_by_phase);
  c.count_map(fa.categories);
  c.value(fa.start_ns);
  c.value(fa.end_ns);
  c.value(fa.saw_call_stack);
  c.value(fa.saw_input_dims);
  c.value(fa.saw_flops);
  c.list(st.process_first_name, [&c](std::string& x) { c.text(x); });
  c.list(st.track_first_name, [&c](std::string& x) { c.text(x); });
  c.column(st.process_first_name_offset);
  c.column(st.track_first_name_offset);
  c.column(st.process_labels_set);
  c.value(st.any_time);
  c.value(st.first_ts);
  c.value(st.last_ts);
  c.value(st.out_of_order);
  c.value(st.paired_events);
}

template <typename T>
bool ids_below(const std::vector<T>& ids, size_t n) {
  for (T id : ids)
    if (static_cast<size_t>(id) >= n) return false;
  return true;
}

// A flow id that is interned text must name one of the part's strings.
bool flow_ids_below(const std::vector<FlowId>& ids, size_t strings) {
  for (FlowId id : ids)
    if (id & kFlowIdText && (id & ~kFlowIdText) >= strings) return false;
  return true;
}

// Every index the merge follows must point inside the part.
bool consistent(const Trace& t, const PartState& st) {
  const size_t strings = t.strings.size(), tracks = t.tracks.size();
  const SliceTable& s = t.slices;
  const size_t n = s.size();
  for (const Process& p : t.processes)
    if (p.pid_text >= strings) return false;
  for (const Track& tr : t.tracks)
    if (tr.process >= t.processes.size() || tr.tid_text >= strings || tr.kind > TrackKind::kAsync)
      return false;
  for (SliceKind k : t.slices.kind)
    if (k > SliceKind::kAsync) return false;
  for (size_t size : {s.dur.size(), s.track.size(), s.name.size(), s.cat.size(), s.kind.size(),
                      s.correlation.size(), s.launch_info.size(), s.source.size()})
    if (size != n) return false;
  if (!s.source.consistent()) return false;
  for (int32_t li : s.launch_info)
    if (li >= static_cast<int32_t>(s.launch_infos.size())) return false;
  for (const auto& cs : s.call_stacks)
    if (cs.first >= n || cs.second >= strings) return false;
  for (const auto& ca : s.collective_args)
    if (ca.first >= n || ca.second.collective >= strings || ca.second.dtype >= strings ||
        ca.second.process_group >= strings || ca.second.group_ranks >= strings)
      return false;
  for (const auto& o : s.op_shapes)
    if (o.first >= n || o.second.dims >= strings || o.second.types >= strings ||
        o.second.concrete >= strings)
      return false;
  for (const auto& w : s.sync_waits)
    if (w.first >= n) return false;
  for (const auto& x : s.copy_sizes)
    if (x.first >= n) return false;
  for (const auto& x : s.external_ids)
    if (x.first >= n) return false;
  const FlowTable& f = t.flows;
  const CounterTable& k = t.counters;
  const InstantTable& in = t.instants;
  for (size_t size :
       {f.track.size(), f.id.size(), f.cat.size(), f.phase.size(), f.binds_enclosing.size()})
    if (size != f.ts.size()) return false;
  for (size_t size : {k.process.size(), k.series.size(), k.value.size()})
    if (size != k.ts.size()) return false;
  for (size_t size :
       {in.track.size(), in.name.size(), in.cat.size(), in.scope.size(), in.mem_bytes.size(),
        in.mem_total_allocated.size(), in.mem_total_reserved.size(), in.mem_device.size()})
    if (size != in.ts.size()) return false;
  const size_t procs = t.processes.size();
  return ids_below(s.track, tracks) && ids_below(s.name, strings) && ids_below(s.cat, strings) &&
         ids_below(f.track, tracks) && flow_ids_below(f.id, strings) && ids_below(f.cat, strings) &&
         ids_below(k.process, procs) && ids_below(k.series, strings) &&
         ids_below(in.track, tracks) && ids_below(in.name, strings) && ids_below(in.cat, strings) &&
         st.process_first_name.size() == procs && st.process_first_name_offset.size() == procs &&
         st.process_labels_set.size() == procs && st.track_first_name.size() == tracks &&
         st.track_first_name_offset.size() == tracks;
}

// Strings and diagnostics first, then the visitor's fields: for both the Sizer and the Encoder.
template <typename Codec>
void write_part(const Trace& part, const PartState& state, Codec& c) {
  c.value(static_cast<uint64_t>(part.strings.size()));
  for (StringId i = 1; i < part.strings.size(); ++i) {
    std::string_view s = part.str(i);
    c.value(static_cast<uint64_t>(s.size()));
    c.bytes_of(s);
  }
  for (size_t d = 0; d < static_cast<size_t>(Diag::kCount); ++d) {
    const DiagEntry& e = part.diagnostics.get(static_cast<Diag>(d));
    c.value(e.count);
    c.value(e.first_offset);
    c.text(e.excerpt);
  }
  // The visitor reads through non-const references; sizing and encoding only read.
  visit_part(const_cast<Trace&>(part), const_cast<PartState&>(state), c);
}

}  // namespace

void append_trace_part(const Trace& part, const PartState& state, std::string* out) {
  Sizer size;
  write_part(part, state, size);
  out->reserve(out->size() + size.bytes);
  Encoder enc(out);
  write_part(part, state, enc);
}

std::string encode_trace_part(const Trace& part, const PartState& state) {
  std::string out;
  append_trace_part(part, state, &out);
  return out;
}

bool decode_trace_part(const char* data, size_t len, Trace* part, PartState* state) {
  Decoder dec(data, len);
  uint64_t strings = 0;
  dec.value(strings);
  std::string s;
  for (uint64_t i = 1; i < strings && dec.ok(); ++i) {
    dec.text(s);
    // The strings were distinct in the part's pool: each must get the next id here.
    if (dec.ok() && part->strings.intern(s) != i) return false;
  }
  for (size_t d = 0; d < static_cast<size_t>(Diag::kCount) && dec.ok(); ++d) {
    DiagEntry e;
    dec.value(e.count);
    dec.value(e.first_offset);
    dec.text(e.excerpt);
    if (e.count) part->diagnostics.add(static_cast<Diag>(d), e.first_offset, e.excerpt, e.count);
  }
  visit_part(*part, *state, dec);
  return dec.ok() && dec.at_end() && part->strings.size() == strings && consistent(*part, *state);
}

}  // namespace ks
