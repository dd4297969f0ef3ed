// A small regular-expression engine for filters and command-line options
// (--probe_dump_op_re and friends): the ECMAScript subset described in regex_compile.hpp,
// matched by a Pike VM. Work is bounded by pattern size times input length whatever the
// pattern (no backtracking, no recursion while matching), so hostile patterns such as
// (a*)*b cannot blow the stack or take exponential time.
//
//   probe::detail::regex re;
//   std::string err;
//   if (!re.compile("conv[0-9]+|relu", &err)) log(err);   // "bad regex 'x(': missing ')' at 2"
//   re.search("block1/conv12")        -> true   (somewhere in the text, like XLA's dump filters)
//   re.full_match("conv12")           -> true   (the whole text)
//
// Compile once, match many times: plain-string patterns use memchr and memcmp; a yes/no match of a
// small pattern runs on bit sets (one bit per NFA state, closures precomputed); others run
// the Pike VM, skipping ahead to bytes a match can start with.
// A compiled regex is immutable and can be shared between threads; copies share it.
#pragma once
#include <stddef.h>

#include <memory>
#include <string>
#include <vector>

#include "config.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Where a capture group matched: bytes [begin, end) of the subject; -1 when it took no part.
struct regex_span {
  ptrdiff_t begin = -1;
  ptrdiff_t end = -1;
  bool matched() const noexcept { return begin >= 0; }
};

namespace regex_impl {
struct program;
}

class regex {
 public:
  // Where a match and its groups lie; [0] is the whole match.
  using span_vector = std::vector<regex_span>;

  // An empty pattern: matches everywhere.
  PROBE_API regex();

  // Compiles `pattern`. On error returns false, sets *error (when given) to a message such as
  // "bad regex 'x(': missing ')' at 2", and the regex then matches nothing.
  PROBE_API bool compile(const char* pattern, size_t len, std::string* error = nullptr);
  bool compile(const std::string& pattern, std::string* error = nullptr) {
    return compile(pattern.data(), pattern.size(), error);
  }

  bool valid() const noexcept { return valid_; }
  const std::string& pattern() const noexcept { return pattern_; }
  // Capture groups, not counting the whole match (group 0).
  int groups() const noexcept { return groups_; }

  // Whether the pattern matches somewhere in s (a partial match).
  bool search(const char* s, size_t n) const { return run(s, n, false, nullptr); }
  bool search(const std::string& s) const { return search(s.data(), s.size()); }
  // The same, with the leftmost match's groups: groups[0] is the whole match.
  bool search(const char* s, size_t n, span_vector& groups) const { return run(s, n, false, &groups); }

  // Whether the pattern matches all of s.
  bool full_match(const char* s, size_t n) const { return run(s, n, true, nullptr); }
  bool full_match(const std::string& s) const { return full_match(s.data(), s.size()); }
  bool full_match(const char* s, size_t n, span_vector& groups) const { return run(s, n, true, &groups); }

 private:
  PROBE_API bool run(const char* s, size_t n, bool full, span_vector* groups) const;
  bool run_literal(const char* s, size_t n, bool full, span_vector* groups) const;

  std::string pattern_;
  std::shared_ptr<const regex_impl::program> prog_;
  int groups_ = 0;
  bool valid_ = false;
};

}  // namespace detail
PROBE_END_NAMESPACE
