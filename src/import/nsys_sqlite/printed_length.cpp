#include "import/nsys_sqlite/printed_length.h"

#include "import/nsys_sqlite/mangled_chars.h"

#include <algorithm>
#include <vector>

namespace ks::nsys_sqlite {

namespace {

// Bytes each construct may print beyond its parts, generous so that the bound stays a bound for
// both runtimes' spellings ("unsigned long long", "(anonymous namespace)", "{lambda(...)#12}").
constexpr double kBuiltin = 20;     // a builtin type: "unsigned __int128"
constexpr double kSeparator = 4;    // "::", ", ", "<" ... " >"
constexpr double kStdAbbrev = 80;   // Ss: "std::basic_string<char, std::char_traits<char>, ..."
constexpr double kDecoration = 24;  // "{lambda(", ")#12}", "{unnamed type#3}", "operator()"
constexpr int kMaxRecursion = 256;  // the scan refuses nesting deeper than 64 before this

class LengthParser {
 public:
  explicit LengthParser(std::string_view s) : s_(s) {}

  double run() {
    pos_ = 2;  // after "_Z"
    const double bound = encoding();
    if (!ok_ || pos_ != s_.size()) return -1;
    // A template parameter or pack expansion bounded before a longer argument list was read:
    // the bound might be short, so none is given.
    for (const Use& use : param_uses_)
      if (param_bound(use.index) > use.bound) return -1;
    if (expansions_ > 0 && longest_pack_ > longest_pack_used_) return -1;
    return bound;
  }

 private:
  struct Use {
    size_t index;
    double bound;
  };

  char peek(size_t ahead = 0) const { return pos_ + ahead < s_.size() ? s_[pos_ + ahead] : '\0'; }
  double fail() {
    ok_ = false;
    return 0;
  }
  bool expect(char c) {
    if (peek() != c) return fail(), false;
    ++pos_;
    return true;
  }
  double add(double bound) {
    subs_.push_back(bound);
    return bound;
  }
  double digits_bytes() {
    const size_t from = pos_;
    while (digit(peek())) ++pos_;
    return static_cast<double>(pos_ - from);
  }
  // Guards each recursive rule: a name nested past kMaxRecursion is not parsed.
  struct Depth {
    explicit Depth(LengthParser* p) : parser(p) {
      if (++parser->depth_ > kMaxRecursion) parser->fail();
    }
    ~Depth() { --parser->depth_; }
    LengthParser* parser;
  };

  // <encoding> ::= <name> [<bare-function-type>]: parameter (and return) types up to E or end.
  double encoding() {
    if (peek() == 'T' || peek() == 'G') return fail();  // special names: vtables, guards, ...
    Depth depth(this);
    encoding_name_ = true;
    double bound = name();
    if (peek() == 'E' || peek() == '\0') return bound;
    bound += kSeparator;
    while (ok_ && peek() != 'E' && peek() != '\0' && peek() != '.') bound += type() + kSeparator;
    return bound;
  }

  // <name>: nested, local, or an unscoped (template) name.
  double name() {
    Depth depth(this);
    const bool own = encoding_name_;  // an encoding's name: its arguments are what T_ names
    encoding_name_ = false;
    const char c = peek();
    if (c == 'N') return nested_name(own);
    if (c == 'Z') return local_name();
    double bound;
    if (c == 'S' && peek(1) != 't') {  // a substitution or std abbreviation: not a new candidate
      bound = substitution();
      if (peek() == 'I') bound += template_args(own);
      return bound;
    }
    if (c == 'S') {  // St <unqualified-name>: std::name
      pos_ += 2;
      bound = 5 + unqualified_name(0);
    } else {
      bound = unqualified_name(0);
    }
    if (peek() == 'I') bound = add(bound) + template_args(own);  // <unscoped-template-name>
    return bound;
  }

  // N [<CV-qualifiers>] [<ref-qualifier>] <prefix components> E: each prefix but the last, and
  // but one ending in a substitution, is a candidate.
  double nested_name(bool own) {
    Depth depth(this);
    ++pos_;
    double bound = 0;
    while (peek() == 'r' || peek() == 'V' || peek() == 'K') ++pos_, bound += 9;
    if (peek() == 'R' || peek() == 'O') ++pos_, bound += 3;
    bool first = true;
    while (ok_) {
      const char c = peek();
      if (c == 'E') {
        ++pos_;
        return first ? fail() : bound;
      }
      if (c == 'I') {
        if (first) return fail();
        bound += template_args(own);
      } else if (c == 'S') {
        bound += substitution() + kSeparator;
      } else if (c == 'T') {
        bound += template_param() + kSeparator;
      } else if (c == 'D' && (peek(1) == 't' || peek(1) == 'T')) {
        bound += decltype_type() + kSeparator;
      } else {
        bound += unqualified_name(bound) + kSeparator;
      }
      first = false;
      if (c != 'S' && peek() != 'E') add(bound);
    }
    return 0;
  }

