// What the findings tests share: a trace analysed once with its findings run, and lookups of a
// finding and of its evidence that fail the test (never crash it) when what they want is missing.
#pragma once
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "corpus/shared_traces.h"
#include "findings/catalogue.h"
#include "helpers.h"

namespace ks_test {

struct FindingRun {
  std::unique_ptr<ks::Trace> trace;
  ks::Analyses analyses;
  std::vector<ks::Finding> findings;
  std::string ids;  // "a, b, c": which findings fired, for test messages
};

inline FindingRun analyze_findings(std::unique_ptr<ks::Trace> trace) {
  FindingRun r;
  r.trace = std::move(trace);
  r.analyses = ks::analyze(*r.trace, ks::AnalysisOptions());
  r.findings = ks::run_findings(*r.trace, r.analyses);
  for (const ks::Finding& f : r.findings) r.ids += (r.ids.empty() ? "" : ", ") + f.id;
  return r;
}

inline FindingRun run_findings_on(std::string_view json) {
  return analyze_findings(load(json));
}

// A trace from ../shared/traces, analysed: false (after a WARN) when it is absent.
inline bool run_shared_trace(const std::string& file, FindingRun* out) {
  const std::string path = shared_trace(file);
  if (!file_exists(path)) {
    WARN("SKIPPED: " << file << " is absent from ../shared/traces");
    return false;
  }
  Loaded l = load_file(path);
  INFO("import error: " << l.error.to_line());
  REQUIRE(l.ok);
  *out = analyze_findings(std::move(l.trace));
  return true;
}

// The finding `id`, or null when it did not fire.
inline const ks::Finding* find_finding(const FindingRun& r, std::string_view id) {
  for (const ks::Finding& f : r.findings)
    if (f.id == id) return &f;
  return nullptr;
}

// The evidence `key` of `f`; the test stops when `f` has none.
inline const ks::Evidence& require_evidence(const ks::Finding& f, std::string_view key) {
  const ks::Evidence* found = nullptr;
  for (const ks::Evidence& e : f.evidence)
    if (e.key == key) found = &e;
  INFO(f.id << " has no evidence " << key);
  REQUIRE(found);
  return *found;
}

inline double evidence_number(const ks::Finding& f, std::string_view key) {
  const ks::Evidence& e = require_evidence(f, key);
  INFO(f.id << " evidence " << key << " is text: " << e.text);
  CHECK(e.is_number);
  return e.number;
}

inline std::string evidence_text(const ks::Finding& f, std::string_view key) {
  const ks::Evidence& e = require_evidence(f, key);
  INFO(f.id << " evidence " << key << " is a number: " << e.number);
  CHECK_FALSE(e.is_number);
  return e.text;
}

}  // namespace ks_test
