// GPU time by the op that launched it (src/analysis/gpu_time_by_op.cpp): device self and total
// time per op on a built trace whose answer is known, the emit_nvtx name rule, and on the shared
// traces the sums that must hold whatever the trace.
#include "analysis/gpu_time_by_op.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "analysis/analyze.h"
#include "corpus/shared_traces.h"
#include "helpers.h"
#include "report/report.h"

namespace {

// One step (an old-style ProfilerStep#1 op, passed over) holding:
//   - aten::linear > aten::addmm > cudaLaunchKernel -> a 10 us GEMM;
//   - aten::copy_ > aten::copy_ (an op inside one of its name) > cudaMemcpyAsync -> a 5 us copy;
//   - a cudaLaunchKernel under no op (the step only) -> a 3 us kernel;
// and a 2 us kernel whose launch is not in the trace.
const char* kTrace = R"J([
  {"ph":"X","cat":"Operator","name":"ProfilerStep#1","pid":1,"tid":1,"ts":100,"dur":100},
  {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":110,"dur":20},
  {"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":1,"tid":1,"ts":111,"dur":18},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":112,"dur":2,
   "args":{"correlation":10}},
  {"ph":"X","cat":"kernel","name":"sm90_gemm","pid":0,"tid":7,"ts":115,"dur":10,
   "args":{"correlation":10,"stream":7}},
  {"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":1,"tid":1,"ts":140,"dur":20},
  {"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":1,"tid":1,"ts":141,"dur":18},
  {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":143,"dur":2,
   "args":{"correlation":11}},
  {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pinned -> Device)","pid":0,"tid":7,
   "ts":146,"dur":5,"args":{"correlation":11,"bytes":8,"stream":7}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":170,"dur":2,
   "args":{"correlation":12}},
  {"ph":"X","cat":"kernel","name":"fill","pid":0,"tid":7,"ts":173,"dur":3,
   "args":{"correlation":12,"stream":7}},
  {"ph":"X","cat":"kernel","name":"orphan","pid":0,"tid":7,"ts":180,"dur":2,
   "args":{"correlation":99,"stream":7}}
])J";

std::map<std::string, ks::OpGpuTimeRow> rows_of(const ks::GpuTimeByOp& g) {
  std::map<std::string, ks::OpGpuTimeRow> m;
  for (const ks::OpGpuTimeRow& r : g.rows) m[r.name] = r;
  return m;
}

}  // namespace

