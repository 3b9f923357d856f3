#include "import/nsys_sqlite/kernel_demangle.h"

#include "import/nsys_sqlite/mangled_chars.h"
#include "import/nsys_sqlite/printed_length.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace ks::nsys_sqlite {

namespace {

// The scan's state: scopes still open (each with the type prefixes that stood before it, which
// nest as deep as it does), the type prefixes since the last complete name or type.
class ShapeScan {
 public:
  explicit ShapeScan(std::string_view s) : s_(s) {}

  MangledShape run() {
    size_t i = 2;  // after "_Z"
    while (i < s_.size()) {
      source_bytes_ = -1;
      const size_t next = step(i);
      if (!scopes_.empty() && scopes_.back().literal) ++scopes_.back().tokens;
      // An identifier prints as itself, with "::" or ", " after it; any other token at most 20
      // bytes per byte ("y": "unsigned long long, ", "GV": "guard variable for ").
      literal_ += source_bytes_ >= 0 ? source_bytes_ + 4.0 : 20.0 * static_cast<double>(next - i);
      i = next;
    }
    // The parse's bound where it reads the whole name (each backreference bounded by its own
    // entry), else the scan's (each bounded by all the text before it).
    const double parsed = printed_length_bound(s_);
    shape_.parsed = parsed >= 0;
    shape_.printed = shape_.parsed ? std::min(parsed, printed_bound()) : printed_bound();
    return shape_;
  }

 private:
  char at(size_t i) const { return i < s_.size() ? s_[i] : '\0'; }
  size_t skip_while_digits(size_t i) const {
    while (digit(at(i))) ++i;
    return i;
  }
  // <seq-id>_ or _ after S/T: base-36 digits, then the underscore.
  size_t skip_seq(size_t i) const {
    while (digit(at(i)) || upper(at(i))) ++i;
    return at(i) == '_' ? i + 1 : i;
  }
  // Whether bytes [from, to) hold what the scan reads as a backreference (S_, S<seq>_, T_, T<n>_),
  // a pack expansion (Dp) or a standard abbreviation (Sa, Sb, Sd, Si, So, Ss, St).
  bool holds_backreference(size_t from, size_t to) const {
    for (size_t k = from; k + 1 < to; ++k) {
      const char c = s_[k], n = s_[k + 1];
      if (c == 'S' && (digit(n) || upper(n) || n == '_')) return true;
      if (c == 'S' && std::string_view("abdiost").find(n) != std::string_view::npos) return true;
      if (c == 'T' && (digit(n) || n == '_')) return true;
      if (c == 'D' && n == 'p') return true;
    }
    return false;
  }
  // Where a function parameter at `i` ends: fp <cv> [<number>] _ or fL <number> p <cv> [<number>] _
  // (npos if the bytes are not one).
  size_t function_parameter_end(size_t i) const {
    size_t j = i + 2;
    if (at(i + 1) == 'L') {
      if (!digit(at(j))) return std::string_view::npos;
      j = skip_while_digits(j);
      if (at(j) != 'p') return std::string_view::npos;
      ++j;
    } else if (at(i + 1) != 'p') {
      return std::string_view::npos;
    }
    while (at(j) == 'r' || at(j) == 'V' || at(j) == 'K') ++j;
    j = skip_while_digits(j);
    return at(j) == '_' ? j + 1 : std::string_view::npos;
  }
  void note() { shape_.depth = std::max(shape_.depth, open_ + prefixes_); }
  void open(bool lambda = false, bool pack = false, bool nested = false, bool literal = false) {
    // A literal's count starts below 0 so that its own L is not counted as its first token.
    scopes_.push_back({prefixes_ + 1, lambda, pack, nested, literal, literal ? -1 : 0});
    open_ += prefixes_ + 1;
    lambdas_open_ += lambda ? 1 : 0;
    prefixes_ = 0;
    note();
  }
  void prefix() {
    ++prefixes_;
    note();
  }
  // A backreference (here, before the tokens after it are counted) to entry `index` of its table.
  void backref(char table, size_t index) {
    ++shape_.backrefs;
    refs_.push_back({literal_, table, index});
  }
  // S_ is entry 0, S<seq>_ entry seq + 1 (seq in base 36); the same for T.
  size_t seq_index(size_t i) const {
    if (at(i) == '_') return 0;
    size_t n = 0;
    while (digit(at(i)) || upper(at(i)))
      n = n * 36 + (digit(at(i)) ? at(i) - '0' : at(i) - 'A' + 10), ++i;
    return n + 1;
  }
  double printed_bound() const;

