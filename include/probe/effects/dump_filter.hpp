// Which steps the dump selects: --probe_dump_steps (ranges of probe::step values) and
// --probe_dump_every. Internal header.
#pragma once
#include <stdint.h>
#include <stdlib.h>

#include <vector>

#include "../util/log.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Steps [lo, hi): Python's slice convention, "a:b" keeps a..b-1; "a" keeps a alone; "a:"
// keeps a and every later step; ":b" every step before b.
struct step_range {
  int64_t lo = INT64_MIN, hi = INT64_MAX;
};

// "0:2,1000,5000:" -> [0,2) [1000,1001) [5000,inf). Malformed text: one message and *bad set:
// a filter that cannot be read selects nothing (a dump is never wider than asked).
inline std::vector<step_range> parse_step_ranges(const char* text, const char* flag, bool* bad) {
  std::vector<step_range> out;
  *bad = false;
  if (!text || !*text) return out;
  const char* p = text;
  auto number = [&](int64_t* v) {
    char* end = nullptr;
    const long long x = strtoll(p, &end, 10);
    if (end == p) return false;
    *v = x;
    p = end;
    return true;
  };
  for (;;) {
    step_range r;
    int64_t a = 0;
    const bool has_lo = number(&a);
    if (has_lo) r.lo = a;
    if (*p == ':') {
      ++p;
      int64_t b = 0;
      if (number(&b)) r.hi = b;
    } else if (has_lo) {
      r.hi = a == INT64_MAX ? a : a + 1;
    } else {
      break;  // neither a number nor ':'
    }
    out.push_back(r);
    if (*p == '\0') return out;
    if (*p != ',') break;
    ++p;
  }
  log("%s=%s: expected ranges like '0:2,1000,5000:' (a:b keeps steps a..b-1); nothing is dumped", flag, text);
  *bad = true;
  return {};
}

inline bool step_in(const std::vector<step_range>& ranges, int64_t step) noexcept {
  if (ranges.empty()) return true;
  for (const step_range& r : ranges)
    if (step >= r.lo && step < r.hi) return true;
  return false;
}

// --probe_dump_every=N keeps steps that are multiples of N (negative steps too).
inline bool step_every(int64_t every, int64_t step) noexcept { return every <= 1 || step % every == 0; }

}  // namespace detail
PROBE_END_NAMESPACE
