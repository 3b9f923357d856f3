// Math efficiency (src/analysis/math_efficiency.h): a planted trace with known shapes, kernel
// times, GPU and step time gives the exact FLOPs, TFLOP/s, % of peak and MFU; real traces with
// shapes give sane tables; a trace without shapes says how to record them.
#include <algorithm>
#include <string>

#include "analysis/launch_join.h"
#include "analysis/math_efficiency.h"
#include "analysis/steps.h"
#include "corpus/shared_traces.h"
#include "helpers.h"
#include "report/math_report.h"

namespace {

std::string op(const std::string& name, long long ts, long long dur, const std::string& dims,
               const std::string& types, const std::string& concrete = "") {
  std::string e = "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" + name +
                  "\",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(ts) +
                  ",\"dur\":" + std::to_string(dur) + ",\"args\":{\"Input Dims\":" + dims +
                  ",\"Input type\":" + types;
  if (!concrete.empty()) e += ",\"Concrete Inputs\":" + concrete;
  return e + "}},\n";
}

// A launch at `ts` and its kernel at `kts` lasting `kdur` us.
std::string launch(int corr, long long ts, long long kts, long long kdur,
                   const std::string& kname) {
  const std::string c = std::to_string(corr);
  return "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
         "\"ts\":" +
         std::to_string(ts) + ",\"dur\":2,\"args\":{\"correlation\":" + c +
         "}},\n"
         "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" +
         kname + "\",\"pid\":0,\"tid\":7,\"ts\":" + std::to_string(kts) +
         ",\"dur\":" + std::to_string(kdur) + ",\"args\":{\"correlation\":" + c +
         ",\"stream\":7,\"device\":0}},\n";
}

// One 1 ms step on an H100 (bf16 peak 989.5, tf32 494.5, fp32 67 TFLOP/s):
//   aten::linear > aten::addmm  bf16 [1024,2048] @ [2048,4096]: 2*1024*4096*2048 = 17179869184
//                               FLOPs in one 100 us kernel -> 171.8 TFLOP/s, 17.4% of peak
//   aten::mm fp32 [256,256]^2:  2*256^3 = 33554432 in 10 us (an FMA sgemm: fp32 peak)
//   aten::mm fp32 [512,512]^2:  2*512^3 = 268435456 in 2 us, a TF32 CUTLASS kernel (tf32 peak)
//   flash attention bf16 q,k,v [2,8,512,64], causal: 2*16*512*512*128/2 = 536870912 in 1 us
//                               -> 536.9 TFLOP/s >= 50% of 989.5: the only fast math
//   an elementwise kernel of 9 us launched outside any math op.
std::string planted() {
  std::string ev =
      "{\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA H100 80GB HBM3\"}],"
      "\"traceEvents\":[\n";
  ev +=
      "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#3\",\"pid\":1,"
      "\"tid\":1,\"ts\":0,\"dur\":1000},\n";
  ev += op("aten::linear", 10, 100, "[[1024, 2048], [4096, 2048], [4096]]",
           "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\"]");
  ev += op("aten::addmm", 20, 80, "[[4096], [1024, 2048], [2048, 4096], [], []]",
           "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"]");
  ev += launch(1, 30, 200, 100, "sm90_xmma_gemm_bf16bf16_bf16f32");
  ev += op("aten::mm", 150, 20, "[[256, 256], [256, 256]]", "[\"float\", \"float\"]");
  ev += launch(2, 155, 310, 10, "ampere_sgemm_128x64_nn");
  ev += op("aten::mm", 200, 20, "[[512, 512], [512, 512]]", "[\"float\", \"float\"]");
  ev += launch(3, 205, 330, 2, "cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4");
  ev += op("aten::_scaled_dot_product_flash_attention", 300, 50,
           "[[2, 8, 512, 64], [2, 8, 512, 64], [2, 8, 512, 64], [], [], [], []]",
           "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\", "
           "\"Scalar\", \"Scalar\"]",
           "[\"\", \"\", \"\", \"0.\", \"True\", \"False\", \"0.125\"]");
  ev += op("aten::_flash_attention_forward", 310, 30,
           "[[2, 512, 8, 64], [2, 512, 8, 64], [2, 512, 8, 64]]", "[\"c10::BFloat16\"]");
  ev += launch(4, 315, 340, 1, "flash_fwd_kernel");
  ev += launch(5, 400, 400, 9, "vectorized_elementwise_kernel");
  ev +=
      "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::relu\",\"pid\":1,\"tid\":1,\"ts\":900,"
      "\"dur\":1}\n]}";
  return ev;
}

ks::MathEfficiency math_of(const ks::Trace& t) {
  ks::LaunchJoin join = ks::build_launch_join(t);
  ks::StepsResult steps = ks::find_steps(t, join, false);
  return ks::compute_math_efficiency(t, join, steps);
}

const ks::MathOpRow* row(const ks::MathEfficiency& m, const std::string& name,
                         const std::string& shapes) {
  for (const auto& r : m.ops)
    if (r.name == name && r.shapes == shapes) return &r;
  return nullptr;
}

}  // namespace

