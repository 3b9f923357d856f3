#include <cstdio>
#include "import/file_reader.h"
int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    ks::ChromeJsonImporter imp;
    ks::ImportError err;
    if (!ks::import_file(argv[i], &imp, &err)) { std::printf("%s: %s\n", argv[i], err.to_line().c_str()); continue; }
    const ks::Trace& t = imp.trace();
    std::printf("%s: events=%llu slices=%zu tracks=%zu flows=%zu\n", argv[i], (unsigned long long)t.facts.events_total, t.slices.size(), t.tracks.size(), t.flows.size());
  }
}
