// Another tool's file is named for what it is once its import failed; a readable file is not.
#include <catch2/catch.hpp>

#include "import/foreign_file.h"

namespace {

ks::ImportError not_json() {
  ks::ImportError e;
  e.code = ks::ImportErrorCode::kNotJson;
  e.message = "not JSON: a trace starts with '{' or '[', found 0x10";
  return e;
}

}  // namespace

TEST_CASE("a failed .nsys-rep says how to export it, with its own name", "[import]") {
  ks::ImportError e = not_json();
  ks::explain_foreign_file("runs/train_rank0.NSYS-REP", &e);
  CHECK(e.code == ks::ImportErrorCode::kForeignFormat);
  CHECK(e.message.find(
            "nsys export --type sqlite --output train_rank0.sqlite train_rank0.NSYS-REP") !=
        std::string::npos);
  CHECK(e.to_line().rfind("foreign_format: this is an Nsight Systems report", 0) == 0);
}

TEST_CASE("a name a shell would split is quoted in the command", "[import]") {
  ks::ImportError e = not_json();
  ks::explain_foreign_file("My Run's.nsys-rep", &e);
  CHECK(e.message.find("--output 'My Run'\\''s.sqlite' 'My Run'\\''s.nsys-rep'") !=
        std::string::npos);
}

TEST_CASE("an unknown name, or a file that was read, keeps its error as it is", "[import]") {
  ks::ImportError e = not_json();
  ks::explain_foreign_file("trace.json", &e);
  CHECK(e.code == ks::ImportErrorCode::kNotJson);
  ks::ImportError ok;
  ks::explain_foreign_file("snapshot.pickle", &ok);
  CHECK(ok.ok());
  CHECK(ok.message.empty());
}

TEST_CASE("an nvprof database (SQLite, not nsys) is named as nvprof's", "[import]") {
  ks::ImportError e;
  e.code = ks::ImportErrorCode::kNotNsysExport;
  ks::explain_foreign_file("old.nvvp", &e);
  CHECK(e.code == ks::ImportErrorCode::kForeignFormat);
  CHECK(e.message.find("nvprof") != std::string::npos);
}

TEST_CASE("nsys export's other types (HDF5, Arrow, Parquet) point to its SQLite export",
          "[import]") {
  for (const char* name : {"run.h5", "run.HDF5", "run.arrow"}) {
    ks::ImportError e = not_json();
    ks::explain_foreign_file(name, &e);
    INFO(name);
    CHECK(e.code == ks::ImportErrorCode::kForeignFormat);
    CHECK(e.message.find("nsys export --type sqlite --output run.sqlite run.nsys-rep") !=
          std::string::npos);
  }
  ks::ImportError e = not_json();
  ks::explain_foreign_file("report_dir/CUPTI_ACTIVITY_KIND_KERNEL.parquet", &e);
  CHECK(e.message.find("nsys export --type parquetdir") != std::string::npos);
  CHECK(e.message.find("--output REPORT.sqlite REPORT.nsys-rep") != std::string::npos);
}
