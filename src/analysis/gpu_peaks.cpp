// The peak table. Every number is the datasheet's dense figure; where a datasheet gives only the
// sparse tensor-core figure ("with sparsity"), the dense one is half of it, as its footnote says.
// Per-GPU figures of a multi-GPU board (HGX B200) are the board's divided by its GPU count.
#include "analysis/gpu_peaks.h"

#include <cctype>
#include <string>

namespace ks {

namespace {

//                 gpu, source, url, fp64, fp32, tf32, fp16, bf16, fp8, int8
constexpr GpuPeak kPeaks[] = {
    // NVIDIA V100 datasheet (Volta, 2020 update): SXM2 7.8/15.7/125 tensor; PCIe 7/14/112;
    // V100S PCIe 8.2/16.4/130. Volta has no TF32, BF16 or FP8.
    {"NVIDIA V100 SXM2", "NVIDIA Tesla V100 GPU datasheet",
     "https://images.nvidia.com/content/technologies/volta/pdf/"
     "volta-v100-datasheet-update-us-1165301-r5.pdf",
     7.8, 15.7, 0, 125, 0, 0, 0},
    {"NVIDIA V100 PCIe", "NVIDIA Tesla V100 GPU datasheet",
     "https://images.nvidia.com/content/technologies/volta/pdf/"
     "volta-v100-datasheet-update-us-1165301-r5.pdf",
     7, 14, 0, 112, 0, 0, 0},
    {"NVIDIA V100S PCIe", "NVIDIA V100S datasheet",
     "https://images.nvidia.com/content/technologies/volta/pdf/"
     "volta-v100-datasheet-update-us-1165301-r5.pdf",
     8.2, 16.4, 0, 130, 0, 0, 0},
    // NVIDIA A100 Tensor Core GPU datasheet: the same peaks for SXM4 and PCIe, 40 and 80 GB:
    // FP64 tensor 19.5 (vector 9.7), FP32 19.5, TF32 156, BF16/FP16 312, INT8 624.
    {"NVIDIA A100 SXM4", "NVIDIA A100 Tensor Core GPU datasheet",
     "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
     "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf",
     19.5, 19.5, 156, 312, 312, 0, 624},
    {"NVIDIA A100 PCIe", "NVIDIA A100 Tensor Core GPU datasheet",
     "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
     "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf",
     19.5, 19.5, 156, 312, 312, 0, 624},
    // NVIDIA H100 Tensor Core GPU datasheet (sparse figures halved): SXM FP64 tensor 67,
    // FP32 67, TF32 494.5, BF16/FP16 989.5, FP8 1979, INT8 1979; PCIe 51/51/378/756/1513/1513;
    // NVL 60/60/417.5/835.5/1670.5/1670.5.
    {"NVIDIA H100 SXM", "NVIDIA H100 Tensor Core GPU datasheet",
     "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet", 67, 67,
     494.5, 989.5, 989.5, 1979, 1979},
    {"NVIDIA H100 PCIe", "NVIDIA H100 Tensor Core GPU datasheet",
     "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet", 51, 51, 378,
     756, 756, 1513, 1513},
    {"NVIDIA H100 NVL", "NVIDIA H100 Tensor Core GPU datasheet",
     "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet", 60, 60,
     417.5, 835.5, 835.5, 1670.5, 1670.5},
    // NVIDIA H200 Tensor Core GPU datasheet: H200 SXM has H100 SXM's compute (same GH100 at the
    // same clocks), H200 NVL H100 NVL's.
    {"NVIDIA H200 SXM", "NVIDIA H200 Tensor Core GPU datasheet",
     "https://www.nvidia.com/en-us/data-center/h200/", 67, 67, 494.5, 989.5, 989.5, 1979, 1979},
    {"NVIDIA H200 NVL", "NVIDIA H200 Tensor Core GPU datasheet",
     "https://www.nvidia.com/en-us/data-center/h200/", 60, 60, 417.5, 835.5, 835.5, 1670.5, 1670.5},
    // NVIDIA HGX B200 specifications (8 GPUs; sparse tensor figures): FP64 296, FP32 600,
    // TF32 18 PF, BF16/FP16 36 PF, FP8 72 PF, INT8 72 POPS -> per GPU dense: 37, 75, 1125,
    // 2250, 2250, 4500, 4500.
    {"NVIDIA B200", "NVIDIA HGX B200 specifications",
     "https://www.nvidia.com/en-us/data-center/hgx/", 37, 75, 1125, 2250, 2250, 4500, 4500},
    // AMD Instinct MI250X / MI250 product pages: FP64 matrix 95.7 / 90.5, FP32 matrix 95.7 /
    // 90.5 (vector 47.9 / 45.3), FP16/BF16 383 / 362.1, INT8 383 / 362.1. No TF32 or FP8.
    {"AMD Instinct MI250X", "AMD Instinct MI250X accelerator specifications",
     "https://www.amd.com/en/products/accelerators/instinct/mi200/mi250x.html", 95.7, 95.7, 0, 383,
     383, 0, 383},
    {"AMD Instinct MI250", "AMD Instinct MI250 accelerator specifications",
     "https://www.amd.com/en/products/accelerators/instinct/mi200/mi250.html", 90.5, 90.5, 0, 362.1,
     362.1, 0, 362.1},
    // AMD Instinct MI300X data sheet: FP64 matrix 163.4, FP32 matrix 163.4, TF32 653.7,
    // FP16/BF16 1307.4, FP8 2614.9, INT8 2614.9 (dense).
    {"AMD Instinct MI300X", "AMD Instinct MI300X data sheet",
     "https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/"
     "amd-instinct-mi300x-data-sheet.pdf",
     163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 2614.9},
    // Meta MTIA v2 ("next-generation MTIA", 2024): GEMM FP16/BF16 177 TFLOP/s dense (354
    // sparse), INT8 354 dense; MTIA v1 (2023): FP16/BF16 51.2, INT8 102.4.
    {"Meta MTIA v2", "Meta: Our next-generation Meta Training and Inference Accelerator",
     "https://ai.meta.com/blog/next-generation-meta-training-inference-accelerator-AI-MTIA/", 0, 0,
     0, 177, 177, 0, 354},
    {"Meta MTIA v1", "Meta: MTIA v1, Meta's first-generation AI inference accelerator",
     "https://ai.meta.com/blog/meta-training-inference-accelerator-AI-MTIA/", 0, 0, 0, 51.2, 51.2,
     0, 102.4},
};

enum Row {
  kV100Sxm2,
  kV100Pcie,
  kV100S,
  kA100Sxm,
  kA100Pcie,
  kH100Sxm,
  kH100Pcie,
  kH100Nvl,
  kH200Sxm,
  kH200Nvl,
  kB200,
  kMi250x,
  kMi250,
  kMi300x,
  kMtia2,
  kMtia1
};

}  // namespace

const GpuPeak* find_gpu_peak(std::string_view device_name) {
  std::string n(device_name);
  for (char& c : n) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  auto has = [&n](const char* s) { return n.find(s) != std::string::npos; };
  const GpuPeak* row = nullptr;
  if (has("B200"))
    row = &kPeaks[kB200];
  else if (has("H200"))
    row = &kPeaks[has("NVL") ? kH200Nvl : kH200Sxm];
  else if (has("H100"))
    row = &kPeaks[has("PCIE") ? kH100Pcie : has("NVL") ? kH100Nvl : kH100Sxm];
  else if (has("A100"))
    row = &kPeaks[has("PCIE") ? kA100Pcie : kA100Sxm];
  else if (has("V100S"))
    row = &kPeaks[kV100S];
  else if (has("V100"))
    row = &kPeaks[has("PCIE") ? kV100Pcie : kV100Sxm2];
  else if (has("MI300X"))
    row = &kPeaks[kMi300x];  // "AMD Instinct MI300X VF" too
  else if (has("MI250X"))
    row = &kPeaks[kMi250x];
  else if (has("MI250"))
    row = &kPeaks[kMi250];
  else if (has("MTIA")) {  // only a named generation: plain "MTIA" could be either
    if (has("V2") || has("MTIA2"))
      row = &kPeaks[kMtia2];
    else if (has("V1") || has("MTIA1"))
      row = &kPeaks[kMtia1];
  }
  return row;
}

double peak_tflops(const GpuPeak& g, MathDtype d) {
  switch (d) {
    case MathDtype::kFp64:
      return g.fp64;
    case MathDtype::kFp32:
      return g.fp32;
    case MathDtype::kTf32:
      return g.tf32;
    case MathDtype::kFp16:
      return g.fp16;
    case MathDtype::kBf16:
      return g.bf16;
    case MathDtype::kFp8:
      return g.fp8;
    case MathDtype::kInt8:
      return g.int8;
    default:
      return 0;
  }
}

const GpuPeak* gpu_peak_table(size_t* count) {
  *count = sizeof(kPeaks) / sizeof(kPeaks[0]);
  return kPeaks;
}

}  // namespace ks
