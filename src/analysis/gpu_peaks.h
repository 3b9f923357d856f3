// Dense (no 2:4 sparsity) peak math rates per GPU and precision, from the vendors' datasheets,
// for "% of peak" and MFU. A GPU is recognised from deviceProperties[].name by rules (A100 any
// form factor but PCIe -> SXM; "H100 80GB HBM3" -> H100 SXM; "MI300X VF" -> MI300X), never per
// file. An unknown name gives nullptr: the report then says "unknown GPU" and shows no % of peak.
#pragma once
#include <string_view>

#include "analysis/op_flops.h"

namespace ks {

struct GpuPeak {
  const char* gpu;     // "NVIDIA H100 SXM"
  const char* source;  // datasheet name
  const char* url;
  // TFLOP/s (TOP/s for int8), dense; 0 = no such unit or not published.
  double fp64, fp32, tf32, fp16, bf16, fp8, int8;
};

const GpuPeak* find_gpu_peak(std::string_view device_name);
// The peak for a precision; 0 when the GPU has none for it. fp32 is the plain (non-tensor-core)
// rate; an fp32 op whose kernels run in TF32 is rated as tf32 (math_efficiency.cpp).
double peak_tflops(const GpuPeak& g, MathDtype d);
// Every row, for the documentation and tests.
const GpuPeak* gpu_peak_table(size_t* count);

}  // namespace ks
