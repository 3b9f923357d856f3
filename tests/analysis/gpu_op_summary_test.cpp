// Kernel and memory-op summaries with the nsys columns (src/analysis/gpu_op_summary.cpp).
#include "analysis/gpu_op_summary.h"

#include <catch2/catch.hpp>

#include "analysis/analyze.h"
#include "helpers.h"

using ks::MemoryOpKind;

namespace {
const ks::KernelRow* row_named(const ks::Trace& t, const ks::KernelSummary& k,
                               std::string_view name) {
  for (const ks::KernelRow& r : k.rows)
    if (t.str(r.name) == name) return &r;
  return nullptr;
}
}  // namespace

TEST_CASE("Kernel summary: nsys columns, percent of all kernel time, category and class",
          "[analysis][kernels]") {
  // Kernel time 100 us in all: sgemm 30 + 10, flash 25, xmma 20, nccl 10, elementwise 3,
  // triton 2. The memcpy is not a kernel.
  auto t = ks_test::load(R"J([
    {"ph":"X","cat":"kernel","name":"ampere_sgemm_128x64_nn","pid":0,"tid":7,"ts":0,"dur":30},
    {"ph":"X","cat":"kernel","name":"ampere_sgemm_128x64_nn","pid":0,"tid":7,"ts":40,"dur":10},
    {"ph":"X","cat":"kernel","name":"flash_fwd_kernel","pid":0,"tid":7,"ts":60,"dur":25},
    {"ph":"X","cat":"kernel","name":"sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize96x128x32",
     "pid":0,"tid":7,"ts":90,"dur":20},
    {"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL","pid":0,"tid":8,
     "ts":0,"dur":10},
    {"ph":"X","cat":"kernel","name":"void at::native::vectorized_elementwise_kernel<4>",
     "pid":0,"tid":7,"ts":120,"dur":3},
    {"ph":"X","cat":"kernel","name":"triton_poi_fused_add_0","pid":0,"tid":7,"ts":130,"dur":2},
    {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pinned -> Device)","pid":0,"tid":7,
     "ts":140,"dur":50}
  ])J");
  ks::KernelSummary k = ks::summarize_kernels(*t, nullptr);
  CHECK(k.count == 7);
  CHECK(k.total_ns == 100000);
  REQUIRE(k.rows.size() == 6);
  // By total time; equal totals by name.
  CHECK(t->str(k.rows[0].name) == "ampere_sgemm_128x64_nn");
  CHECK(t->str(k.rows[1].name) == "flash_fwd_kernel");
  CHECK(t->str(k.rows[2].name) == "sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize96x128x32");
  CHECK(t->str(k.rows[3].name) == "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  CHECK(t->str(k.rows[4].name) == "void at::native::vectorized_elementwise_kernel<4>");
  CHECK(t->str(k.rows[5].name) == "triton_poi_fused_add_0");

  const ks::KernelRow& sgemm = k.rows[0];
  CHECK(sgemm.percent == 40.0);
  CHECK(sgemm.stats.count == 2);
  CHECK(sgemm.stats.total_ns == 40000);
  CHECK(sgemm.stats.avg_ns == 20000.0);
  CHECK(sgemm.stats.median_ns == 20000.0);  // (10 + 30) / 2
  CHECK(sgemm.stats.min_ns == 10000);
  CHECK(sgemm.stats.max_ns == 30000);
  CHECK(sgemm.stats.stddev_ns == Approx(14142.135623730951));  // 20000 / sqrt(2)
  CHECK(sgemm.category == ks::HtaCategory::kComputation);
  CHECK(sgemm.klass == ks::KernelClass::kGemm);
  CHECK_FALSE(sgemm.tensor_core);

  CHECK(k.rows[1].percent == 25.0);
  CHECK(k.rows[1].klass == ks::KernelClass::kAttention);
  CHECK(k.rows[2].percent == 20.0);
  CHECK(k.rows[2].tensor_core);
  CHECK(k.rows[3].percent == 10.0);
  CHECK(k.rows[3].category == ks::HtaCategory::kCommunication);
  CHECK(k.rows[3].klass == ks::KernelClass::kNccl);
  CHECK(k.rows[4].klass == ks::KernelClass::kElementwise);
  CHECK(k.rows[4].percent == 3.0);
  CHECK(k.rows[5].klass == ks::KernelClass::kTriton);
  CHECK(k.rows[5].percent == 2.0);
  CHECK(row_named(*t, k, "Memcpy HtoD (Pinned -> Device)") == nullptr);
}

