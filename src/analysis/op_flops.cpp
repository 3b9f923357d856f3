// FLOP formulas per op (see op_flops.h for the table). Argument positions follow the ATen
// schemas (native_functions.yaml) of each op; "Concrete Inputs" holds the scalars and int lists
// as text ("[2, 2]", "False", "1") at the same positions as "Input Dims".
#include "analysis/op_flops.h"

#include <algorithm>
#include <cstdio>

namespace ks {

const char* math_dtype_name(MathDtype d) {
  switch (d) {
    case MathDtype::kFp64:
      return "fp64";
    case MathDtype::kFp32:
      return "fp32";
    case MathDtype::kTf32:
      return "tf32";
    case MathDtype::kFp16:
      return "fp16";
    case MathDtype::kBf16:
      return "bf16";
    case MathDtype::kFp8:
      return "fp8";
    case MathDtype::kInt8:
      return "int8";
    default:
      return "unknown";
  }
}

MathDtype math_dtype_from_type(std::string_view t) {
  if (t == "float") return MathDtype::kFp32;
  if (t == "double") return MathDtype::kFp64;
  if (t == "c10::BFloat16") return MathDtype::kBf16;
  if (t == "c10::Half") return MathDtype::kFp16;
  if (t.rfind("c10::Float8", 0) == 0) return MathDtype::kFp8;
  if (t == "signed char") return MathDtype::kInt8;
  return MathDtype::kUnknown;
}

const char* math_family_name(MathFamily f) {
  switch (f) {
    case MathFamily::kGemm:
      return "gemm";
    case MathFamily::kConv:
      return "conv";
    case MathFamily::kAttention:
      return "attention";
    default:
      return "none";
  }
}

namespace {

// A tiny reader for the arrays Kineto writes: numbers, strings (no escapes needed: type names
// and concrete values), nested lists. Anything else makes the whole list unreadable.
class ListReader {
 public:
  explicit ListReader(std::string_view s) : s_(s) {}
  void space() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\n' || s_[p_] == '\t' || s_[p_] == '\r'))
      ++p_;
  }
  bool eat(char c) {
    space();
    if (p_ < s_.size() && s_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }
  bool peek(char c) {
    space();
    return p_ < s_.size() && s_[p_] == c;
  }
  bool integer(int64_t* out) {
    space();
    bool neg = p_ < s_.size() && s_[p_] == '-';
    if (neg) ++p_;
    size_t start = p_;
    int64_t v = 0;
    while (p_ < s_.size() && s_[p_] >= '0' && s_[p_] <= '9') {
      if (v > (INT64_MAX - 9) / 10) return false;
      v = v * 10 + (s_[p_++] - '0');
    }
    if (p_ == start) return false;
    *out = neg ? -v : v;
    return true;
  }
  bool string(std::string* out) {
    if (!eat('"')) return false;
    size_t start = p_;
    while (p_ < s_.size() && s_[p_] != '"') {
      if (s_[p_] == '\\') ++p_;  // keep escapes as written; values here never need them
      ++p_;
    }
    if (p_ >= s_.size()) return false;
    out->assign(s_.substr(start, p_ - start));
    ++p_;
    return true;
  }
  // Skips any value (for nested lists of tensor lists), depth-limited.
  bool skip(int depth) {
    if (depth > 16) return false;
    if (peek('[')) {
      ++p_;
      if (eat(']')) return true;
      do {
        if (!skip(depth + 1)) return false;
      } while (eat(','));
      return eat(']');
    }
    if (peek('"')) {
      std::string ignored;
      return string(&ignored);
    }
    space();
    size_t start = p_;
    while (p_ < s_.size() && s_[p_] != ',' && s_[p_] != ']') ++p_;
    return p_ > start;
  }
  bool at_end() {
    space();
    return p_ == s_.size();
  }

 private:
  std::string_view s_;
  size_t p_ = 0;
};

}  // namespace

ShapeList parse_input_dims(std::string_view json) {
  ShapeList out;
  ListReader r(json);
  if (!r.eat('[')) return out;
  if (r.eat(']')) {
    out.ok = r.at_end();
    return out;
  }
  do {
    std::vector<int64_t> dims;
    if (!r.eat('[')) return out;
    if (!r.eat(']')) {
      if (r.peek('[')) {  // a tensor list ([[..], [..]]): not one tensor, kept as {}
        do {
          if (!r.skip(0)) return out;
        } while (r.eat(','));
      } else {
        do {
          int64_t d;
          if (!r.integer(&d) || d < 0) return out;
          dims.push_back(d);
        } while (r.eat(','));
      }
      if (!r.eat(']')) return out;
    }
    out.dims.push_back(std::move(dims));
  } while (r.eat(','));
  out.ok = r.eat(']') && r.at_end();
  return out;
}

bool parse_string_list(std::string_view json, std::vector<std::string>* out) {
  out->clear();
  ListReader r(json);
  if (!r.eat('[')) return false;
  if (r.eat(']')) return r.at_end();
  do {
    std::string s;
    if (!r.string(&s)) return false;
    out->push_back(std::move(s));
  } while (r.eat(','));
  return r.eat(']') && r.at_end();
}

namespace {

using Dims = std::vector<int64_t>;

double prod(const Dims& d, size_t from, size_t to) {
  double p = 1;
  for (size_t i = from; i < to && i < d.size(); ++i) p *= static_cast<double>(d[i]);
  return p;
}

// "[2, 2]" or "2" -> {2, 2} / {2}; false when not ints.
bool parse_int_list(const std::string& text, Dims* out) {
  out->clear();
  if (text.empty()) return false;
  ListReader r(text);
  if (r.eat('[')) {
    if (r.eat(']')) return r.at_end();
    do {
      int64_t v;
      if (!r.integer(&v)) return false;
      out->push_back(v);
    } while (r.eat(','));
    return r.eat(']') && r.at_end();
  }
  int64_t v;
  if (!r.integer(&v) || !r.at_end()) return false;
  out->push_back(v);
  return true;
}

// "[True, True, False]" -> count of True among the first two; -1 when unreadable.
int count_true_of_first_two(const std::string& text) {
  if (text.size() < 2 || text.front() != '[') return -1;
  int n = 0, seen = 0;
  size_t p = 1;
  while (seen < 2 && p < text.size()) {
    while (p < text.size() && (text[p] == ' ' || text[p] == ',')) ++p;
    if (text.compare(p, 4, "True") == 0) {
      ++n;
      p += 4;
    } else if (text.compare(p, 5, "False") == 0) {
      p += 5;
    } else {
      return -1;
    }
    ++seen;
  }
  return seen == 2 ? n : -1;
}

// "True"/"False" -> 1/0, else -1 (absent or not recorded).
int parse_flag(const std::vector<std::string>& concrete, size_t i) {
  if (i >= concrete.size()) return -1;
  if (concrete[i] == "True") return 1;
  if (concrete[i] == "False") return 0;
  return -1;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

struct Args {
  ShapeList dims;
  std::vector<std::string> types, concrete;
  const Dims& dim(size_t i) const {
    static const Dims kEmpty;
    return i < dims.dims.size() ? dims.dims[i] : kEmpty;
  }
  MathDtype dtype(size_t i) const {
    return i < types.size() ? math_dtype_from_type(types[i]) : MathDtype::kUnknown;
  }
  const std::string& conc(size_t i) const {
    static const std::string kEmpty;
    return i < concrete.size() ? concrete[i] : kEmpty;
  }
};

OpFlops fail(std::string why) {
  OpFlops f;
  f.why_not = std::move(why);
  return f;
}

// A[M,K] @ B[K,N] with a batch of `batch`: 2*batch*M*N*K.
OpFlops gemm(double batch, int64_t m, int64_t n, int64_t k, MathDtype dtype, const char* what) {
  OpFlops f;
  f.ok = true;
  f.family = MathFamily::kGemm;
  f.dtype = dtype;
  f.m = m;
  f.n = n;
  f.k = k;
  f.flops = 2 * batch * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  f.formula = std::string(what) + (batch != 1 ? ", batch=" + num(batch) : std::string()) +
              " M=" + num(static_cast<double>(m)) + " N=" + num(static_cast<double>(n)) +
              " K=" + num(static_cast<double>(k));
  return f;
}

// mm / addmm / _scaled_mm: A = dims[a], B = dims[a+1], both 2-D.
OpFlops mm_like(const Args& x, size_t a) {
  const Dims &A = x.dim(a), &B = x.dim(a + 1);
  if (A.size() != 2 || B.size() != 2) return fail("A and B are not 2-D");
  return gemm(1, A[0], B[1], A[1], x.dtype(a), "2*M*N*K");
}

// bmm / baddbmm: A[b,M,K] @ B[b,K,N].
OpFlops bmm_like(const Args& x, size_t a) {
  const Dims &A = x.dim(a), &B = x.dim(a + 1);
  if (A.size() != 3 || B.size() != 3) return fail("A and B are not 3-D");
  return gemm(static_cast<double>(A[0]), A[1], B[2], A[2], x.dtype(a), "2*b*M*N*K");
}

// linear(input[..., K], weight[N, K], bias): 2*prod(input[:-1])*K*N.
OpFlops linear(const Args& x) {
  const Dims &X = x.dim(0), &W = x.dim(1);
  if (X.empty() || W.size() != 2) return fail("input or weight shape missing");
  const double rows = prod(X, 0, X.size() - 1);
  OpFlops f = gemm(1, 0, W[0], X.back(), x.dtype(0), "2*prod(x[:-1])*K*N");
  f.m = static_cast<int64_t>(rows);
  f.flops = 2 * rows * static_cast<double>(W[0]) * static_cast<double>(X.back());
  f.formula = "2*prod(x[:-1])*K*N, M=" + num(rows) + " N=" + num(static_cast<double>(W[0])) +
              " K=" + num(static_cast<double>(X.back()));
  return f;
}

// matmul(A, B) with torch.matmul's rules: a 1-D side is a vector (M or N = 1), batch dims of
// both broadcast (the larger of each aligned pair; a 1 broadcasts).
OpFlops matmul(const Args& x) {
  const Dims &A = x.dim(0), &B = x.dim(1);
  if (A.empty() || B.empty()) return fail("A or B shape missing");
  const int64_t m = A.size() >= 2 ? A[A.size() - 2] : 1;
  const int64_t k = A.back();
  const int64_t n = B.size() >= 2 ? B.back() : 1;
  const size_t ab = A.size() > 2 ? A.size() - 2 : 0, bb = B.size() > 2 ? B.size() - 2 : 0;
  double batch = 1;
  for (size_t i = 0; i < std::max(ab, bb); ++i) {
    const int64_t da = i < ab ? A[ab - 1 - i] : 1, db = i < bb ? B[bb - 1 - i] : 1;
    batch *= static_cast<double>(std::max(da, db));
  }
  return gemm(batch, m, n, k, x.dtype(0), "2*batch*M*N*K");
}

// Where an op's conv parameters sit in its schema; -1 = not an argument of it.
struct ConvLayout {
  int stride, padding, dilation, groups, transposed_flag;
  bool transposed;  // always transposed (conv_transpose*, cudnn_convolution_transpose)
};

// Output spatial size of a (non-transposed) convolution, per dim; false when unknown.
bool conv_output(const Dims& in, const Dims& w, const Args& x, const ConvLayout& l, Dims* out) {
  const size_t sp = in.size() - 2;
  Dims stride, pad, dil;
  if (l.stride < 0 || !parse_int_list(x.conc(l.stride), &stride)) return false;
  const std::string& ptxt = x.conc(l.padding);
  if (ptxt == "same") {  // conv2d(padding="same"): the output is the input's size (stride 1)
    out->assign(in.begin() + 2, in.end());
    return true;
  }
  if (ptxt == "valid") {
    pad.assign(sp, 0);
  } else if (!parse_int_list(ptxt, &pad)) {
    return false;
  }
  if (l.dilation < 0) {
    dil.assign(sp, 1);
  } else if (!parse_int_list(x.conc(l.dilation), &dil)) {
    return false;
  }
  out->clear();
  for (size_t i = 0; i < sp; ++i) {
    auto pick = [i](const Dims& v) { return v.size() == 1 ? v[0] : (i < v.size() ? v[i] : -1); };
    const int64_t s = pick(stride), p = pick(pad), d = pick(dil);
    if (s <= 0 || p < 0 || d <= 0) return false;
    const int64_t span = in[2 + i] + 2 * p - d * (w[2 + i] - 1) - 1;
    out->push_back(span < 0 ? 0 : span / s + 1);
  }
  return true;
}

OpFlops conv_flops(double n, double out_pixels, const Dims& w, MathDtype dtype, double times,
                   std::string formula) {
  OpFlops f;
  f.ok = true;
  f.family = MathFamily::kConv;
  f.dtype = dtype;
  f.flops = 2 * n * out_pixels * prod(w, 0, w.size()) * times;
  f.formula = std::move(formula);
  return f;
}

// Forward convolution: input = dims[0] [N,C,H..], weight = dims[1] [K,C/g,R..].
// FLOPs = 2*N*prod(P)*K*(C/g)*prod(R), the weight's element count covering K*(C/g)*prod(R).
OpFlops conv_forward(const Args& x, const ConvLayout& l) {
  const Dims &in = x.dim(0), &w = x.dim(1);
  if (in.size() < 3 || w.size() != in.size()) return fail("input or weight shape missing");
  const int t = l.transposed_flag >= 0 ? parse_flag(x.concrete, l.transposed_flag) : 0;
  const bool transposed = l.transposed || t == 1;
  const std::string shape =
      " N=" + num(static_cast<double>(in[0])) + " weight=" + num(prod(w, 0, w.size()));
  if (transposed)  // every input pixel scatters through the whole kernel
    return conv_flops(
        static_cast<double>(in[0]), prod(in, 2, in.size()), w, x.dtype(0), 1,
        "2*N*prod(H_in)*numel(w) (transposed)," + shape + " H_in=" + num(prod(in, 2, in.size())));
  Dims out;
  if (!conv_output(in, w, x, l, &out))
    return fail("stride/padding not recorded (Concrete Inputs: PyTorch 2.0+)");
  return conv_flops(static_cast<double>(in[0]), prod(out, 0, out.size()), w, x.dtype(0), 1,
                    "2*N*prod(P)*numel(w)," + shape + " P=" + num(prod(out, 0, out.size())));
}

// Backward convolution: each gradient asked for (output_mask's first two: input, weight) is one
// convolution of the forward's size; with the mask unknown both are counted.
OpFlops conv_backward(const Args& x, size_t grad_out, size_t input, size_t weight,
                      int transposed_pos, int mask_pos) {
  const Dims &go = x.dim(grad_out), &in = x.dim(input), &w = x.dim(weight);
  if (go.size() < 3 || w.size() != go.size()) return fail("grad_output or weight shape missing");
  const int t = transposed_pos >= 0 ? parse_flag(x.concrete, transposed_pos) : 0;
  int grads = mask_pos >= 0 ? count_true_of_first_two(x.conc(mask_pos)) : -1;
  const bool mask_known = grads >= 0;
  if (!mask_known) grads = 2;
  // Non-transposed: the forward's output pixels are grad_output's; transposed: the forward's
  // input pixels are `input`'s.
  const Dims& pixels = t == 1 ? in : go;
  if (pixels.size() < 3) return fail("input shape missing");
  const double p = prod(pixels, 2, pixels.size());
  return conv_flops(static_cast<double>(go[0]), p, w, x.dtype(grad_out), grads,
                    std::to_string(grads) + "*2*N*prod(P)*numel(w)" +
                        (mask_known ? " (output_mask)" : " (grad input+weight assumed)") +
                        ", N=" + num(static_cast<double>(go[0])) + " P=" + num(p) +
                        " weight=" + num(prod(w, 0, w.size())));
}

// SDPA: q[B..,Lq,D], k[B..,Lk,D], v[B..,Lk,Dv] at dims[q], [q+1], [q+2].
// Forward: 2*B*Lq*Lk*D (q @ k^T) + 2*B*Lq*Lk*Dv (p @ v), halved when causal; backward 2.5x.
OpFlops attention(const Args& x, size_t q, int causal_pos, bool backward) {
  const Dims &Q = x.dim(q), &K = x.dim(q + 1), &V = x.dim(q + 2);
  if (Q.size() < 3 || K.size() != Q.size() || V.size() != Q.size())
    return fail("q, k or v shape missing");
  const double b = prod(Q, 0, Q.size() - 2);
  const double lq = static_cast<double>(Q[Q.size() - 2]), lk = static_cast<double>(K[K.size() - 2]);
  const double d = static_cast<double>(Q.back()), dv = static_cast<double>(V.back());
  const int causal = causal_pos >= 0 ? parse_flag(x.concrete, causal_pos) : -1;
  OpFlops f;
  f.ok = true;
  f.family = MathFamily::kAttention;
  f.dtype = x.dtype(q);
  f.flops = 2 * b * lq * lk * (d + dv) * (causal == 1 ? 0.5 : 1) * (backward ? 2.5 : 1);
  f.formula = std::string(backward ? "2.5*" : "") + "2*B*Lq*Lk*(D+Dv)" +
              (causal == 1 ? "/2 (causal)" : "") + ", B*H=" + num(b) + " Lq=" + num(lq) +
              " Lk=" + num(lk) + " D=" + num(d) + " Dv=" + num(dv);
  return f;
}

enum class Kind : uint8_t {
  kMm,
  kAddmm,
  kBmm,
  kBaddbmm,
  kLinear,
  kMatmul,
  kConv,
  kConvBackward,
  kCudnnConvBackward,
  kSdpa,
  kSdpaBackward
};

struct Formula {
  std::string_view name;
  Kind kind;
  ConvLayout conv;  // kConv
  int causal;       // kSdpa / kSdpaBackward: position of is_causal, -1 if none
};

// Sorted by name. Positions from the ATen schemas:
//   convolution / _convolution(input, weight, bias, stride, padding, dilation, transposed,
//       output_padding, groups, ...)
//   conv1d/2d/3d(input, weight, bias, stride, padding, dilation, groups)
//   conv_transpose1d/2d/3d(input, weight, bias, stride, padding, output_padding, groups, dilation)
//   cudnn_convolution(self, weight, padding, stride, dilation, groups, ...)
//   cudnn_convolution_transpose(self, weight, padding, output_padding, stride, dilation, ...)
//   miopen_convolution / mkldnn_convolution(self, weight, bias, padding, stride, dilation, ...)
//   thnn_conv2d(self, weight, kernel_size, bias, stride, padding)
//   scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal, ...)
//   _scaled_dot_product_flash_attention(q, k, v, dropout_p, is_causal, ...)
//   _scaled_dot_product_efficient_attention(q, k, v, attn_bias, compute_lse, dropout_p,
//       is_causal, ...), _scaled_dot_product_cudnn_attention: the same up to is_causal
//   backward: (grad_out, q, k, v, ...) with is_causal at 11 (flash, efficient) / 14 (cudnn)
constexpr Formula kFormulas[] = {
    {"aten::_addmm_activation", Kind::kAddmm, {}, -1},
    {"aten::_convolution", Kind::kConv, {3, 4, 5, 8, 6, false}, -1},
    {"aten::_scaled_dot_product_cudnn_attention", Kind::kSdpa, {}, 6},
    {"aten::_scaled_dot_product_cudnn_attention_backward", Kind::kSdpaBackward, {}, 14},
    {"aten::_scaled_dot_product_efficient_attention", Kind::kSdpa, {}, 6},
    {"aten::_scaled_dot_product_efficient_attention_backward", Kind::kSdpaBackward, {}, 11},
    {"aten::_scaled_dot_product_flash_attention", Kind::kSdpa, {}, 4},
    {"aten::_scaled_dot_product_flash_attention_backward", Kind::kSdpaBackward, {}, 11},
    {"aten::_scaled_mm", Kind::kMm, {}, -1},
    {"aten::addmm", Kind::kAddmm, {}, -1},
    {"aten::baddbmm", Kind::kBaddbmm, {}, -1},
    {"aten::bmm", Kind::kBmm, {}, -1},
    {"aten::conv1d", Kind::kConv, {3, 4, 5, 6, -1, false}, -1},
    {"aten::conv2d", Kind::kConv, {3, 4, 5, 6, -1, false}, -1},
    {"aten::conv3d", Kind::kConv, {3, 4, 5, 6, -1, false}, -1},
    {"aten::conv_transpose1d", Kind::kConv, {3, 4, 7, 6, -1, true}, -1},
    {"aten::conv_transpose2d", Kind::kConv, {3, 4, 7, 6, -1, true}, -1},
    {"aten::conv_transpose3d", Kind::kConv, {3, 4, 7, 6, -1, true}, -1},
    {"aten::convolution", Kind::kConv, {3, 4, 5, 8, 6, false}, -1},
    {"aten::convolution_backward", Kind::kConvBackward, {}, -1},
    {"aten::cudnn_convolution", Kind::kConv, {3, 2, 4, 5, -1, false}, -1},
    {"aten::cudnn_convolution_backward", Kind::kCudnnConvBackward, {}, -1},
    {"aten::cudnn_convolution_transpose", Kind::kConv, {4, 2, 5, 6, -1, true}, -1},
    {"aten::linear", Kind::kLinear, {}, -1},
    {"aten::matmul", Kind::kMatmul, {}, -1},
    {"aten::miopen_convolution", Kind::kConv, {4, 3, 5, 6, -1, false}, -1},
    {"aten::mkldnn_convolution", Kind::kConv, {4, 3, 5, 6, -1, false}, -1},
    {"aten::mm", Kind::kMm, {}, -1},
    {"aten::scaled_dot_product_attention", Kind::kSdpa, {}, 5},
    {"aten::thnn_conv2d", Kind::kConv, {4, 5, -1, -1, -1, false}, -1},
};

const Formula* find_formula(std::string_view name) {
  auto it = std::lower_bound(std::begin(kFormulas), std::end(kFormulas), name,
                             [](const Formula& f, std::string_view n) { return f.name < n; });
  return it != std::end(kFormulas) && it->name == name ? &*it : nullptr;
}

}  // namespace

bool has_flops_formula(std::string_view name) {
  return find_formula(name) != nullptr;
}

OpFlops op_flops(std::string_view name, std::string_view input_dims, std::string_view input_types,
                 std::string_view concrete_inputs) {
  const Formula* f = find_formula(name);
  if (!f) return fail("no formula for this op");
  Args x;
  x.dims = parse_input_dims(input_dims);
  if (!x.dims.ok) return fail("Input Dims unreadable");
  parse_string_list(input_types, &x.types);  // optional: dtype unknown without it
  parse_string_list(concrete_inputs, &x.concrete);
  switch (f->kind) {
    case Kind::kMm:
      return mm_like(x, 0);
    case Kind::kAddmm:
      return mm_like(x, 1);
    case Kind::kBmm:
      return bmm_like(x, 0);
    case Kind::kBaddbmm:
      return bmm_like(x, 1);
    case Kind::kLinear:
      return linear(x);
    case Kind::kMatmul:
      return matmul(x);
    case Kind::kConv:
      return conv_forward(x, f->conv);
    // convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
    //     transposed, output_padding, groups, output_mask)
    case Kind::kConvBackward:
      return conv_backward(x, 0, 1, 2, 7, 10);
    // cudnn_convolution_backward(self, grad_output, weight, padding, stride, dilation, groups,
    //     benchmark, deterministic, allow_tf32, output_mask) (PyTorch <= 1.10)
    case Kind::kCudnnConvBackward:
      return conv_backward(x, 1, 0, 2, -1, 10);
    case Kind::kSdpa:
      return attention(x, 0, f->causal, false);
    case Kind::kSdpaBackward:
      return attention(x, 1, f->causal, true);
  }
  return fail("no formula for this op");
}

}  // namespace ks
