// `kinetoscope digest TRACE... -o DIR`: one fleet digest per trace (report/fleet_digest_json.h),
// written as DIR/<file>.digest.json, or to standard output with `-o -`, one line each (what the
// fleet's Dask workers run, a file or a batch of small files at a time). Native only.
#pragma once
#include <string>
#include <vector>

namespace ks::cli {

// `args` are the words after "digest". Returns the exit status (0; 1 an input could not be read,
// the others are still written; 2 usage).
int digest_command(const std::vector<std::string>& args);

}  // namespace ks::cli
