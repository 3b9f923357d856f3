#include "util/compact_name.h"

#include <catch2/catch.hpp>
#include <string>

#include "util/safe_text.h"

using ks::compact_name;
using ks::display_safe;

namespace {

// Two kernels of the real Perlmutter CloverLeaf export (../shared/nsys), 14 buffers long each,
// that differ only in their lambda's instance.
std::string clover_kernel(int instance) {
  std::string buffers;
  for (int i = 0; i < 14; ++i) buffers += ", clover::Buffer2D<double> &";
  return "void clover::par_ranged2d_kernel<PdV_kernel(bool, int, int, int, int, double" + buffers +
         ")::[lambda(int, int) (instance " + std::to_string(instance) + ")]>(clover::Range2d, T1)";
}

}  // namespace

TEST_CASE("compact_name keeps what tells two cut kernel names apart", "[util][report]") {
  const std::string a = clover_kernel(1), b = clover_kernel(2);
  // Cut as the kernel table cuts (90 bytes), the two read the same.
  REQUIRE(display_safe(a, 90) == display_safe(b, 90));
  const std::string ca = compact_name(a, 90), cb = compact_name(b, 90);
  CHECK(ca ==
        "void clover::par_ranged2d_kernel<PdV_kernel(...)::[lambda(int, int) (instance 1)]>(...)");
  CHECK(cb.size() <= 90);
  CHECK(ca != cb);
  CHECK(display_safe(ca, 90) != display_safe(cb, 90));
}

TEST_CASE("compact_name leaves what fits, short groups and unbalanced names", "[util][report]") {
  CHECK(compact_name("aten::mm(a, b)", 90) == "aten::mm(a, b)");
  CHECK(compact_name("f(abc)(abc)(abc)", 5) == "f(abc)(abc)(abc)");  // nothing longer than "..."
  CHECK(compact_name("kernel(x(unclosed, int, int, int, int)", 20) == "kernel(x(...)");
  // A label after a space is the demangler's, and tells lambdas apart: it stays.
  CHECK(compact_name(
            "void (anonymous namespace)::k<int>(float, float) [lambda(int, int) (instance 11)]",
            60) == "void (anonymous namespace)::k<int>(...) [lambda(...) (instance 11)]");
  CHECK(compact_name("x)))) y", 3) == "x)))) y");
  CHECK(compact_name("anything", 0) == "anything");
  // Only as many groups as needed, longest first: the outer one holds the inner one.
  CHECK(compact_name("a(b, bbbbbbbb(cc, dd)) e(f, ffff)", 27) == "a(...) e(f, ffff)");
  CHECK(compact_name("a(bbbbbbb, b) e(f, ffff)", 20) == "a(...) e(f, ffff)");
  CHECK(compact_name("a(bbbbbbb, b) e(f, ffff)", 10) == "a(...) e(...)");
  // One short item stays: "(DataLoader)" is worth its 12 bytes.
  CHECK(compact_name("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 40) ==
        "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__");
  CHECK(compact_name("at::native::(anonymous namespace)::k<float>(float const*, int)", 50) ==
        "at::native::(anonymous namespace)::k<float>(...)");
}

TEST_CASE("compact_name leaves names past 64 KiB to the caller's cut", "[util][report]") {
  std::string huge = "k(" + std::string(70 * 1024, 'x') + ")";
  CHECK(compact_name(huge, 90) == huge);
}
