// Files other profilers write that this reader does not take, known by their names. A user of
// Nsight Systems has a .nsys-rep first: "not JSON at byte 0" tells them nothing, while the
// command that exports it does. Applied only once an import has failed, so a readable trace
// loads whatever its name.
#pragma once
#include <string_view>

#include "import/import_error.h"

namespace ks {

// When `name` (a path or a file name) ends like another tool's file, replaces `error` with
// kForeignFormat and a message saying what the file is and what to open instead; otherwise
// leaves it as it is.
void explain_foreign_file(std::string_view name, ImportError* error);

}  // namespace ks
