// `kinetoscope aggregate TRACE --from-us A --to-us B [--tracks 1,2,3]`: the timeline's area
// selection table (timeline_query/aggregate.h) for a time range, from the command line, as JSON.
// Times are microseconds from the trace's first event, as in the report; tracks are the ids of the
// timeline's layout (default: every track). Native only (it reads files).
#pragma once
#include <string>
#include <vector>

namespace ks::cli {

// `args` are the words after "aggregate". Returns the exit status (0, 1 unreadable, 2 usage).
int aggregate_command(const std::vector<std::string>& args);

}  // namespace ks::cli