  // Z <function encoding> E <entity name> [<discriminator>], or Z <encoding> E s (a string).
  double local_name() {
    Depth depth(this);
    ++pos_;
    double bound = encoding() + kSeparator;
    if (!expect('E')) return 0;
    if (peek() == 's') {
      ++pos_;
      bound += kDecoration;
    } else if (peek() == 'd') {
      return fail();  // a default argument's scope
    } else {
      bound += name();
    }
    if (peek() == '_') {  // _ <digit> or __ <number> _
      ++pos_;
      if (peek() == '_') {
        ++pos_;
        digits_bytes();
        expect('_');
      } else {
        digits_bytes();
      }
    }
    return bound;
  }

  // A source name, operator, constructor or destructor (printed as its class, `owner`), a
  // lambda or an unnamed type, with its ABI tags.
  double unqualified_name(double owner) {
    Depth depth(this);
    const char c = peek(), d = peek(1);
    double bound = 0;
    if (digit(c)) {
      bound = source_name();
    } else if (c == 'C' && digit(d)) {
      pos_ += 2;
      bound = owner;
    } else if (c == 'D' && digit(d)) {
      pos_ += 2;
      bound = owner + 1;
    } else if (c == 'U' && d == 'l') {
      bound = lambda();
    } else if (c == 'U' && d == 't') {
      pos_ += 2;
      bound = kDecoration + digits_bytes();
      if (!expect('_')) return 0;
      add(bound);
    } else if (c == 'L' && digit(d)) {  // an internal-linkage name
      ++pos_;
      bound = source_name();
    } else if (c == 'c' && d == 'v') {  // a conversion operator: operator <type>
      pos_ += 2;
      bound = kDecoration + type();
    } else if (c == 'l' && d == 'i') {  // a literal operator: operator"" <source-name>
      pos_ += 2;
      bound = kDecoration + source_name();
    } else if (lower(c) && lower(d)) {
      pos_ += 2;
      bound = kDecoration;
    } else {
      return fail();
    }
    while (ok_ && peek() == 'B') {  // [abi:tag]
      ++pos_;
      bound += source_name() + 7;
    }
    return bound;
  }

  double source_name() {
    size_t len = 0;
    const size_t from = pos_;
    while (digit(peek()) && len <= s_.size())
      len = len * 10 + static_cast<size_t>(peek() - '0'), ++pos_;
    if (pos_ == from || len == 0 || len > s_.size() - pos_) return fail();
    pos_ += len;
    return static_cast<double>(len);
  }

  // Ul <parameter types> E [<number>] _: a candidate itself (libiberty's d_lambda adds it).
  double lambda() {
    Depth depth(this);
    pos_ += 2;
    double bound = kDecoration;
    while (ok_ && peek() != 'E' && peek() != '\0') {
      if (peek() == 'T' && !digit(peek(1)) && peek(1) != '_') return fail();  // Ty, Tn, ...
      bound += type() + kSeparator;
    }
    if (!expect('E')) return 0;
    bound += digits_bytes();
    if (!expect('_')) return 0;
    return add(bound);
  }

  // S_, S<seq>_ (entry seq + 1, base 36), or a std abbreviation (St, Sa, Sb, Ss, Si, So, Sd).
  double substitution() {
    ++pos_;
    const char c = peek();
    if (lower(c)) {
      ++pos_;
      if (c == 't') return 3;
      if (c == 'a' || c == 'b' || c == 's' || c == 'i' || c == 'o' || c == 'd') return kStdAbbrev;
      return fail();
    }
    size_t index = 0;
    if (c != '_') {
      size_t seq = 0;
      while (digit(peek()) || upper(peek())) {
        seq = seq * 36 + static_cast<size_t>(digit(peek()) ? peek() - '0' : peek() - 'A' + 10);
        if (seq > s_.size()) return fail();
        ++pos_;
      }
      index = seq + 1;
    }
    if (!expect('_')) return 0;
    if (index >= subs_.size()) return fail();
    return subs_[index];
  }

