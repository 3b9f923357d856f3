// The report registry and the three writers. Each report lives in its own file (definitions there).
#include "stats/nsys_stats.h"

#include <algorithm>

#include "stats/stats_db.h"
#include "util/json_writer.h"

namespace ks {

namespace {

using ReportFn = bool (*)(const StatsDb&, StatsTable*, std::string*);

struct Entry {
  const char* name;
  ReportFn fn;
};

// nsys's default `nsys stats` order first, then the reports it prints only when asked.
const Entry kReports[] = {
    {"nvtx_sum", report_nvtx_sum},
    {"osrt_sum", report_osrt_sum},
    {"cuda_api_sum", report_cuda_api_sum},
    {"cuda_gpu_kern_sum", report_cuda_gpu_kern_sum},
    {"cuda_gpu_mem_time_sum", report_cuda_gpu_mem_time_sum},
    {"cuda_gpu_mem_size_sum", report_cuda_gpu_mem_size_sum},
    {"cuda_gpu_trace", report_cuda_gpu_trace},
    {"cuda_kern_exec_sum", report_cuda_kern_exec_sum},
    {"nvtx_kern_sum", report_nvtx_kern_sum},
    {"cuda_gpu_sum", report_cuda_gpu_sum},
    {"cuda_api_gpu_sum", report_cuda_api_gpu_sum},
    {"nvtx_pushpop_sum", report_nvtx_pushpop_sum},
    {"nvtx_startend_sum", report_nvtx_startend_sum},
    {"nvtx_gpu_proj_sum", report_nvtx_gpu_proj_sum},
    {"cuda_api_trace", report_cuda_api_trace},
    {"cuda_kern_exec_trace", report_cuda_kern_exec_trace},
};

// Memory cells (bytes shown as MB) keep three decimals in text, as nsys prints them; CSV and JSON
// keep six (exact bytes). Other real cells are the scripts' round(x, 1) values.
bool is_mb_column(const std::string& c) {
  return c.find("(MB") != std::string::npos;
}

std::string group_thousands(const std::string& digits) {
  std::string out;
  size_t start = digits[0] == '-' ? 1 : 0;
  out.append(digits, 0, start);
  size_t n = digits.size() - start;
  for (size_t i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) out += ',';
    out += digits[start + i];
  }
  return out;
}

// A cell as text. `grouped`: thousands separators (the text writer, as nsys's column format).
std::string cell_string(const StatsCell& c, bool mb, bool grouped) {
  switch (c.kind) {
    case StatsCell::Kind::kNull:
      return "";
    case StatsCell::Kind::kText:
      return c.text;
    case StatsCell::Kind::kInt: {
      std::string s = std::to_string(c.i);
      return grouped ? group_thousands(s) : s;
    }
    case StatsCell::Kind::kReal: {
      std::string s = format_fixed(c.r, mb ? (grouped ? 3 : 6) : 1);
      if (!grouped) return s;
      size_t dot = s.find('.');
      return group_thousands(s.substr(0, dot)) + (dot == std::string::npos ? "" : s.substr(dot));
    }
  }
  return "";
}

}  // namespace

const std::vector<std::string>& nsys_stats_report_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const Entry& e : kReports) v.push_back(e.name);
    return v;
  }();
  return names;
}

const std::vector<std::string>& nsys_stats_default_reports() {
  // What `nsys stats` prints without --report (the CUDA/NVTX/OSRT part of its default set; the
  // graphics-API and unified-memory reports of that set are not implemented).
  static const std::vector<std::string> names = {"nvtx_sum",
                                                 "osrt_sum",
                                                 "cuda_api_sum",
                                                 "cuda_gpu_kern_sum",
                                                 "cuda_gpu_mem_time_sum",
                                                 "cuda_gpu_mem_size_sum"};
  return names;
}

bool run_nsys_stats_on_handle(sqlite3* handle, const std::vector<std::string>& reports,
                              std::vector<StatsTable>* out, std::string* error, size_t max_rows) {
  std::vector<ReportFn> fns;
  for (const std::string& name : reports) {
    const Entry* found = nullptr;
    for (const Entry& e : kReports)
      if (name == e.name) found = &e;
    if (!found) {
      std::string known;
      for (const Entry& e : kReports) known += std::string(known.empty() ? "" : ", ") + e.name;
      *error = "unknown report '" + name + "' (known: " + known + ")";
      return false;
    }
    fns.push_back(found->fn);
  }
  StatsDb db(handle, max_rows);
  for (size_t i = 0; i < fns.size(); ++i) {
    StatsTable t;
    std::string err;
    if (!fns[i](db, &t, &err)) {
      *error = reports[i] + ": " + err;
      return false;
    }
    out->push_back(std::move(t));
  }
  return true;
}

