#include "import/foreign_file.h"

#include <string>

namespace ks {

namespace {

struct ForeignKind {
  const char* suffix;  // lower case, matched on the name's end
  const char* what;
  const char* instead;  // "NAME" stands for the file's name without its suffix
};

constexpr const char* kReads =
    "Kinetoscope reads PyTorch profiler traces (.json, .json.gz) and Nsight Systems SQLite "
    "exports (.sqlite)";

// Matched in order; a suffix that ends another must come after it.
constexpr ForeignKind kKinds[] = {
    {".nsys-rep", "an Nsight Systems report (.nsys-rep), NVIDIA's closed format",
     "export it to SQLite and open that: nsys export --type sqlite --output NAME.sqlite "
     "NAME.nsys-rep (nsys stats NAME.nsys-rep also writes NAME.sqlite beside it)"},
    {".qdrep", "an Nsight Systems report of a version before 2021.3 (.qdrep), a closed format",
     "export it to SQLite and open that: nsys export --type sqlite --output NAME.sqlite "
     "NAME.qdrep"},
    {".qdstrm", "an Nsight Systems capture that was never finished into a report (.qdstrm)",
     "turn it into a report with the QdstrmImporter of that nsys version, then nsys export "
     "--type sqlite NAME.nsys-rep"},
    {".ncu-rep", "an Nsight Compute report (.ncu-rep): metrics of single kernels, no timeline",
     "profile the run with nsys profile --trace=cuda,nvtx,osrt and open nsys export --type "
     "sqlite of its report"},
    {".nvvp", "an nvprof / Visual Profiler file (.nvvp)",
     "nvprof ended with Volta; profile with nsys profile --trace=cuda,nvtx and open nsys "
     "export --type sqlite of its report"},
    {".xplane.pb", "a TensorFlow/JAX profiler capture (XPlane, for TensorBoard's profile plugin)",
     "profile PyTorch with torch.profiler and export_chrome_trace, or the GPU with nsys"},
    {".pftrace", "a Perfetto protobuf trace",
     "open it in ui.perfetto.dev; from torch.profiler, save export_chrome_trace's JSON"},
    {".perfetto-trace", "a Perfetto protobuf trace",
     "open it in ui.perfetto.dev; from torch.profiler, save export_chrome_trace's JSON"},
    // nsys export's other types (--type hdf, arrow, parquetdir): the same tables, in formats
    // this reader has no parser for; the SQLite export of the same report is read.
    {".h5", "an HDF5 file (nsys export --type hdf writes these)",
     "export the Nsight Systems report to SQLite instead and open that: nsys export --type "
     "sqlite --output NAME.sqlite NAME.nsys-rep"},
    {".hdf5", "an HDF5 file (nsys export --type hdf writes these)",
     "export the Nsight Systems report to SQLite instead and open that: nsys export --type "
     "sqlite --output NAME.sqlite NAME.nsys-rep"},
    {".arrow", "an Apache Arrow file (nsys export --type arrow writes these)",
     "export the Nsight Systems report to SQLite instead and open that: nsys export --type "
     "sqlite --output NAME.sqlite NAME.nsys-rep"},
    {".parquet", "a Parquet file (nsys export --type parquetdir writes a folder of these)",
     "export the Nsight Systems report to SQLite instead and open that: nsys export --type "
     "sqlite --output REPORT.sqlite REPORT.nsys-rep"},
    {".jsonl", "JSON Lines (nsys export --type jsonlines writes these), not a Chrome trace",
     "export the Nsight Systems report to SQLite instead and open that: nsys export --type "
     "sqlite --output NAME.sqlite NAME.nsys-rep"},
    {".pickle", "a Python pickle (a PyTorch memory snapshot, torch.cuda.memory._dump_snapshot?)",
     "open a memory snapshot at pytorch.org/memory_viz; for time, save torch.profiler's "
     "export_chrome_trace"},
};

bool ends_with_lower(std::string_view name, std::string_view suffix) {
  if (name.size() < suffix.size()) return false;
  const std::string_view end = name.substr(name.size() - suffix.size());
  for (size_t i = 0; i < end.size(); ++i) {
    char c = end[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != suffix[i]) return false;
  }
  return true;
}

bool shell_safe(std::string_view s) {
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-' || c == '+';
    if (!ok) return false;
  }
  return true;
}

// The advice with each "NAME.ext" made the file's own, quoted for a shell when its name needs
// it ("My Run.nsys-rep" -> 'My Run.nsys-rep'), so the command can be pasted as it is.
// `own_suffix` is the suffix as the file spells it ("NAME.NSYS-REP" stays the file's name).
std::string with_name(std::string_view advice, const std::string& stem, std::string_view suffix,
                      std::string_view own_suffix) {
  std::string out;
  size_t from = 0;
  for (size_t at = advice.find("NAME"); at != std::string_view::npos;
       at = advice.find("NAME", from)) {
    out.append(advice.substr(from, at - from));
    size_t end = advice.find(' ', at);
    if (end == std::string_view::npos) end = advice.size();
    std::string_view rest = advice.substr(at + 4, end - at - 4);
    if (rest == suffix) rest = own_suffix;
    std::string token = stem + std::string(rest);
    if (!shell_safe(token)) {
      std::string quoted = "'";
      for (char c : token) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
      token = quoted + "'";
    }
    out += token;
    from = end;
  }
  out.append(advice.substr(from));
  return out;
}

}  // namespace

void explain_foreign_file(std::string_view name, ImportError* error) {
  if (error->ok()) return;
  const size_t slash = name.find_last_of("/\\");
  if (slash != std::string_view::npos) name = name.substr(slash + 1);
  for (const ForeignKind& k : kKinds) {
    if (!ends_with_lower(name, k.suffix)) continue;
    const size_t stem_len = name.size() - std::string_view(k.suffix).size();
    const std::string stem(name.substr(0, stem_len));
    const std::string instead = with_name(k.instead, stem, k.suffix, name.substr(stem_len));
    error->code = ImportErrorCode::kForeignFormat;
    error->offset = 0;
    error->message = std::string("this is ") + k.what +
                     ", which this reader does not take: " + instead + ". " + kReads + ".";
    return;
  }
}

}  // namespace ks
