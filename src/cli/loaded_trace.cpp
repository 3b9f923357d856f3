#include "cli/loaded_trace.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "import/file_reader.h"
#include "import/foreign_file.h"
#include "import/nsys_sqlite/nsys_file.h"
#include "util/safe_text.h"

namespace ks::cli {

bool load_trace(const std::string& file, LoadedTrace* l, int max_threads) {
  const bool named_sqlite = file.size() > 7 && file.compare(file.size() - 7, 7, ".sqlite") == 0;
  if (named_sqlite || file_is_sqlite(file)) {
    l->nsys = import_nsys_file(file, &l->error, &l->gpu_processes);
    l->ok = l->nsys != nullptr;
  } else {
    ChromeJsonImporter importer;
    l->ok = import_file(file, &importer, &l->error, max_threads);
    if (l->ok) l->json = importer.take();
  }
  if (!l->ok) explain_foreign_file(file, &l->error);
  return l->ok;
}

std::string file_error_line(const std::string& file, const std::string& message) {
  return "kinetoscope: " + display_safe(file) + ": " + message + "\n";
}

bool load_trace_or_say(const std::string& file, LoadedTrace* l) {
  if (load_trace(file, l)) return true;
  std::fputs(file_error_line(file, l->error.to_line()).c_str(), stderr);
  return false;
}

bool write_output(const std::string& text, const std::string& output) {
  FILE* f = output.empty() ? stdout : std::fopen(output.c_str(), "wb");
  bool ok = f && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  // A full disk shows only when the buffer is flushed: fflush and fclose say it, and
  // standard output is flushed here (the whole output, even if a later step aborts).
  if (f) ok = std::fflush(f) == 0 && !std::ferror(f) && ok;
  const int why = errno;
  if (f && f != stdout) ok = std::fclose(f) == 0 && ok;
  if (!ok)
    std::fprintf(stderr, "kinetoscope: cannot write %s: %s\n",
                 output.empty() ? "standard output" : output.c_str(),
                 why ? std::strerror(why) : "write error");
  return ok;
}

}  // namespace ks::cli
