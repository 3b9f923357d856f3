#include "report/findings_json.h"

#include "util/exact_id.h"

namespace ks {

void write_findings_json(JsonWriter& w, const Trace* trace, const std::vector<Finding>& findings) {
  const int64_t t0 = trace ? trace->facts.start_ns : 0;
  w.key("findings").begin_array();
  for (const Finding& f : findings) {
    w.begin_object();
    w.field("id", std::string_view(f.id));
    w.field("severity", severity_name(f.severity));
    w.field("title", std::string_view(f.title));
    w.field("meaning", std::string_view(f.meaning));
    w.key("evidence").begin_object();
    for (const Evidence& e : f.evidence) {
      if (e.is_number)
        w.field(e.key, e.number, e.digits);
      else
        w.field(e.key, std::string_view(e.text));
    }
    w.end_object();
    w.key("ranges").begin_array();
    for (const TimeRange& r : f.ranges) {
      w.begin_object();
      w.field_micros("start_us", r.begin_ns - t0);
      w.field_micros("end_us", r.end_ns - t0);
      w.field("label", std::string_view(r.label));
      w.end_object();
    }
    w.end_array();
    w.key("events").begin_array();
    for (uint32_t i : f.events) {
      if (!trace) break;
      const Trace& t = *trace;
      w.begin_object();
      w.field("name", t.str(t.slices.name[i]));
      w.field_micros("ts_us", t.slices.ts[i] - t0);
      w.field_micros("dur_us", t.slices.dur[i]);
      w.field("byte_offset", t.slices.file_offset[i]);
      write_exact_id(&w, "event_id", t.slices.file_offset[i]);
      w.end_object();
    }
    w.end_array();
    w.field("fix", std::string_view(f.fix));
    w.field("fix_code", std::string_view(f.fix_code));
    w.end_object();
  }
  w.end_array();
}

}  // namespace ks
