#include "model/math_op_names.h"

#include <algorithm>
#include <array>

namespace ks {

namespace {

// Sorted, for a binary search.
constexpr std::array<std::string_view, 30> kNames = {
    "aten::_addmm_activation",
    "aten::_convolution",
    "aten::_scaled_dot_product_cudnn_attention",
    "aten::_scaled_dot_product_cudnn_attention_backward",
    "aten::_scaled_dot_product_efficient_attention",
    "aten::_scaled_dot_product_efficient_attention_backward",
    "aten::_scaled_dot_product_flash_attention",
    "aten::_scaled_dot_product_flash_attention_backward",
    "aten::_scaled_mm",
    "aten::addmm",
    "aten::baddbmm",
    "aten::bmm",
    "aten::conv1d",
    "aten::conv2d",
    "aten::conv3d",
    "aten::conv_transpose1d",
    "aten::conv_transpose2d",
    "aten::conv_transpose3d",
    "aten::convolution",
    "aten::convolution_backward",
    "aten::cudnn_convolution",
    "aten::cudnn_convolution_backward",
    "aten::cudnn_convolution_transpose",
    "aten::linear",
    "aten::matmul",
    "aten::miopen_convolution",
    "aten::mkldnn_convolution",
    "aten::mm",
    "aten::scaled_dot_product_attention",
    "aten::thnn_conv2d",
};

}  // namespace

bool is_math_op_name(std::string_view name) {
  if (name.size() < 8 || name[0] != 'a' || name.compare(0, 6, "aten::") != 0) return false;
  return std::binary_search(kNames.begin(), kNames.end(), name);
}

}  // namespace ks