  // T_ (argument 0), T<n>_ (argument n + 1): an argument of the template whose encoding holds
  // it, bounded by the longest such argument of the encodings' argument lists read so far (a
  // local entity's encoding has its own).
  double template_param() {
    ++pos_;
    size_t index = 0;
    if (peek() != '_') {
      size_t n = 0;
      if (!digit(peek())) return fail();
      while (digit(peek())) {
        n = n * 10 + static_cast<size_t>(peek() - '0');
        if (n > s_.size()) return fail();
        ++pos_;
      }
      index = n + 1;
    }
    if (!expect('_')) return 0;
    const double bound = param_bound(index);
    if (bound < 0) return fail();
    param_uses_.push_back({index, bound});
    return bound;
  }
  double param_bound(size_t index) const {
    double bound = -1;
    for (const std::vector<double>& list : arg_lists_)
      if (index < list.size()) bound = std::max(bound, list[index]);
    return bound;
  }

  // I <template-arg>+ E; each argument a type, a literal (L), an expression (X) or a pack (J).
  double template_args(bool own = false) {
    Depth depth(this);
    ++pos_;
    std::vector<double> args;
    double bound = kSeparator;
    while (ok_ && peek() != 'E' && peek() != '\0') {
      const double arg = template_arg();
      args.push_back(arg);
      bound += arg + kSeparator;
    }
    if (!expect('E')) return 0;
    if (own) arg_lists_.push_back(std::move(args));
    return bound;
  }
  double template_arg() {
    Depth depth(this);
    const char c = peek();
    if (c == 'L') return literal();
    if (c == 'X') {
      ++pos_;
      const double bound = expression();
      expect('E');
      return bound;
    }
    if (c == 'J') {
      ++pos_;
      double bound = 0;
      size_t elements = 0;
      while (ok_ && peek() != 'E' && peek() != '\0')
        bound += template_arg() + kSeparator, ++elements;
      expect('E');
      longest_pack_ = std::max(longest_pack_, elements);
      return bound;
    }
    return type();
  }

  // L <type> <value> E, or L _Z <encoding> E: the type's candidates count (an enum's name).
  double literal() {
    Depth depth(this);
    ++pos_;
    double bound = kDecoration;
    if (peek() == '_' && peek(1) == 'Z') {
      pos_ += 2;
      bound += encoding();
    } else {
      bound += type();
      const size_t from = pos_;
      while (peek() != 'E' && peek() != '\0') ++pos_;
      bound += 2.0 * static_cast<double>(pos_ - from);  // a float's hex as 0x1.8p+1
    }
    expect('E');
    return bound;
  }

  // The expressions of template arguments kernels use (enable_if<!T8_>, sizeof, arithmetic on
  // template parameters and literals); any other is not parsed.
  double expression() {
    Depth depth(this);
    const char c = peek(), d = peek(1);
    if (c == 'T') return template_param();
    if (c == 'L') return literal();
    if (c == 's' && d == 't') {
      pos_ += 2;
      return kDecoration + type();
    }
    if (c == 's' && d == 'z') {
      pos_ += 2;
      return kDecoration + expression();
    }
    static constexpr std::string_view kUnary[] = {"nt", "ng", "ps", "co", "ad", "de"};
    static constexpr std::string_view kBinary[] = {"pl", "mi", "ml", "dv", "rm", "an",
                                                   "or", "eo", "ls", "rs", "lt", "gt",
                                                   "le", "ge", "eq", "ne", "aa", "oo"};
    const std::string_view op = s_.substr(pos_, 2);
    int operands = 0;
    for (std::string_view u : kUnary)
      if (op == u) operands = 1;
    for (std::string_view b : kBinary)
      if (op == b) operands = 2;
    if (op == "qu") operands = 3;
    if (operands == 0) return fail();
    pos_ += 2;
    double bound = kDecoration;
    for (int k = 0; k < operands && ok_; ++k) bound += expression() + kSeparator;
    return bound;
  }

  // Dt <expression> E / DT <expression> E: decltype, a candidate.
  double decltype_type() {
    pos_ += 2;
    const double bound = kDecoration + expression();
    if (!expect('E')) return 0;
    return add(bound);
  }