  size_t step(size_t i) {
    const char c = s_[i], d = at(i + 1);
    // A literal's value after its type ("L4Enum9999E": the enum Enum's 9999), not an identifier's
    // length: read as one, the digits hid the rest of the name, backreferences included, from the
    // bound (a valid name printed 50 KB under a bound of 200 bytes). Digits read as a value are
    // counted as any token, so a misread errs on the large side.
    if (digit(c) && !scopes_.empty() && scopes_.back().literal && scopes_.back().tokens > 0)
      return skip_while_digits(i);
    if (digit(c)) {  // <source-name>: its length, then that many bytes of identifier
      size_t end = skip_while_digits(i);
      const size_t len = std::strtoul(std::string(s_.substr(i, end - i)).c_str(), nullptr, 10);
      const size_t stop = std::min(s_.size(), end + std::min(len, s_.size()));
      // Bytes that would read as backreferences are read as tokens, not skipped: a number the
      // scan takes for an identifier's length where the name has another (a thunk's offset,
      // "_ZTh9999_..."; a default argument's, "Z1gvEd9999_") would hide them from the bound. A
      // real identifier holding such bytes is counted on the large side.
      if (holds_backreference(end, stop)) return end;
      source_bytes_ = static_cast<double>(std::min(len, s_.size()));
      prefixes_ = 0;
      // Each name of a nested name (a::b::c) nests one deeper in both demanglers' trees.
      if (!scopes_.empty() && scopes_.back().nested) {
        ++scopes_.back().weight;
        ++open_;
        note();
      }
      return stop;
    }
    switch (c) {
      case 'S':
        prefixes_ = 0;
        if (d == '_' || digit(d) || upper(d)) {
          backref('S', seq_index(i + 1));
          return skip_seq(i + 1);
        }
        return i + 2;  // St, Sa, Ss, ...: the standard abbreviations
      case 'T':
        prefixes_ = 0;
        if (d == '_' || digit(d)) {
          // In a lambda's parameter types, a generic lambda's auto: libiberty writes auto:1 (and
          // refuses auto...), libc++abi auto, and they differ on what a reference to it prints.
          if (lambdas_open_ > 0) shape_.one_sided = true;
          backref('T', seq_index(i + 1));
          return skip_seq(i + 1);
        }
        // A template parameter's declaration (C++20): Ty, Tk <concept>, Tn <type>, Tt ... E,
        // Tp <declaration>.
        if (d == 'y' || d == 'k' || d == 'n' || d == 't' || d == 'p') shape_.one_sided = true;
        return i + 2;  // Ts, Tu, Te, TV, TI, ...
      case 'f': {
        prefixes_ = 0;
        // A function parameter only where it ends as one: else float, then the next token
        // ("IfLi128E": float, then the literal 128; read as fL, the literal's digits were taken
        // for an identifier's length that hid the rest of the name from the bound).
        const size_t end = function_parameter_end(i);
        if (end == std::string_view::npos) return i + 1;  // float
        backref('f', seq_index(i + 2));
        return end;
      }
      case 'L':  // a literal: L <type> <value> E, or L_Z <encoding> E
        open(/*lambda=*/false, /*pack=*/false, /*nested=*/false, /*literal=*/true);
        if (d == '_' && at(i + 2) == 'Z') return i + 3;
        if (lower(d)) {  // a builtin type, then its value: digits, n for minus, hex for floats
          size_t j = i + 2;
          while (lower(at(j)) || digit(at(j))) ++j;
          return j;
        }
        return i + 1;
      case 'A':  // an array: A <dimension> _ <element type>
        prefix();
        return at(skip_while_digits(i + 1)) == '_' ? skip_while_digits(i + 1) + 1 : i + 1;
      case 'D':
        if (digit(d)) return i + 2;  // a destructor: D0, D1, D2
        if (d == 'v') {              // a vector: Dv <dimension> _ <element type>
          prefix();
          const size_t j = skip_while_digits(i + 2);
          return at(j) == '_' ? j + 1 : j;
        }
        if (d == 'p') {  // a pack expansion: its pattern printed once per element of the pack
          ++pack_expansions_;
          prefix();
          return i + 2;
        }
        if (d == 't' || d == 'T' || d == 'O' || d == 'w') {  // decltype, exception specs: ..E
          open();
          return i + 2;
        }
        prefixes_ = 0;
        if (d == 'F') shape_.one_sided = true;   // DF16_, DF32x, DF16b; GNU fixed-point types
        if (d == 'F' || d == 'B' || d == 'U') {  // DF16_, DB<n>_, DU<n>_
          const size_t j = skip_while_digits(i + 2);
          return at(j) == '_' ? j + 1 : j;
        }
        return i + 2;  // Da, Dc, Dn, Dh, Ds, Du, ...: builtin types
      case 'C':
        if (digit(d)) return i + 2;                      // a constructor: C1, C2, C3
        if (d == 'I' && digit(at(i + 2))) return i + 3;  // an inheriting constructor
        prefix();                                        // complex
        return i + 1;
      case 'U':
        if (d == 'l') {  // a lambda: Ul <parameter types> E [<number>] _
          open(/*lambda=*/true);
          return i + 2;
        }
        if (d == 't') {  // an unnamed type: Ut [<number>] _
          prefixes_ = 0;
          const size_t j = skip_while_digits(i + 2);
          return at(j) == '_' ? j + 1 : j;
        }
        prefix();  // a vendor qualifier: U <source-name>
        return i + 1;
      case 'N':
        open(/*lambda=*/false, /*pack=*/false, /*nested=*/true);
        return i + 1;
      case 'J':  // a pack: its elements, at most as many as its bytes
        open(/*lambda=*/false, /*pack=*/true);
        pack_starts_.push_back(i);
        return i + 1;
      case 'I':
      case 'Z':
      case 'X':
      case 'F':
        open();
        return i + 1;
      case 'E': {
        prefixes_ = 0;
        if (scopes_.empty()) return i + 1;
        const Scope closed = scopes_.back();
        scopes_.pop_back();
        open_ -= closed.weight;
        lambdas_open_ -= closed.lambda ? 1 : 0;
        if (closed.pack && !pack_starts_.empty()) {
          longest_pack_ = std::max(longest_pack_, i - pack_starts_.back() - 1);
          pack_starts_.pop_back();
        }
        if (!closed.lambda) return i + 1;
        const size_t j = skip_while_digits(i + 1);  // the lambda's number
        return at(j) == '_' ? j + 1 : j;
      }
      case '_': {  // a discriminator: _ <digit> or __ <number> _
        size_t j = at(i + 1) == '_' ? i + 2 : i + 1;
        j = skip_while_digits(j);
        return at(j) == '_' && at(i + 1) == '_' ? j + 1 : j;
      }
      case 'P':
      case 'R':
      case 'O':
      case 'K':
      case 'V':
      case 'r':
      case 'G':
      case 'M':
        prefix();
        return i + 1;
      default:  // builtin types and operator names (lowercase letters)
        prefixes_ = 0;
        return i + 1;
    }
  }