TEST_CASE("a planted trace gives exact FLOPs, TFLOP/s, % of peak and MFU", "[math]") {
  for (size_t chunk : ks_test::chunk_sizes()) {
    INFO("chunk " << chunk);
    auto t = ks_test::load(planted(), chunk);
    ks::MathEfficiency m = math_of(*t);
    REQUIRE(m.has_shapes);
    CHECK(m.gpu_name == "NVIDIA H100 80GB HBM3");
    REQUIRE(m.peak);
    CHECK(std::string(m.peak->gpu) == "NVIDIA H100 SXM");
    // linear holds addmm: counted once, at addmm; flash_attention_forward has no formula, so
    // its parent counts and owns its kernel.
    CHECK(m.counted_ops == 4);
    REQUIRE(m.ops.size() == 4);
    CHECK(row(m, "aten::linear", "1024x2048, 4096x2048, 4096") == nullptr);

    const ks::MathOpRow* addmm = row(m, "aten::addmm", "4096, 1024x2048, 2048x4096");
    REQUIRE(addmm);
    CHECK(addmm->flops == 17179869184.0);
    CHECK(addmm->gpu_ns == 100000);
    CHECK(addmm->dtype == ks::MathDtype::kBf16);
    CHECK(addmm->achieved_tflops == Approx(171.79869184).epsilon(1e-12));
    CHECK(addmm->peak_tflops == 989.5);
    CHECK(addmm->pct_of_peak == Approx(171.79869184 / 989.5 * 100).epsilon(1e-12));
    CHECK(addmm->top_kernels.at(0).first == "sm90_xmma_gemm_bf16bf16_bf16f32");
    CHECK(m.ops[0].name == "aten::addmm");  // longest GPU time first

    const ks::MathOpRow* sgemm = row(m, "aten::mm", "256x256, 256x256");
    REQUIRE(sgemm);
    CHECK(sgemm->dtype == ks::MathDtype::kFp32);
    CHECK(sgemm->peak_tflops == 67);
    CHECK(sgemm->achieved_tflops == Approx(3.3554432).epsilon(1e-12));
    const ks::MathOpRow* tf32 = row(m, "aten::mm", "512x512, 512x512");
    REQUIRE(tf32);
    CHECK(tf32->dtype == ks::MathDtype::kTf32);
    CHECK(tf32->peak_tflops == 494.5);
    CHECK(tf32->achieved_tflops == Approx(134.217728).epsilon(1e-12));

    const ks::MathOpRow* fa =
        row(m, "aten::_scaled_dot_product_flash_attention", "2x8x512x64, 2x8x512x64, 2x8x512x64");
    REQUIRE(fa);
    CHECK(fa->flops == 536870912.0);
    CHECK(fa->gpu_ns == 1000);

    REQUIRE(m.steps.size() == 1);
    const ks::MathStepRow& s = m.steps[0];
    CHECK(s.number == 3);
    CHECK(s.dur_ns == 1000000);
    CHECK(s.flops == 18018729984.0);
    CHECK(s.dominant == ks::MathDtype::kBf16);
    // MFU = 18018729984 / (1e-3 s * 989.5e12) = 1.82099...%
    CHECK(s.mfu_pct == Approx(18018729984.0 / 989.5e9 * 100).epsilon(1e-12));
    CHECK(s.kernel_ns == 122000);
    CHECK(s.math_ns == 113000);
    CHECK(s.fast_math_ns == 1000);
    CHECK(s.fast_math_share_pct == Approx(1.0 / 122 * 100).epsilon(1e-12));
  }
}