  double type() {
    Depth depth(this);
    if (!ok_) return 0;
    const char c = peek(), d = peek(1);
    if (lower(c) && c != 'u') {
      ++pos_;
      return kBuiltin;
    }
    switch (c) {
      case 'u':  // a vendor extended type
        ++pos_;
        return add(source_name());
      case 'r':
      case 'V':
      case 'K': {
        double bound = 0;
        while (peek() == 'r' || peek() == 'V' || peek() == 'K') ++pos_, bound += 9;
        if (peek() == 'F') return fail();  // a cv-qualified function type
        return add(bound + type());
      }
      case 'P':
      case 'R':
      case 'O':
        ++pos_;
        return add(type() + 3);
      case 'C':
      case 'G':  // complex, imaginary: " _Complex", " _Imaginary" (11 bytes; it was 10, and a
        ++pos_;  // run of G under-counted a byte each: 66 printed 723 bytes under a bound of 701)
        return add(type() + 11);
      case 'F':
        return function_type();
      case 'A': {  // A <dimension> _ <element type>
        ++pos_;
        const double dimension = digits_bytes();
        if (!expect('_')) return 0;
        return add(type() + dimension + kSeparator);
      }
      case 'M': {  // a pointer to member: M <class type> <member type>
        ++pos_;
        const double owner = type();
        return add(owner + type() + kSeparator);
      }
      case 'T': {
        if (d != '_' && !digit(d)) return fail();
        double bound = template_param();
        if (peek() == 'I') bound = add(bound) + template_args();  // a template template param
        return add(bound);
      }
      case 'S': {
        if (d == '_' || digit(d) || upper(d)) {
          double bound = substitution();
          if (peek() != 'I') return bound;  // the entry itself: no new candidate
          return add(bound + template_args());
        }
        const bool plain_abbrev = d != 't' && pos_ + 2 < s_.size() && s_[pos_ + 2] != 'I';
        const double bound = name();
        return plain_abbrev ? bound : add(bound);
      }
      case 'N':
      case 'Z':
        return add(name());
      case 'D':
        return d_type(d);
      default:
        if (digit(c)) return add(name());
        return fail();
    }
  }

  // The types that start with D: pack expansions, decltype, vectors and builtins.
  double d_type(char d) {
    switch (d) {
      case 'p': {  // its pattern printed once per element of the pack it expands
        pos_ += 2;
        const double pattern = type();
        longest_pack_used_ =
            expansions_++ == 0 ? longest_pack_ : std::min(longest_pack_used_, longest_pack_);
        return add(pattern * (1.0 + static_cast<double>(longest_pack_)));
      }
      case 't':
      case 'T':
        return decltype_type();
      case 'v': {  // Dv <dimension> _ <element type>
        pos_ += 2;
        const double dimension = digits_bytes();
        if (!expect('_')) return 0;
        return add(type() + dimension + kDecoration);
      }
      case 'a':  // auto
      case 'c':  // decltype(auto)
      case 'n':  // decltype(nullptr)
      case 'h':
      case 'i':
      case 's':
      case 'u':
      case 'd':
      case 'e':
      case 'f':
        pos_ += 2;
        return kBuiltin;
      default:  // DF (one runtime only), DB/DU bit-ints, Dx/Do/Dw function qualifiers
        return fail();
    }
  }

  // F [Y] <return type> <parameter types> [<ref-qualifier>] E: a candidate.
  double function_type() {
    Depth depth(this);
    ++pos_;
    if (peek() == 'Y') ++pos_;
    double bound = kDecoration;
    while (ok_ && peek() != 'E' && peek() != '\0') {
      if ((peek() == 'R' || peek() == 'O') && peek(1) == 'E') {
        ++pos_;
        bound += 3;
        continue;
      }
      bound += type() + kSeparator;
    }
    if (!expect('E')) return 0;
    return add(bound);
  }

  std::string_view s_;
  size_t pos_ = 0;
  bool ok_ = true;
  int depth_ = 0;
  bool encoding_name_ = false;                  // the next name() read is an encoding's
  std::vector<double> subs_;                    // the substitution table's bounds, in order
  std::vector<std::vector<double>> arg_lists_;  // the encodings' template argument lists
  std::vector<Use> param_uses_;
  size_t longest_pack_ = 0, longest_pack_used_ = 0;
  int expansions_ = 0;
};

}  // namespace

double printed_length_bound(std::string_view mangled) {
  if (mangled.size() < 3 || mangled.substr(0, 2) != "_Z") return -1;
  return LengthParser(mangled).run();
}

}  // namespace ks::nsys_sqlite