  struct Scope {
    int weight;    // 1 + the type prefixes before it
    bool lambda;   // Ul: its E is followed by the lambda's number
    bool pack;     // J
    bool nested;   // N
    bool literal;  // L: after its type, digits are its value
    int tokens;    // a literal's tokens read so far (its type first)
  };
  struct Ref {
    double before;  // the bound on what the tokens before it print
    char table;     // S (substitutions), T (template arguments), f (function parameters)
    size_t index;
  };
  std::vector<Ref> refs_;
  std::vector<size_t> pack_starts_;
  size_t longest_pack_ = 0;
  double literal_ = 0, source_bytes_ = -1;
  int pack_expansions_ = 0;
  std::string_view s_;
  std::vector<Scope> scopes_;
  int open_ = 0, prefixes_ = 0;
  int lambdas_open_ = 0;  // Ul scopes open: a lambda's parameter types are being read
  MangledShape shape_;
};

// What a backreference prints is an entry written before it, so no longer than what the tokens
// before it print plus what the backreferences among them print; a substitution's entry S<k> holds
// only references to entries before it (it is complete when numbered). Entries are bounded in the
// order they are first referred to, each from those bounded before it; a pack expansion prints
// its pattern once per element of the longest pack. Doubles: the bound of a hostile name is
// astronomical, not wrapped around.
double ShapeScan::printed_bound() const {
  struct Bound {
    char table;
    size_t index;
    double bytes;
  };
  std::vector<Bound> bounds;
  double total = literal_;
  for (size_t r = 0; r < refs_.size(); ++r) {
    const Ref& ref = refs_[r];
    auto it = std::find_if(bounds.begin(), bounds.end(), [&](const Bound& b) {
      return b.table == ref.table && b.index == ref.index;
    });
    if (it == bounds.end()) {
      double bytes = ref.before;
      for (size_t q = 0; q < r; ++q) {
        const Ref& inner = refs_[q];
        if (ref.table == 'S' && inner.table == 'S' && inner.index >= ref.index) continue;
        for (const Bound& b : bounds)
          if (b.table == inner.table && b.index == inner.index) bytes += b.bytes;
      }
      bounds.push_back({ref.table, ref.index, bytes});
      it = bounds.end() - 1;
    }
    total += it->bytes;
  }
  for (int k = 0; k < pack_expansions_; ++k) total *= 1.0 + static_cast<double>(longest_pack_);
  return total;
}

// The closing parenthesis matching the one at `open` (or npos).
size_t matching_paren(std::string_view s, size_t open) {
  int level = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '(') ++level;
    if (s[i] == ')' && --level == 0) return i;
  }
  return std::string_view::npos;
}

