// A trace's diff digest (analysis/trace_diff.h) as JSON: the page loads BASE and TEST in two
// workers, each sends its digest, and one WASM call compares them; the CLI compares the same
// digests without the round trip. Integers and names as written, so nothing is lost on the way.
#pragma once
#include <string>
#include <string_view>

#include "analysis/trace_diff.h"

namespace ks {

std::string diff_digest_json(const DiffDigest& digest);
// False when the text is not a digest this version wrote.
bool parse_diff_digest_json(std::string_view json, DiffDigest* out);

}  // namespace ks
