// The practical ceiling for ingest in the browser: simdjson On Demand walking every event of
// a whole trace held in memory, touching each field (a number is parsed, a string is read), and
// nothing else — no model, no analyses. Built with the same compiler flags as the Kinetoscope
// WASM module (bench/CMakeLists.txt), so the ratio Kinetoscope/walk is what our own work costs.
#include <emscripten/bind.h>
#include <simdjson.h>

#include <cstdint>
#include <cstdlib>

namespace od = simdjson::ondemand;

namespace {

// Returns the number of events walked, or -1 on a parse error. `ptr` holds `len` bytes of JSON
// followed by at least simdjson::SIMDJSON_PADDING readable bytes.
double walk(uintptr_t ptr, size_t len) {
  od::parser parser;
  od::document doc;
  if (parser.iterate(reinterpret_cast<const char*>(ptr), len, len + simdjson::SIMDJSON_PADDING)
          .get(doc))
    return -1;
  od::object top;
  od::array events;
  if (doc.get_object().get(top) || top["traceEvents"].get_array().get(events)) return -1;
  double n = 0, sink = 0;
  for (auto ev : events) {
    od::object obj;
    if (ev.get_object().get(obj)) return -1;
    for (auto f : obj) {
      od::field field;
      if (std::move(f).get(field)) return -1;
      od::value v = field.value();
      od::json_type t;
      if (v.type().get(t)) return -1;
      if (t == od::json_type::number) {
        double d;
        if (!v.get_double().get(d)) sink += d;
      } else if (t == od::json_type::string) {
        std::string_view s;
        if (!v.get_string().get(s)) sink += static_cast<double>(s.size());
      } else {
        // args objects and arrays: skipped as a whole, as a parser must at least validate them
      }
    }
    n += 1;
  }
  return sink == -12345 ? -1 : n;
}

}  // namespace

EMSCRIPTEN_BINDINGS(walk) {
  emscripten::function("walk", &walk);
}