bool name_char(char c) {
  return digit(c) || upper(c) || lower(c) || c == '_' || c == ':' || c == '~' || c == '$';
}

// Where the function name that ends at `end` (its "(") begins: back over identifiers, "::",
// "(anonymous namespace)", balanced <...> and a lambda's {...}.
size_t name_start(std::string_view s, size_t end) {
  constexpr std::string_view kAnonymous = "(anonymous namespace)";
  size_t j = end;
  while (j > 0) {
    const char c = s[j - 1];
    if (j >= kAnonymous.size() &&
        s.substr(j - kAnonymous.size(), kAnonymous.size()) == kAnonymous) {
      j -= kAnonymous.size();
    } else if (name_char(c)) {
      --j;
    } else if (c == '>' || c == '}') {
      const char open = c == '>' ? '<' : '{';
      int level = 0;
      size_t k = j;
      while (k > 0) {
        --k;
        if (s[k] == c) ++level;
        if (s[k] == open && --level == 0) break;
      }
      if (level != 0) return j;
      j = k;
    } else {
      break;
    }
  }
  return j;
}

// Where the return type that ends just before `end` (a space) begins: after the "<", ", " or
// "(" that opens the argument it is part of, or at the start.
size_t type_start(std::string_view s, size_t end) {
  int level = 0;
  size_t j = end;
  while (j > 0) {
    const char c = s[j - 1];
    if (c == '>' || c == ')' || c == ']') ++level;
    if (c == '<' || c == '(' || c == '[') {
      if (level == 0) return j;
      --level;
    }
    if (c == ',' && level == 0) return j < s.size() && s[j] == ' ' ? j + 1 : j;
    --j;
  }
  return 0;
}

// libc++abi prints the return type of a function template whose local entity (a lambda, a local
// class) a name holds ("void f<int>(int)::{lambda()#1}"); libiberty leaves it out. Returns the
// True, with the bytes [*from, *to) to drop, when `out` ends with such a "RET f<...>(...)" (and
// "::" follows).
bool local_return_type(std::string_view out, size_t* from, size_t* to) {
  if (out.empty() || out.back() != ')') return false;
  int level = 0;
  size_t open = out.size();
  while (open > 0) {
    --open;
    if (out[open] == ')') ++level;
    if (out[open] == '(' && --level == 0) break;
  }
  if (level != 0 || open == 0 || out[open - 1] != '>') return false;  // a template's parameters
  const size_t name = name_start(out, open);
  if (name == 0 || name == open || out[name - 1] != ' ' || out[name] == ':') return false;
  const size_t type = type_start(out, name - 1);
  if (type >= name - 1) return false;
  *from = type;  // out[type, name) is "RET "
  *to = name;
  return true;
}

}  // namespace