TEST_CASE("GPU time goes to the innermost op (self) and to every op around the launch (total)",
          "[analysis][gpu_by_op]") {
  auto t = ks_test::load(kTrace);
  const ks::Report report = ks::build_report(*t, {});
  const ks::GpuTimeByOp& g = report.analyses.gpu_by_op;
  CHECK(g.source == ks::OpSource::kCpuOps);
  CHECK(g.gpu_ops == 4);
  CHECK(g.gpu_ns == 20'000);
  CHECK(g.attributed_ops == 2);
  CHECK(g.attributed_ns == 15'000);
  CHECK(g.unlaunched_ops == 1);  // the orphan: its launch is not in the trace
  CHECK(g.unlaunched_ns == 2'000);
  auto rows = rows_of(g);
  REQUIRE(rows.size() == 3);  // no ProfilerStep row
  CHECK(rows["aten::addmm"].self_ns == 10'000);
  CHECK(rows["aten::addmm"].total_ns == 10'000);
  CHECK(rows["aten::addmm"].gpu_ops == 1);
  CHECK(rows["aten::linear"].self_ns == 0);
  CHECK(rows["aten::linear"].total_ns == 10'000);
  CHECK(rows["aten::linear"].gpu_ops == 0);
  // The copy inside a copy counts once in the total.
  CHECK(rows["aten::copy_"].self_ns == 5'000);
  CHECK(rows["aten::copy_"].total_ns == 5'000);
  CHECK(rows["aten::copy_"].self_pct == Approx(25.0));
  CHECK(rows["aten::linear"].total_pct == Approx(50.0));
  // By self time, then total.
  CHECK(g.rows[0].name == "aten::addmm");
  CHECK(g.rows[1].name == "aten::copy_");
  CHECK(g.rows[2].name == "aten::linear");

  const std::string json = ks::report_json(report);
  CHECK(json.find("\"gpu_by_op\": {\n    \"source\": \"cpu_ops\",\n    \"gpu_ops\": 4,\n    "
                  "\"gpu_us\": 20.000,") != std::string::npos);
  const std::string text = ks::report_text(report);
  CHECK(text.find("GPU time by launching op: 2 of 4 GPU ops launched inside an op, 75.0% of GPU "
                  "time; 1 with no launching call in the trace") != std::string::npos);
}

TEST_CASE("emit_nvtx range names read as their op", "[analysis][gpu_by_op]") {
  CHECK(ks::emit_nvtx_op_name("aten::mm, seq = 12") == "aten::mm");
  CHECK(ks::emit_nvtx_op_name(
            "aten::addmm, seq = 3, op_id = 101, sizes = [[16], [16, 32], [32, 16]], "
            "input_op_ids = [(1,0)]") == "aten::addmm");
  CHECK(ks::emit_nvtx_op_name("aten::empty, sizes = [[4]]") == "aten::empty");
  CHECK(ks::emit_nvtx_op_name("AddmmBackward0, seq = 3") == "AddmmBackward0");
  CHECK(ks::emit_nvtx_op_name("train_step") == "train_step");
  CHECK(ks::is_emit_nvtx_op_range("AddmmBackward0, seq = 3"));
  CHECK(ks::is_emit_nvtx_op_range("aten::relu"));
  CHECK_FALSE(ks::is_emit_nvtx_op_range("forward"));
  CHECK_FALSE(ks::is_emit_nvtx_op_range("ncclAllReduce"));
}

TEST_CASE("On the shared traces, the ops' self times add up to the GPU time launched in ops",
          "[analysis][gpu_by_op][corpus]") {
  const auto files = ks_test::shared_trace_files();
  if (files.empty()) WARN("../shared/traces is absent: the corpus GPU-by-op test is skipped");
  size_t with_ops = 0;
  for (const std::string& f : files) {
    auto loaded = ks_test::load_file(f);
    if (!loaded.ok) continue;
    INFO(f);
    const ks::Analyses a = ks::analyze(*loaded.trace, {});
    const ks::GpuTimeByOp& g = a.gpu_by_op;
    uint64_t ops = 0;
    int64_t self = 0;
    for (const ks::OpGpuTimeRow& r : g.rows) {
      ops += r.gpu_ops;
      self += r.self_ns;
      CHECK(r.total_ns >= r.self_ns);
      CHECK(r.total_ns <= g.attributed_ns);
    }
    CHECK(ops == g.attributed_ops);
    CHECK(self == g.attributed_ns);
    CHECK(g.attributed_ops <= g.gpu_ops);
    if (g.attributed_ops > 0) ++with_ops;
  }
  if (!files.empty()) CHECK(with_ops >= 10);
}

TEST_CASE("ResNet-50's GPU time is launched by its convolution ops", "[analysis][gpu_by_op]") {
  const std::string f =
      ks_test::shared_trace("kineto__resnet50_nw0__worker0.1623143089861.pt.trace.json.gz");
  if (!ks_test::file_exists(f)) {
    WARN(f << " is absent: skipped");
    return;
  }
  auto loaded = ks_test::load_file(f);
  REQUIRE(loaded.ok);
  const ks::GpuTimeByOp g = ks::analyze(*loaded.trace, {}).gpu_by_op;
  // Every GPU op of this trace was launched inside an op.
  CHECK(g.attributed_ops == g.gpu_ops);
  REQUIRE(g.rows.size() > 3);
  CHECK(g.rows[0].name == "aten::cudnn_convolution_backward_weight");
  auto rows = rows_of(g);
  // The forward convolutions run under aten::conv2d > aten::convolution > aten::_convolution >
  // aten::cudnn_convolution: the outer ops launch nothing themselves and hold it all.
  CHECK(rows["aten::conv2d"].self_ns == 0);
  CHECK(rows["aten::conv2d"].total_ns >= rows["aten::cudnn_convolution"].total_ns);
  CHECK(rows["aten::cudnn_convolution"].self_pct > 15.0);
  // Elementwise adds are all non-math time; the convolutions' kernels are mostly math.
  CHECK(rows["aten::add_"].non_math_ns == rows["aten::add_"].self_ns);
  CHECK(rows["aten::cudnn_convolution"].non_math_ns < rows["aten::cudnn_convolution"].self_ns / 2);
}

TEST_CASE("The overhead finding names the ops that launch the non-math kernels",
          "[analysis][gpu_by_op][findings]") {
  const std::string f =
      ks_test::shared_trace("tracelens__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
  if (!ks_test::file_exists(f)) {
    WARN(f << " is absent: skipped");
    return;
  }
  auto loaded = ks_test::load_file(f);
  REQUIRE(loaded.ok);
  const ks::Report report = ks::build_report(*loaded.trace, {});
  const ks::Finding* overhead = nullptr;
  for (const ks::Finding& x : report.findings)
    if (x.id == "kernels.overhead_dominant") overhead = &x;
  REQUIRE(overhead);
  // Decoding Qwen one op at a time: its elementwise multiplies, copies and adds.
  CHECK(overhead->fix.find("Start with the ops that launch most of it: aten::mul ") !=
        std::string::npos);
}
