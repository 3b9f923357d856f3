// One trace file read for a command: a PyTorch/Chrome JSON trace or an Nsight Systems export
// (told by the file's 16-byte SQLite header, whatever its name), and the command's output
// written to a file or standard output. Shared by every command that reads traces.
#pragma once
#include <memory>
#include <string>

#include "import/chrome_json/importer.h"
#include "import/nsys_sqlite/nsys_importer.h"
#include "model/trace.h"

namespace ks::cli {

// Only the model outlives the read: the importer's buffers (the framer's, about 1.5 MB even
// for a 4 KB file) are freed when load_trace returns, or 1,000 rank files held 1.6 GB.
struct LoadedTrace {
  std::unique_ptr<Trace> json;                // a PyTorch / Chrome JSON trace
  std::unique_ptr<Trace> nsys;                // an Nsight Systems export
  std::vector<NsysGpuProcess> gpu_processes;  // its processes with GPU work
  ImportError error;
  bool ok = false;
  const Trace& trace() const { return nsys ? *nsys : *json; }
};

// Reads `file` into `l` (sets l->ok). A file named *.sqlite that is not SQLite gets the SQLite
// reader's error (its first bytes), not JSON's. `max_threads`: as import_file's.
bool load_trace(const std::string& file, LoadedTrace* l, int max_threads = 0);

// load_trace, and on failure the one-line error with its byte offset on standard error
// ("kinetoscope: FILE: ...").
bool load_trace_or_say(const std::string& file, LoadedTrace* l);

// "kinetoscope: FILE: MESSAGE\n", the line every command prints for a file it cannot read. The
// file name is made safe for a terminal as the message is (util/safe_text.h): a trace sent as
// `<U+202E>nosj.exe` or named with ESC colour codes reached standard error as written (its
// message already said `?`).
std::string file_error_line(const std::string& file, const std::string& message);

// Writes `text` to `output` ("" = standard output); says so on standard error when it cannot.
bool write_output(const std::string& text, const std::string& output);

}  // namespace ks::cli
