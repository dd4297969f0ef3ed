// The regex parser: the ECMAScript subset users type in filters, read into a syntax tree
// (regex_compile.hpp turns it into a program for the matcher in regex.hpp). Also the
// program's instruction set.
//
// Supported: literals, '.', classes [..] and [^..] with ranges and escapes, \d \w \s \D \W \S,
// \b \B, ^ $, escapes (\n \t \r \f \v \0 \xHH \uHHHH \cX and punctuation), groups ( ) and
// (?: ), alternation |, quantifiers * + ? {m} {m,} {m,n} and their lazy forms. Not supported
// (a compile error says so): backreferences, lookaround, named groups. Matching is on bytes:
// '.' is one byte, \uHHHH outside a class is its UTF-8 bytes.
#pragma once
#include <stdint.h>
#include <string.h>

#include <string>
#include <utility>
#include <vector>

#include "config.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {
namespace regex_impl {

// A set of bytes.
struct byte_set {
  uint64_t w[4] = {0, 0, 0, 0};
  void add(unsigned c) noexcept { w[c >> 6] |= uint64_t(1) << (c & 63); }
  void add_range(unsigned lo, unsigned hi) noexcept {
    for (unsigned c = lo; c <= hi; ++c) add(c);
  }
  void add(const byte_set& o) noexcept {
    for (int i = 0; i < 4; ++i) w[i] |= o.w[i];
  }
  void invert() noexcept {
    for (auto& x : w) x = ~x;
  }
  bool has(unsigned c) const noexcept { return (w[c >> 6] >> (c & 63)) & 1; }
  bool full() const noexcept { return (w[0] & w[1] & w[2] & w[3]) == ~uint64_t(0); }
};

inline bool is_word_byte(unsigned c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// \d \w \s and their complements.
inline byte_set class_escape(char e) noexcept {
  byte_set s;
  switch (e | 0x20) {
    case 'd': s.add_range('0', '9'); break;
    case 'w':
      for (unsigned c = 0; c < 256; ++c)
        if (is_word_byte(c)) s.add(c);
      break;
    default:  // 's'
      s.add(' '); s.add('\t'); s.add('\n'); s.add('\v'); s.add('\f'); s.add('\r');
      break;
  }
  if (e >= 'A' && e <= 'Z') s.invert();
  return s;
}

enum class op : uint8_t {
  byte,         // match byte `c`
  any,          // any byte but \n and \r
  set,          // a byte in sets[arg]
  split,        // continue at x (preferred) and at y
  jump,         // continue at x
  save,         // record the position in capture slot arg
  reset,        // forget capture slots [arg, arg + x): a loop iteration starts afresh
  loop_enter,   // an optional iteration of a loop begins: note the position in loop slot arg
  loop_check,   // it ends: fail when it consumed nothing (the position is still slot arg's)
  line_begin,   // ^
  line_end,     // $
  word_edge,    // \b
  not_word_edge,// \B
  match,
};

struct inst {
  explicit inst(op o, unsigned char byte = 0) : code(o), c(byte) {}
  op code;
  unsigned char c;
  int x = 0, y = 0, arg = 0;
};

struct program {
  std::vector<inst> code;
  std::vector<byte_set> sets;
  int groups = 0;              // capture groups, not counting the whole match
  int loop_slots = 0;          // positions loop_enter keeps, after the capture slots

  // The loops whose optional iterations may match empty and that enclose each instruction,
  // outermost first: loop_chain[chain_at[pc], chain_at[pc + 1]) (loop slots). Matching with
  // captures tells threads at one instruction apart by how many of them began their current
  // iteration at the current position: state_base[pc] + that count's complement is the
  // thread's state, state_base[code.size()] the number of states.
  std::vector<int> loop_chain;
  std::vector<int> chain_at;
  std::vector<int> state_base;
  std::string literal;         // the whole pattern when it is a plain string
  bool is_literal = false;
  bool anchored = false;       // every match starts at position 0
  bool can_be_empty = true;    // a match may be empty
  byte_set first;              // bytes a non-empty match can start with

  // Boolean matching on bit sets, for programs with at most 63 instructions that wait on
  // input (plus the match): each state is one bit; the epsilon closures are precomputed for
  // the 16 contexts that decide the assertions (at start, at end, word byte before, after).
  bool bits = false;
  int states = 0;
  uint64_t accept[256] = {};        // states that consume each byte
  uint64_t match_state = 0;         // the match instruction's bit
  uint64_t start[16] = {};          // states where a match begins, per context
  std::vector<uint64_t> follow;     // [ctx * states + i]: states after state i consumed a byte
};

// Context bits of a position for the assertions.
enum : unsigned { ctx_start = 1, ctx_end = 2, ctx_word_before = 4, ctx_word_after = 8 };

enum class node_kind : uint8_t { empty, byte, any, set, group, concat, alt, repeat, assertion };

struct node {
  explicit node(node_kind k) : kind(k) {}
  node_kind kind;
  unsigned char c = 0;
  int set = -1;                 // set: index into program::sets
  int group = -1;               // group: capture index (1-based), -1 for (?: )
  int min = 0, max = 0;         // repeat: max < 0 is unbounded
  bool greedy = true;
  op assert_op = op::line_begin;
  std::vector<int> kids;
};

constexpr int max_nesting = 250;
constexpr int max_program = 50000;
constexpr int max_count = 1000;
constexpr size_t max_capture_cells = size_t(1) << 21;  // states x capture slots: 16 MiB a list

class parser {
 public:
  parser(const char* p, size_t n, program& prog) : p_(p), n_(n), prog_(prog) {}

  // Returns the root node, or -1 with error() set.
  int parse() {
    const int root = disjunction(0);
    if (root >= 0 && i_ < n_) fail(p_[i_] == ')' ? "unmatched ')'" : "unexpected character", i_);
    return err_.empty() ? root : -1;
  }
  const std::string& error() const { return err_; }
  size_t error_pos() const { return err_pos_; }
  std::vector<node> nodes;

 private:
  int add(node n) {
    nodes.push_back(std::move(n));
    return static_cast<int>(nodes.size()) - 1;
  }
  int fail(const char* what, size_t at) {
    if (err_.empty()) {
      err_ = what;
      err_pos_ = at;
    }
    return -1;
  }
  bool more() const { return i_ < n_; }
  char peek() const { return p_[i_]; }

  int disjunction(int depth) {
    if (depth > max_nesting) return fail("groups nested too deeply", i_);
    const int first = alternative(depth);
    if (first < 0 || !more() || peek() != '|') return first;
    node alt{node_kind::alt};
    alt.kids.push_back(first);
    while (more() && peek() == '|') {
      ++i_;
      const int next = alternative(depth);
      if (next < 0) return -1;
      alt.kids.push_back(next);
    }
    return add(std::move(alt));
  }

  int alternative(int depth) {
    node seq{node_kind::concat};
    while (more() && peek() != '|' && peek() != ')') {
      const int t = term(depth);
      if (t < 0) return -1;
      seq.kids.push_back(t);
    }
    if (seq.kids.size() == 1) return seq.kids[0];
    if (seq.kids.empty()) return add(node{node_kind::empty});
    return add(std::move(seq));
  }

  int term(int depth) {
    const size_t start = i_;
    const char c = peek();
    if (c == '^' || c == '$') {
      ++i_;
      node a{node_kind::assertion};
      a.assert_op = c == '^' ? op::line_begin : op::line_end;
      return no_quantifier(add(std::move(a)));
    }
    if (c == '\\' && i_ + 1 < n_ && (p_[i_ + 1] == 'b' || p_[i_ + 1] == 'B')) {
      i_ += 2;
      node a{node_kind::assertion};
      a.assert_op = p_[start + 1] == 'b' ? op::word_edge : op::not_word_edge;
      return no_quantifier(add(std::move(a)));
    }
    if (c == '*' || c == '+' || c == '?') return fail("nothing to repeat", i_);
    if (c == '{' && quantifier_ahead()) return fail("nothing to repeat", i_);
    const int a = atom(depth);
    if (a < 0) return -1;
    return quantified(a);
  }

  int no_quantifier(int a) {
    if (more() && (peek() == '*' || peek() == '+' || peek() == '?' || (peek() == '{' && quantifier_ahead())))
      return fail("nothing to repeat", i_);
    return a;
  }

  // Whether "{m}", "{m,}" or "{m,n}" starts at i_.
  bool quantifier_ahead() const {
    size_t j = i_ + 1;
    if (j >= n_ || p_[j] < '0' || p_[j] > '9') return false;
    while (j < n_ && p_[j] >= '0' && p_[j] <= '9') ++j;
    if (j < n_ && p_[j] == ',') {
      ++j;
      while (j < n_ && p_[j] >= '0' && p_[j] <= '9') ++j;
    }
    return j < n_ && p_[j] == '}';
  }

  int number() {
    long v = 0;
    while (more() && peek() >= '0' && peek() <= '9') {
      v = v * 10 + (peek() - '0');
      if (v > 1000000) v = 1000000;
      ++i_;
    }
    return static_cast<int>(v);
  }

  int quantified(int a) {
    if (!more()) return a;
    const size_t at = i_;
    int lo, hi;
    const char c = peek();
    if (c == '*') {
      lo = 0, hi = -1, ++i_;
    } else if (c == '+') {
      lo = 1, hi = -1, ++i_;
    } else if (c == '?') {
      lo = 0, hi = 1, ++i_;
    } else if (c == '{') {
      if (!quantifier_ahead()) return fail("bad quantifier (write \\{ for a brace)", at);
      ++i_;
      lo = number();
      hi = lo;
      if (peek() == ',') {
        ++i_;
        hi = more() && peek() != '}' ? number() : -1;
      }
      ++i_;  // '}'
      if (hi >= 0 && hi < lo) return fail("repetition counts out of order", at);
      if (lo > max_count || hi > max_count) return fail("repetition count over 1000", at);
    } else {
      return a;
    }
    node r{node_kind::repeat};
    r.min = lo;
    r.max = hi;
    if (more() && peek() == '?') {
      r.greedy = false;
      ++i_;
    }
    r.kids.push_back(a);
    const int q = add(std::move(r));
    return no_quantifier(q);
  }

  int atom(int depth) {
    const char c = peek();
    if (c == '.') {
      ++i_;
      return add(node{node_kind::any});
    }
    if (c == '(') return group(depth);
    if (c == '[') return char_class();
    if (c == '\\') return escape_atom();
    ++i_;
    node b{node_kind::byte};
    b.c = static_cast<unsigned char>(c);
    return add(std::move(b));
  }

  int group(int depth) {
    const size_t open = i_;
    ++i_;
    int index = -1;
    if (more() && peek() == '?') {
      if (i_ + 1 < n_ && p_[i_ + 1] == ':') {
        i_ += 2;
      } else if (i_ + 1 < n_ && (p_[i_ + 1] == '=' || p_[i_ + 1] == '!' || p_[i_ + 1] == '<')) {
        return fail(p_[i_ + 1] == '<' && i_ + 2 < n_ && p_[i_ + 2] != '=' && p_[i_ + 2] != '!'
                        ? "named groups are not supported"
                        : "lookaround is not supported",
                    open);
      } else {
        return fail("bad group syntax after '(?'", open);
      }
    } else {
      index = ++prog_.groups;
    }
    const int inner = disjunction(depth + 1);
    if (inner < 0) return -1;
    if (!more() || peek() != ')') return fail("missing ')'", i_);
    ++i_;
    node g{node_kind::group};
    g.group = index;
    g.kids.push_back(inner);
    return add(std::move(g));
  }

  static int hex_value(char h) {
    if (h >= '0' && h <= '9') return h - '0';
    if (h >= 'a' && h <= 'f') return h - 'a' + 10;
    if (h >= 'A' && h <= 'F') return h - 'A' + 10;
    return -1;
  }

  // A character escape after '\' at i_ (i_ at the letter): the code point, or -1 on error.
  long char_escape(bool in_class) {
    const size_t at = i_ - 1;
    const char e = p_[i_++];
    switch (e) {
      case 'n': return '\n';
      case 't': return '\t';
      case 'r': return '\r';
      case 'f': return '\f';
      case 'v': return '\v';
      case 'b':
        if (in_class) return '\b';
        break;
      case '0':
        if (!more() || peek() < '0' || peek() > '9') return 0;
        return fail("backreferences and octal escapes are not supported", at);
      case 'x':
      case 'u': {
        const int digits = e == 'x' ? 2 : 4;
        long v = 0;
        for (int k = 0; k < digits; ++k) {
          const int h = i_ < n_ ? hex_value(p_[i_]) : -1;
          if (h < 0) return fail(e == 'x' ? "\\x needs two hex digits" : "\\u needs four hex digits", at);
          v = v * 16 + h;
          ++i_;
        }
        return v;
      }
      case 'c':
        if (more() && ((peek() >= 'a' && peek() <= 'z') || (peek() >= 'A' && peek() <= 'Z'))) return p_[i_++] % 32;
        return fail("\\c needs a letter", at);
      default: break;
    }
    if (e >= '1' && e <= '9') return fail("backreferences are not supported", at);
    if ((e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9') || e == '_')
      return fail("unknown escape", at);
    return static_cast<unsigned char>(e);  // punctuation stands for itself
  }

  int escape_atom() {
    const size_t at = i_;
    ++i_;
    if (!more()) return fail("trailing backslash", at);
    const char e = peek();
    if (e == 'd' || e == 'D' || e == 'w' || e == 'W' || e == 's' || e == 'S') {
      ++i_;
      return set_node(class_escape(e));
    }
    const long v = char_escape(false);
    if (v < 0) return -1;
    if (v < 0x80) {
      node b{node_kind::byte};
      b.c = static_cast<unsigned char>(v);
      return add(std::move(b));
    }
    // A code point past ASCII: its UTF-8 bytes in sequence.
    unsigned char u[3];
    int k = 0;
    if (v < 0x800) {
      u[k++] = static_cast<unsigned char>(0xC0 | (v >> 6));
    } else {
      u[k++] = static_cast<unsigned char>(0xE0 | (v >> 12));
      u[k++] = static_cast<unsigned char>(0x80 | ((v >> 6) & 0x3F));
    }
    u[k++] = static_cast<unsigned char>(0x80 | (v & 0x3F));
    node seq{node_kind::concat};
    for (int j = 0; j < k; ++j) {
      node b{node_kind::byte};
      b.c = u[j];
      seq.kids.push_back(add(std::move(b)));
    }
    // A quantifier applies to the whole character.
    node g{node_kind::group};
    g.kids.push_back(add(std::move(seq)));
    return add(std::move(g));
  }

  int set_node(const byte_set& s) {
    prog_.sets.push_back(s);
    node n{node_kind::set};
    n.set = static_cast<int>(prog_.sets.size()) - 1;
    return add(std::move(n));
  }

  // One class member at i_: a byte (returned), or a class escape (added to `s`, returns -2).
  long class_atom(byte_set& s) {
    if (peek() != '\\') return static_cast<unsigned char>(p_[i_++]);
    const size_t at = i_;
    ++i_;
    if (!more()) return fail("trailing backslash", at);
    const char e = peek();
    if (e == 'd' || e == 'D' || e == 'w' || e == 'W' || e == 's' || e == 'S') {
      ++i_;
      s.add(class_escape(e));
      return -2;
    }
    const long v = char_escape(true);
    if (v >= 0x80) return fail("only ASCII escapes inside [...]", at);
    return v;
  }

  int char_class() {
    const size_t open = i_;
    ++i_;
    bool negate = false;
    if (more() && peek() == '^') {
      negate = true;
      ++i_;
    }
    byte_set s;
    while (more() && peek() != ']') {
      const size_t at = i_;
      const long lo = class_atom(s);
      if (lo == -1) return -1;
      if (lo >= 0 && i_ + 1 < n_ && peek() == '-' && p_[i_ + 1] != ']') {
        ++i_;
        const long hi = class_atom(s);
        if (hi == -1) return -1;
        if (hi == -2) return fail("bad range: a class escape cannot end a range", at);
        if (hi < lo) return fail("bad range: out of order", at);
        s.add_range(static_cast<unsigned>(lo), static_cast<unsigned>(hi));
      } else if (lo >= 0) {
        s.add(static_cast<unsigned>(lo));
      }
    }
    if (!more()) return fail("missing ']'", open);
    ++i_;
    if (negate) s.invert();
    return set_node(s);
  }

  const char* p_;
  size_t n_;
  size_t i_ = 0;
  program& prog_;
  std::string err_;
  size_t err_pos_ = 0;
};

}  // namespace regex_impl
}  // namespace detail
PROBE_END_NAMESPACE
