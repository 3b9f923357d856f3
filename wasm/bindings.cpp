// The WebAssembly boundary (Embind lives here and nowhere else). The worker owns one Session
// per file: it copies each chunk of decompressed JSON into WASM memory and calls feed(); the
// report comes back as the same JSON text the CLI writes, so page and CLI cannot disagree.
#include <emscripten/bind.h>

#include <memory>
#include <string>

#include "import/chrome_json/importer.h"
#include "report/report.h"

namespace {

class Session {
 public:
  void setSource(std::string name, bool gzip) { importer_.set_source(std::move(name), gzip); }
  void setDropLastStep(bool drop) { options_.drop_last_step = drop; }

  // `ptr` is a WASM address the worker filled (Module._malloc + HEAPU8.set).
  bool feed(uintptr_t ptr, size_t len) {
    if (finished_) return false;
    return importer_.feed(reinterpret_cast<const char*>(ptr), len);
  }

  bool finish() {
    if (finished_) return ok_;
    finished_ = true;
    ok_ = importer_.error().ok() && importer_.finish();
    if (ok_) trace_ = importer_.take();
    return ok_;
  }

  std::string errorJson() const {
    const ks::ImportError& e = importer_.error();
    return e.ok() ? std::string() : ks::import_error_json(e);
  }

  std::string progressJson() const {
    return "{\"bytes\":" + std::to_string(importer_.bytes_read()) +
           ",\"events\":" + std::to_string(importer_.events_read()) + "}";
  }

  std::string reportJson() const {
    if (!trace_) return std::string();
    return ks::report_json(ks::build_report(*trace_, options_));
  }

 private:
  ks::ChromeJsonImporter importer_;
  ks::AnalysisOptions options_;
  std::unique_ptr<ks::Trace> trace_;
  bool finished_ = false;
  bool ok_ = false;
};

}  // namespace

EMSCRIPTEN_BINDINGS(kinetoscope) {
  emscripten::class_<Session>("Session")
      .constructor<>()
      .function("setSource", &Session::setSource)
      .function("setDropLastStep", &Session::setDropLastStep)
      .function("feed", &Session::feed)
      .function("finish", &Session::finish)
      .function("errorJson", &Session::errorJson)
      .function("progressJson", &Session::progressJson)
      .function("reportJson", &Session::reportJson);
  emscripten::constant("version", std::string(ks::kVersion));
}