TEST_CASE("Memory ops by kind with bytes, GB/s and pageable copies", "[analysis][memory]") {
  // HtoD: two pageable copies of 1 MB in 100 us each and a pinned one of 2 MB in 100 us:
  //   4,000,000 B / 300,000 ns = 13.33 GB/s (bytes per ns = GB/s); 2 pageable.
  // DtoH: 4 B in 2 us = 0.002 GB/s. Memset: 1 us, no bytes. Time: 300 + 2 + 1 = 303 us.
  auto t = ks_test::load(R"J([
    {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,
     "ts":0,"dur":100,"args":{"bytes":1000000}},
    {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,
     "ts":100,"dur":100,"args":{"bytes":1000000}},
    {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pinned -> Device)","pid":0,"tid":7,
     "ts":200,"dur":100,"args":{"bytes":2000000}},
    {"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoH (Device -> Pinned)","pid":0,"tid":7,
     "ts":300,"dur":2,"args":{"bytes":4}},
    {"ph":"X","cat":"gpu_memset","name":"Memset (Device)","pid":0,"tid":7,"ts":310,"dur":1}
  ])J");
  ks::MemoryOpSummary m = ks::summarize_memory_ops(*t, nullptr);
  CHECK(m.count == 5);
  CHECK(m.total_ns == 303000);
  REQUIRE(m.rows.size() == 3);
  const ks::MemoryOpRow& h = m.rows[0];
  CHECK(h.kind == MemoryOpKind::kHtoD);
  CHECK(h.stats.count == 3);
  CHECK(h.stats.total_ns == 300000);
  CHECK(h.bytes == 4000000);
  CHECK(h.gb_per_s == 4000000.0 / 300000.0);
  CHECK(h.pageable == 2);
  CHECK(h.percent == 100.0 * 300000 / 303000);
  CHECK(m.rows[1].kind == MemoryOpKind::kDtoH);
  CHECK(m.rows[1].bytes == 4);
  CHECK(m.rows[1].gb_per_s == 4.0 / 2000.0);
  CHECK(m.rows[1].pageable == 0);
  CHECK(m.rows[2].kind == MemoryOpKind::kMemset);
  CHECK(m.rows[2].bytes == 0);
  CHECK(m.rows[2].gb_per_s == 0.0);
  CHECK(std::string(ks::memory_op_kind_name(m.rows[2].kind)) == "Memset");
}

TEST_CASE("Memory-op kinds come from Kineto's op names", "[analysis][memory]") {
  using ks::SliceKind;
  CHECK(ks::memory_op_kind(SliceKind::kMemcpy, "Memcpy HtoD (Pageable -> Device)") ==
        MemoryOpKind::kHtoD);
  CHECK(ks::memory_op_kind(SliceKind::kMemcpy, "Memcpy DtoH (Device -> Pageable)") ==
        MemoryOpKind::kDtoH);
  CHECK(ks::memory_op_kind(SliceKind::kMemcpy, "Memcpy DtoD (Device -> Device)") ==
        MemoryOpKind::kDtoD);
  CHECK(ks::memory_op_kind(SliceKind::kMemcpy, "Memcpy PtoP (Device -> Device)") ==
        MemoryOpKind::kPtoP);
  CHECK(ks::memory_op_kind(SliceKind::kMemcpy, "Memcpy HtoH (Pinned -> Pinned)") ==
        MemoryOpKind::kHtoH);
  CHECK(ks::memory_op_kind(SliceKind::kMemset, "Memset (Device)") == MemoryOpKind::kMemset);
  CHECK(ks::memory_op_kind(SliceKind::kMemcpy, "hipMemcpyWithStream") == MemoryOpKind::kOther);
  CHECK(ks::is_pageable_copy("Memcpy DtoH (Device -> Pageable)"));
  CHECK_FALSE(ks::is_pageable_copy("Memcpy DtoH (Device -> Pinned)"));
}

TEST_CASE("With the last step dropped, GPU ops it launched are left out of the summaries",
          "[analysis][kernels]") {
  // Steps [0, 100), [100, 200), [200, 300). Each launches one kernel; the one launched in the
  // last step is not counted, the others are.
  auto t = ks_test::load(R"([
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":100,"dur":100},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":200,"dur":100},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":5,
     "args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":20,"dur":10,"args":{"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":110,"dur":5,
     "args":{"correlation":2}},
    {"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":120,"dur":10,"args":{"correlation":2}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":210,"dur":5,
     "args":{"correlation":3}},
    {"ph":"X","cat":"kernel","name":"c","pid":0,"tid":7,"ts":220,"dur":10,"args":{"correlation":3}}
  ])");
  ks::AnalysisOptions keep, drop;
  drop.drop_last_step = true;
  ks::Analyses all = ks::analyze(*t, keep);
  ks::Analyses dropped = ks::analyze(*t, drop);
  CHECK(all.kernels.count == 3);
  CHECK(dropped.kernels.count == 2);
  CHECK(row_named(*t, dropped.kernels, "a") != nullptr);
  CHECK(row_named(*t, dropped.kernels, "b") != nullptr);
  CHECK(row_named(*t, dropped.kernels, "c") == nullptr);
}
