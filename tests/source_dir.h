// Where the repository lies, for tests that read fixtures (examples/, ../shared, build/nsys-tests).
// Only tests/source_dir.cpp is compiled with the path: a definition on every test object made each
// checkout's (each worktree's) objects differ, so a compiler cache could not share them.
#pragma once
#include <string>

namespace ks_test {
std::string source_dir();
}  // namespace ks_test