TEST_CASE("an unknown GPU gives FLOPs and TFLOP/s but no peak, no % and no MFU", "[math]") {
  std::string json = planted();
  json.replace(json.find("NVIDIA H100 80GB HBM3"), 21, "Quadro GP100");
  auto t = ks_test::load(json);
  ks::MathEfficiency m = math_of(*t);
  CHECK_FALSE(m.peak);
  REQUIRE_FALSE(m.ops.empty());
  CHECK(m.ops[0].achieved_tflops > 0);
  CHECK(m.ops[0].pct_of_peak < 0);
  REQUIRE(m.steps.size() == 1);
  CHECK(m.steps[0].mfu_pct < 0);
  const std::string text = ks::math_text(m, "x.json");
  CHECK(text.find("Quadro GP100: unknown GPU") != std::string::npos);
  const std::string json_out = ks::math_json(m, "x.json");
  CHECK(json_out.find("\"known\": false") != std::string::npos);
  CHECK(json_out.find("\"mfu_pct\": null") != std::string::npos);
}

TEST_CASE("a trace without shapes says how to record them", "[math]") {
  std::string json = planted();
  // Rename the arg so no event carries shapes.
  for (size_t p; (p = json.find("\"Input Dims\"")) != std::string::npos;)
    json.replace(p, 12, "\"Input Dimz\"");
  auto t = ks_test::load(json);
  ks::MathEfficiency m = math_of(*t);
  CHECK_FALSE(m.has_shapes);
  CHECK(m.ops.empty());
  const std::string text = ks::math_text(m, "x.json");
  CHECK(text.find("record_shapes=True") != std::string::npos);
  CHECK(ks::math_json(m, "x.json").find("\"shapes_recorded\": false") != std::string::npos);
}

TEST_CASE("real traces with shapes give sane math tables", "[math][corpus]") {
  struct Case {
    const char* file;
    const char* gpu_row;  // "" = unknown
    const char* must_have;
  };
  const Case cases[] = {
      {"tracelens__h100__gaunernst_bert-small-uncased__1016001.json.gz", "NVIDIA H100 SXM",
       "aten::_scaled_dot_product_flash_attention"},
      {"tracelens__h100__facebook_timesformer-base-finetuned-k400__1016002.json.gz",
       "NVIDIA H100 SXM", "aten::bmm"},
      {"tracelens__mi300__ddp_resnet18__train_resnet18.json.gz", "AMD Instinct MI300X",
       "aten::convolution_backward"},
      {"param__dlrm_kineto__worker0_step_12.1694128201545.pt.trace.json", "NVIDIA V100 SXM2",
       "aten::bmm"},
      {"kineto__resnet50_nw0__worker0.1623143089861.pt.trace.json.gz", "NVIDIA V100 SXM2",
       "aten::cudnn_convolution_backward"},
  };
  for (const Case& c : cases) {
    const std::string path = ks_test::shared_trace(c.file);
    if (!ks_test::file_exists(path)) {
      WARN("skipped: " << path << " absent");
      continue;
    }
    INFO(c.file);
    ks::ChromeJsonImporter importer;
    ks::ImportError err;
    REQUIRE(ks::import_file(path, &importer, &err));
    ks::MathEfficiency m = math_of(importer.trace());
    REQUIRE(m.has_shapes);
    REQUIRE(m.peak);
    CHECK(std::string(m.peak->gpu) == c.gpu_row);
    CHECK(std::any_of(m.ops.begin(), m.ops.end(),
                      [&](const ks::MathOpRow& r) { return r.name == c.must_have; }));
    for (const ks::MathOpRow& r : m.ops) {
      INFO(r.name << " " << r.shapes << " " << r.formula);
      CHECK(r.flops_each > 0);
      // Nothing runs above the datasheet's peak (a formula or attribution error would).
      // Winograd/FFT convolutions do fewer multiplies than the formula counts: they may.
      if (r.pct_of_peak >= 0 && r.gpu_ns >= 5000 && !ks::uses_winograd_or_fft(r))
        CHECK(r.pct_of_peak <= 100);
      // linear and matmul wrap mm/addmm/bmm in these traces: never counted twice.
      CHECK(r.name != "aten::linear");
    }
    CHECK(m.total_math_ns <= m.total_kernel_ns);
    // resnet50's 3x3 convolutions run cuDNN's Winograd kernels.
    if (std::string(c.file).rfind("kineto__resnet50", 0) == 0)
      CHECK(std::any_of(m.ops.begin(), m.ops.end(),
                        [](const ks::MathOpRow& r) { return ks::uses_winograd_or_fft(r); }));
    for (const ks::MathStepRow& s : m.steps) {
      CHECK(s.mfu_pct >= 0);
      CHECK(s.mfu_pct <= 100);
    }
  }
}
