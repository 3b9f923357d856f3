// A rank digest as JSON: the page loads ranks in parallel workers, each sends its digest, and
// one WASM instance combines them (the CLI combines the same digests without the round trip;
// the output is the same either way: integers only, names as written).
#pragma once
#include <string>
#include <string_view>

#include "analysis/multi_rank.h"

namespace ks {

std::string rank_digest_json(const RankDigest& digest);
// False when the text is not a digest this version wrote.
bool parse_rank_digest_json(std::string_view json, RankDigest* out);

}  // namespace ks
