// A memcpy/memset's size is kept only for the slices that carry one (SliceTable::copy_sizes,
// issue #19: a dense column was 8 bytes on every slice), and follows its slice when the load
// sorts the slices.
#include <catch2/catch.hpp>

#include "helpers.h"

TEST_CASE("Copy sizes: sparse, and still on their slices after the sort", "[model][copy_sizes]") {
  // The file lists the copies first, the kernel and the call (earlier) last: the sort moves them.
  auto t = ks_test::load(R"J([
    {"ph":"X","cat":"gpu_memset","name":"Memset (Device)","pid":0,"tid":7,"ts":30,"dur":1,
     "args":{"stream":7,"bytes":0}},
    {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,
     "ts":20,"dur":2,"args":{"stream":7,"bytes":4096}},
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":6,"dur":10,
     "args":{"correlation":42,"stream":7,"device":0}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":3,
     "args":{"correlation":42}}
  ])J");
  REQUIRE(t->slices.size() == 4);
  CHECK(t->slices.copy_sizes.size() == 2);
  CHECK(t->slices.copy_size(ks_test::slice_named(*t, "Memcpy HtoD (Pageable -> Device)")) == 4096);
  CHECK(t->slices.copy_size(ks_test::slice_named(*t, "Memset (Device)")) == 0);  // 0 is a size
  CHECK(t->slices.copy_size(ks_test::slice_named(*t, "gemm")) == ks::kNoValue);
  CHECK(t->slices.copy_size(ks_test::slice_named(*t, "cudaLaunchKernel")) == ks::kNoValue);
}