std::string nsys_stats_text(const std::vector<StatsTable>& tables) {
  std::string out;
  for (const StatsTable& t : tables) {
    out += "\n ** " + t.title + " (" + t.report + "):\n\n";
    if (t.rows.empty()) {
      out += "SKIPPED: " + (t.note.empty() ? std::string("no rows") : t.note) + "\n";
      continue;
    }
    const size_t nc = t.columns.size();
    std::vector<std::vector<std::string>> cells(t.rows.size(), std::vector<std::string>(nc));
    std::vector<size_t> width(nc);
    std::vector<bool> text_col(nc, false);
    for (size_t c = 0; c < nc; ++c) width[c] = t.columns[c].size();
    for (size_t r = 0; r < t.rows.size(); ++r) {
      for (size_t c = 0; c < nc && c < t.rows[r].size(); ++c) {
        cells[r][c] = cell_string(t.rows[r][c], is_mb_column(t.columns[c]), true);
        width[c] = std::max(width[c], cells[r][c].size());
        if (t.rows[r][c].kind == StatsCell::Kind::kText) text_col[c] = true;
      }
    }
    // nsys's column layout: one leading space, two between columns, headers centred (the extra
    // space to the right), a dashed rule, numbers right-aligned, text left-aligned.
    std::string head = " ", rule = " ";
    for (size_t c = 0; c < nc; ++c) {
      size_t pad = width[c] - t.columns[c].size();
      head += std::string(pad / 2, ' ') + t.columns[c] + std::string(pad - pad / 2, ' ');
      rule += std::string(width[c], '-');
      if (c + 1 < nc) head += "  ", rule += "  ";
    }
    out += head + "\n" + rule + "\n";
    for (const auto& row : cells) {
      std::string line = " ";
      for (size_t c = 0; c < nc; ++c) {
        std::string pad(width[c] - row[c].size(), ' ');
        line += text_col[c] ? row[c] + pad : pad + row[c];
        if (c + 1 < nc) line += "  ";
      }
      out += line + "\n";
    }
  }
  out += "\n";
  return out;
}

std::string nsys_stats_csv(const std::vector<StatsTable>& tables) {
  auto quoted = [](const std::string& s) {
    std::string q = "\"";
    for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  };
  std::string out;
  for (size_t k = 0; k < tables.size(); ++k) {
    const StatsTable& t = tables[k];
    if (k > 0) out += "\n";  // reports are separated by an empty line
    for (size_t c = 0; c < t.columns.size(); ++c) out += (c ? "," : "") + quoted(t.columns[c]);
    out += "\n";
    for (const auto& row : t.rows) {
      for (size_t c = 0; c < row.size(); ++c)
        out += (c ? "," : "") + quoted(cell_string(row[c], is_mb_column(t.columns[c]), false));
      out += "\n";
    }
  }
  return out;
}

std::string nsys_stats_json(const std::vector<StatsTable>& tables) {
  JsonWriter w;
  w.begin_object();
  w.field("schema", "kinetoscope.stats/1");
  w.key("reports").begin_array();
  for (const StatsTable& t : tables) {
    w.begin_object();
    w.field("report", t.report);
    w.field("title", t.title);
    w.key("columns").begin_array();
    for (const std::string& c : t.columns) w.value(c);
    w.end_array();
    w.key("rows").begin_array();
    for (const auto& row : t.rows) {
      w.begin_array();
      for (size_t c = 0; c < row.size(); ++c) {
        const StatsCell& cell = row[c];
        switch (cell.kind) {
          case StatsCell::Kind::kNull:
            w.null();
            break;
          case StatsCell::Kind::kText:
            w.value(cell.text);
            break;
          case StatsCell::Kind::kInt:
            w.value(cell.i);
            break;
          case StatsCell::Kind::kReal:
            w.value(cell.r, c < t.columns.size() && is_mb_column(t.columns[c]) ? 6 : 1);
            break;
        }
      }
      w.end_array();
    }
    w.end_array();
    if (t.note.empty()) {
      w.key("note").null();
    } else {
      w.field("note", t.note);
    }
    if (t.omitted_rows > 0) w.field("omitted_rows", t.omitted_rows);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  std::string s = w.take();
  s += "\n";
  return s;
}

}  // namespace ks
