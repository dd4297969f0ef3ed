// When a breakpoint stops, and what a scripted stop runs. Internal header.
//
// --probe_break_if='op=L1\..* && step>=3 || hit==10': a condition over the innermost op's
// name and type (probe regexes, partial match), the step and the location's hit count.
// --probe_breakpoint_commands=FILE: blocks of prompt commands, each under an '@' header that
// says which stops run it; lines before the first header run at every stop:
//
//   w                      every stop: list the frames
//   @ model.cpp:42         stops at that line (the file matches the end of the path)
//   p y[0]
//   @ forward hit 3        the 3rd arrival at a breakpoint in forward(), or inside op 'forward'
//   stats y
#pragma once
#include <stdint.h>

#include <string>
#include <vector>

#include "../util/regex.hpp"
#include "breakpoint_frames.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

enum class when_subject : uint8_t { op, type, step, hit };
enum class when_compare : uint8_t { eq, ne, lt, le, gt, ge };

struct when_term {
  when_subject subject = when_subject::step;
  when_compare compare = when_compare::eq;  // op and type: eq (matches) or ne (does not)
  regex re;
  int64_t value = 0;
};

// Terms joined by '&&' in groups joined by '||' ('&&' binds tighter); no groups: always true.
struct when_condition {
  std::vector<std::vector<when_term>> any;
  bool never = false;  // the text did not parse: breakpoints do not stop
  std::string text;
};

// What a condition looks at, at one arrival.
struct when_facts {
  const char* op = nullptr;    // innermost op on the thread (nullptr: none)
  const char* type = nullptr;
  int64_t step = 0;
  uint64_t hit = 0;
};

// Parses `text`; on error false and *err says where ("expected a number after 'step>=' at 9").
PROBE_API bool parse_when(const std::string& text, when_condition* out, std::string* err);

PROBE_API bool when_holds(const when_condition& c, const when_facts& f);

// One block of a commands file.
struct command_block {
  bool header = false;     // false: the lines before the first '@' (every stop)
  std::string file;        // "@ model.cpp:42": matches a path ending in "/model.cpp" or equal to it
  int line = 0;
  std::vector<std::string> names;  // "@ forward": the breakpoint's function, or an enclosing op's name (each)
  uint64_t hit = 0;        // "@ hit 3": the stop's hit count
  std::vector<std::string> lines;
};

// Splits a commands file into blocks. Blank lines and lines starting with '#' are skipped; in
// a header, a word starting with '#' begins a comment. A header's words must all match a stop.
// False (with *err naming the line) for a header it cannot read.
PROBE_API bool parse_command_blocks(const std::string& text, std::vector<command_block>* out, std::string* err);

PROBE_API bool block_matches(const command_block& b, const stop_info& s);

// The commands one stop runs: the lines before any header, then every matching block's, in
// file order, one per line.
PROBE_API std::string commands_for_stop(const std::vector<command_block>& blocks, const stop_info& s);

}  // namespace detail
PROBE_END_NAMESPACE
