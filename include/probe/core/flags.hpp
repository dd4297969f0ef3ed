// Parsing PROBE_FLAGS (XLA_FLAGS syntax) into probe::options. Internal header.
#pragma once
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>
#include <vector>

#include "../util/log.hpp"
#include "../util/string_table.hpp"
#include "../util/sync.hpp"
#include "gate.hpp"
#include "options.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

enum class flag_kind : uint8_t { boolean, string, size, integer, choice };

struct flag_info {
  const char* name;  // without the probe_ prefix
  flag_kind kind;
  const char* default_text;
  const char* help;
};

#define PROBE_STR_boolean(def) ((def) ? "true" : "false")
#define PROBE_STR_string(def) def
#define PROBE_STR_size(def) #def
#define PROBE_STR_integer(def) #def
#define PROBE_STR_choice(def) def
#define PROBE_FLAG_INFO(kind, name, def, help) {#name, flag_kind::kind, PROBE_STR_##kind(def), help},
inline const flag_info k_flags[] = {PROBE_FLAG_LIST(PROBE_FLAG_INFO)};
#undef PROBE_FLAG_INFO
constexpr int k_flag_count = static_cast<int>(sizeof(k_flags) / sizeof(k_flags[0]));

// Strings referenced by options live for the whole process: options_ref() hands out
// pointers that must stay valid even after set_flags() replaces the options. Each distinct
// string is kept once, so a program that sets the same flags again and again (a test suite,
// an engine switching modes) does not grow.
struct interned_strings {
  static_mutex m;
  string_table* table = nullptr;  // text -> its kept copy (a char*)
};
inline interned_strings g_interned;
inline const char* intern(const std::string& s) {
  lock_guard<static_mutex> g(g_interned.m);
  if (!g_interned.table) g_interned.table = new string_table();
  if (const uint64_t* kept = g_interned.table->find(s)) return reinterpret_cast<const char*>(static_cast<uintptr_t>(*kept));
  char* p = static_cast<char*>(malloc(s.size() + 1));
  if (!p) return "";
  memcpy(p, s.c_str(), s.size() + 1);
  (*g_interned.table)[s] = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
  return p;
}
// Distinct strings kept so far (tests).
inline size_t interned_count() {
  lock_guard<static_mutex> g(g_interned.m);
  return g_interned.table ? g_interned.table->size() : 0;
}