MangledShape mangled_shape(std::string_view mangled) {
  return ShapeScan(mangled).run();
}

std::string same_spelling(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  size_t i = 0;
  while (i < in.size()) {
    // 'lambda'(args) / 'lambdaN'(args) and 'unnamed' / 'unnamedN': libc++abi numbers from the
    // second on from 0; libiberty counts from #1.
    bool lambda = in.compare(i, 7, "'lambda") == 0;
    bool unnamed = in.compare(i, 8, "'unnamed") == 0;
    if (lambda || unnamed) {
      size_t j = i + (lambda ? 7 : 8);
      const size_t digits_at = j;
      while (j < in.size() && digit(in[j])) ++j;
      if (j < in.size() && in[j] == '\'') {
        const std::string_view n = in.substr(digits_at, j - digits_at);
        const std::string number =
            n.empty() ? "1"
                      : std::to_string(std::strtoull(std::string(n).c_str(), nullptr, 10) + 2);
        ++j;  // past the closing quote
        if (unnamed) {
          out += "{unnamed type#" + number + "}";
          i = j;
          continue;
        }
        const size_t close =
            j < in.size() && in[j] == '(' ? matching_paren(in, j) : std::string_view::npos;
        if (close != std::string_view::npos) {
          out += "{lambda";
          out += in.substr(j, close + 1 - j);
          out += "#" + number + "}";
          i = close + 1;
          continue;
        }
      }
    }
    // " vector[N]" (a GNU vector type) as libiberty writes it: " __vector(N)".
    if (in.compare(i, 8, " vector[") == 0) {
      size_t j = i + 8;
      while (j < in.size() && digit(in[j])) ++j;
      if (j > i + 8 && j < in.size() && in[j] == ']') {
        out += " __vector(";
        out += in.substr(i + 8, j - i - 8);
        out += ")";
        i = j + 1;
        continue;
      }
    }
    // "std::nullptr_t" (the type Dn; no user type has that name) as libiberty writes it.
    if (in.compare(i, 14, "std::nullptr_t") == 0) {
      out += "decltype(nullptr)";
      i += 14;
      continue;
    }
    if (in.compare(i, 2, "::") == 0) {
      size_t from = 0, to = 0;
      if (local_return_type(out, &from, &to)) out.erase(from, to - from);
    }
    // A template argument list closing right after another: libc++abi always writes "> >";
    // libiberty writes ">>" where the inner list ended with a pack (CUTLASS 3's CollectiveMma).
    constexpr std::string_view kShift = "operator>";
    if (in[i] == '>' && !out.empty() && out.back() == '>' &&
        (out.size() < kShift.size() ||
         out.compare(out.size() - kShift.size(), kShift.size(), kShift) != 0))
      out += ' ';
    out += in[i++];
  }
  return out;
}

bool demangling_refused(std::string_view mangled) {
  if (mangled.size() < 3 || mangled.substr(0, 2) != "_Z" || mangled.size() > kMaxMangledBytes)
    return true;
  const MangledShape shape = mangled_shape(mangled);
  return shape.depth > kMaxMangledDepth || shape.printed > kMaxDemangledBytes ||
         (shape.parsed && shape.printed > kMaxParsedBytes) || shape.one_sided;
}

std::string demangled_kernel_name(std::string_view mangled) {
  if (demangling_refused(mangled)) return {};
  const std::string in(mangled);
  int status = 0;
  char* out = abi::__cxa_demangle(in.c_str(), nullptr, nullptr, &status);
  std::string text = status == 0 && out ? same_spelling(out) : std::string();
  std::free(out);
  return text;
}

}  // namespace ks::nsys_sqlite