// Field by field: the same flags set again publish nothing new.
inline bool same_options(const options& a, const options& b) noexcept {
#define PROBE_SAME_boolean(name) a.name == b.name
#define PROBE_SAME_string(name) strcmp(a.name, b.name) == 0
#define PROBE_SAME_size(name) a.name == b.name
#define PROBE_SAME_integer(name) a.name == b.name
#define PROBE_SAME_choice(name) strcmp(a.name, b.name) == 0
#define PROBE_SAME_FIELD(kind, name, def, help) \
  if (!(PROBE_SAME_##kind(name))) return false;
  PROBE_FLAG_LIST(PROBE_SAME_FIELD)
#undef PROBE_SAME_FIELD
  return a.dump == b.dump && a.dump_to_stdout == b.dump_to_stdout && a.breakpoint_as == b.breakpoint_as &&
         a.frames == b.frames && a.frame_values == b.frame_values && a.dump_narrowing_unread == b.dump_narrowing_unread;
}

// Published sets of options: immutable once published, never freed (options_ref() hands
// them out), and kept once each however often the same flags are set again.
struct published_options {
  options opts;
  unsigned gate = 0;  // the marks' gate for them
  published_options* next = nullptr;
};

struct flag_state {
  mutex m;
  std::vector<std::string> said;  // messages already printed: a re-parse does not repeat them
  options opts;                   // being parsed (under m); readers use `current`
  const published_options* current = nullptr;  // the published options (atomic pointer)
  published_options* published = nullptr;  // every set published so far (under m)
  std::vector<std::string> reading;      // flags files being read (an inclusion cycle)
  bool given[k_flag_count] = {};
  std::vector<std::string> env_tokens;   // from PROBE_FLAGS or set_flags()
  std::vector<std::string> argv_tokens;  // from probe::init
  bool parsed = false;
  bool applied = false;  // the first parsed set was handed to the effects (atomic)
  bool help_shown = false;
  bool help_exit = false;  // --probe_help from PROBE_FLAGS or argv: print and exit
};
PROBE_API flag_state& flags();

// A flag problem, reported once per process however often the flags are re-parsed.
PROBE_API PROBE_PRINTF_LIKE(1, 2) void flag_log(const char* fmt, ...);

inline size_t edit_distance(const char* a, const char* b) {
  const size_t n = strlen(a), m = strlen(b);
  std::vector<size_t> prev(m + 1), cur(m + 1);
  for (size_t j = 0; j <= m; ++j) prev[j] = j;
  for (size_t i = 1; i <= n; ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= m; ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
      cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
    }
    prev.swap(cur);
  }
  return prev[m];
}

PROBE_API int find_flag(const char* name);

PROBE_API const char* closest_flag(const char* name);

// Splits on whitespace; single quotes are literal, double quotes take backslash escapes.
// Returns false (with *err set) on an unterminated quote.
PROBE_API bool tokenize(const char* s, std::vector<std::string>& out, std::string* err);

PROBE_API bool parse_bool(const std::string& v, bool* out);

// Bytes with an optional binary suffix: 1048576, 1M, 1.5G, 64KiB, 2gb.
PROBE_API bool parse_size(const std::string& v, uint64_t* out);

PROBE_API bool parse_int(const std::string& v, int64_t* out);

// The choices named in a choice flag's help text: "...: a|b|c (...)".
PROBE_API bool choice_allowed(const flag_info& f, const std::string& v);

PROBE_API bool set_flag(options& o, int index, const std::string& v, std::string* err);

struct parse_result {
  int unknown = 0;
  int bad = 0;
};

PROBE_API void parse_tokens(flag_state& st, const std::vector<std::string>& toks, int depth,
                             parse_result& r);

PROBE_API void parse_file(flag_state& st, const std::string& path, int depth, parse_result& r);

PROBE_API void parse_tokens(flag_state& st, const std::vector<std::string>& toks, int depth,
                             parse_result& r);

PROBE_API void print_flag_help(FILE* out);

PROBE_API bool given(const flag_state& st, const char* name);

// Fills in intent: which effects the named flags imply.
PROBE_API void derive_intent(flag_state& st);

PROBE_API unsigned compute_gate(const flag_state& st);

// The flag words this process was given (PROBE_FLAGS or set_flags, then probe::init's), as
// the dump's run record lists them.
PROBE_API std::vector<std::string> flag_tokens();

// Defined by the wiring (probe/detail/wiring.hpp): tells every effect the options changed.
PROBE_API void apply_options(const options& o) noexcept;

// Defined by the wiring: with --probe_replay, replays the snapshots and ends the process
// with replay's exit code; otherwise returns at once. Called by probe::init and by the
// first mark (replay mode keeps every mark on the slow path until then).
PROBE_API void replay_if_asked() noexcept;

// Parses env + argv tokens from defaults; the caller holds st.m.
// help_exits: flags from PROBE_FLAGS or the command line, where --probe_help prints the table on
// stdout and ends the program (exit_for_help, once the lock is released); from set_flags it
// prints the table on stderr and the program goes on.
PROBE_API void reparse_locked(flag_state& st, bool help_exits = false);

// Ends the program with the flag table on stdout (exit status 0) when --probe_help asked to.
PROBE_API void exit_for_help(const flag_state& st) noexcept;

PROBE_API void publish(flag_state& st);

PROBE_API void ensure_parsed() noexcept;

}  // namespace detail

PROBE_API const options& options_ref() noexcept;

PROBE_API void init(int& argc, char** argv) noexcept;

PROBE_API void set_flags(const char* text) noexcept;

namespace detail {
// Forgets the flags probe::init took from argv (tests use it to isolate cases).
PROBE_API void clear_argv_flags() noexcept;

PROBE_API unsigned gate_slow() noexcept;
}  // namespace detail

PROBE_END_NAMESPACE
