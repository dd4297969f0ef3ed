// flags: definitions (see flags.hpp).
#pragma once
#include <sys/stat.h>
#include <unistd.h>

#include "../util/immortal.hpp"
#include "flags.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API flag_state& flags() {
  static immortal<flag_state> s;  // never destroyed: used from atexit handlers
  return s.get();
}

PROBE_API PROBE_PRINTF_LIKE(1, 2) void flag_log(const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  flag_state& st = flags();
  for (const std::string& m : st.said)
    if (m == buf) return;
  st.said.emplace_back(buf);
  log("%s", buf);
}

PROBE_API int find_flag(const char* name) {
  for (int i = 0; i < k_flag_count; ++i)
    if (strcmp(k_flags[i].name, name) == 0) return i;
  return -1;
}

PROBE_API const char* closest_flag(const char* name) {
  size_t best = static_cast<size_t>(-1);
  const char* best_name = nullptr;
  for (const flag_info& f : k_flags) {
    size_t d = edit_distance(name, f.name);
    if (d < best) {
      best = d;
      best_name = f.name;
    }
  }
  // Suggest only what is plausibly a typo, not an unrelated word.
  return best <= 3 + strlen(name) / 4 ? best_name : nullptr;
}

PROBE_API bool tokenize(const char* s, std::vector<std::string>& out, std::string* err) {
  std::string cur;
  bool in_token = false;
  for (const char* p = s; *p;) {
    char c = *p;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_token) out.push_back(cur);
      cur.clear();
      in_token = false;
      ++p;
    } else if (c == '\'' || c == '"') {
      in_token = true;
      const char q = c;
      ++p;
      while (*p && *p != q) {
        if (q == '"' && *p == '\\' && p[1]) {
          ++p;
          switch (*p) {
            case 'n': cur += '\n'; break;
            case 't': cur += '\t'; break;
            default: cur += *p; break;
          }
          ++p;
        } else {
          cur += *p++;
        }
      }
      if (!*p) {
        *err = std::string("unterminated ") + (q == '"' ? "double" : "single") + " quote in flags";
        return false;
      }
      ++p;
    } else {
      in_token = true;
      cur += c;
      ++p;
    }
  }
  if (in_token) out.push_back(cur);
  return true;
}

PROBE_API bool parse_bool(const std::string& v, bool* out) {
  std::string l;
  for (char c : v) l += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (l == "1" || l == "true" || l == "on" || l == "yes") return *out = true, true;
  if (l == "0" || l == "false" || l == "off" || l == "no") return *out = false, true;
  return false;
}

PROBE_API bool parse_size(const std::string& v, uint64_t* out) {
  if (v.empty() || v[0] == '-' || v[0] == '+') return false;
  errno = 0;
  char* end = nullptr;
  const double num = strtod(v.c_str(), &end);
  if (end == v.c_str() || errno != 0 || !(num >= 0)) return false;
  std::string suf(end);
  for (char& c : suf) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  double mul = 1;
  if (!suf.empty()) {
    switch (suf[0]) {
      case 'K': mul = 1024.0; break;
      case 'M': mul = 1024.0 * 1024; break;
      case 'G': mul = 1024.0 * 1024 * 1024; break;
      case 'T': mul = 1024.0 * 1024 * 1024 * 1024; break;
      case 'B': mul = 1; break;
      default: return false;
    }
    std::string rest = suf[0] == 'B' ? suf.substr(1) : suf.substr(1);
    if (!(rest.empty() || rest == "B" || rest == "IB")) return false;
  }
  const double bytes = num * mul;
  if (bytes > 1.8e19 || bytes != static_cast<double>(static_cast<uint64_t>(bytes))) return false;
  *out = static_cast<uint64_t>(bytes);
  return true;
}

PROBE_API bool parse_int(const std::string& v, int64_t* out) {
  if (v.empty()) return false;
  errno = 0;
  char* end = nullptr;
  long long x = strtoll(v.c_str(), &end, 10);
  if (*end != '\0' || errno != 0) return false;
  *out = x;
  return true;
}

PROBE_API bool choice_allowed(const flag_info& f, const std::string& v) {
  const char* c = strchr(f.help, ':');
  if (!c) return false;
  ++c;
  while (*c == ' ') ++c;
  std::string cur;
  for (;; ++c) {
    if (*c == '|' || *c == ' ' || *c == '\0' || *c == '(') {
      if (cur == v) return true;
      cur.clear();
      if (*c != '|') return false;
    } else {
      cur += *c;
    }
  }
}

PROBE_API bool set_flag(options& o, int index, const std::string& v, std::string* err) {
  const flag_info& f = k_flags[index];
  bool b = false;
  uint64_t sz = 0;
  int64_t n = 0;
  switch (f.kind) {
    case flag_kind::boolean:
      if (!parse_bool(v, &b)) {
        *err = "expects true|false|on|off|1|0";
        return false;
      }
      break;
    case flag_kind::size:
      if (!parse_size(v, &sz)) {
        *err = "expects a byte count such as 4096, 512K, 64M or 2G";
        return false;
      }
      break;
    case flag_kind::integer:
      if (!parse_int(v, &n) || n < 0) {
        *err = "expects a non-negative integer";
        return false;
      }
      break;
    case flag_kind::choice:
      if (!choice_allowed(f, v)) {
        *err = std::string("expects one of ") + (strchr(f.help, ':') + 2);
        return false;
      }
      break;
    case flag_kind::string: break;
  }
  int i = 0;
#define PROBE_SET_boolean(name) o.name = b;
#define PROBE_SET_string(name) o.name = intern(v);
#define PROBE_SET_size(name) o.name = sz;
#define PROBE_SET_integer(name) o.name = n;
#define PROBE_SET_choice(name) o.name = intern(v);
#define PROBE_SET_FIELD(kind, name, def, help) \
  if (i++ == index) {                          \
    PROBE_SET_##kind(name) return true;        \
  }
  PROBE_FLAG_LIST(PROBE_SET_FIELD)
#undef PROBE_SET_FIELD
  return false;
}

PROBE_API void parse_file(flag_state& st, const std::string& path, int depth, parse_result& r) {
  if (depth > 8) {
    flag_log("flags file '%s' nests too deeply (more than 8 files); ignored", path.c_str());
    ++r.bad;
    return;
  }
  // A file that includes itself, directly or through others: said once, read once.
  struct stat id;
  std::string key;
  if (::stat(path.c_str(), &id) == 0) {
    key = std::to_string(static_cast<unsigned long long>(id.st_dev)) + ":" +
          std::to_string(static_cast<unsigned long long>(id.st_ino));
    for (const std::string& k : st.reading)
      if (k == key) {
        flag_log("flags file '%s' includes itself (a cycle of flags files); the inclusion is ignored", path.c_str());
        ++r.bad;
        return;
      }
  }
  FILE* f = fopen(path.c_str(), "rb");
  if (!f) {
    flag_log("cannot read flags file '%s': %s (a flag value that does not start with '-' is read "
        "as a file of flags)", path.c_str(), strerror(errno));
    ++r.bad;
    return;
  }
  // Flags, not data: anything bigger is a mistaken path (/dev/zero would never end).
  constexpr size_t k_max_flags_file = size_t{1} << 20;
  std::string text;
  char buf[4096];
  size_t n;
  while (text.size() <= k_max_flags_file && (n = fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  const int read_errno = ferror(f) ? errno : 0;
  fclose(f);
  if (read_errno) {
    flag_log("cannot read flags file '%s': %s", path.c_str(), strerror(read_errno));
    ++r.bad;
    return;
  }
  if (text.size() > k_max_flags_file) {
    flag_log("flags file '%s' is larger than 1 MiB, so it is not a file of flags; ignored", path.c_str());
    ++r.bad;
    return;
  }
  // '#' starts a comment that runs to the end of the line.
  std::string clean;
  bool comment = false;
  for (char c : text) {
    if (c == '#') comment = true;
    if (c == '\n') comment = false;
    if (!comment) clean += c;
  }
  std::vector<std::string> toks;
  std::string err;
  if (!tokenize(clean.c_str(), toks, &err)) {
    flag_log("flags file '%s': %s", path.c_str(), err.c_str());
    ++r.bad;
    return;
  }
  st.reading.push_back(key);
  try {
    parse_tokens(st, toks, depth + 1, r);
  } catch (...) {
    st.reading.pop_back();
    throw;
  }
  st.reading.pop_back();
}

// The integer and size flags whose default (0) means "no limit": a value that cannot be read
// must not leave them at that default. String filters (steps, op regex) say so where they
// are compiled.
inline bool narrows_dump(int index) {
  static const int narrowing[] = {find_flag("dump_every"), find_flag("dump_max_bytes"), find_flag("dump_max_ops"),
                                  find_flag("dump_ir_min_ops")};
  for (int n : narrowing)
    if (n == index) return true;
  return false;
}

PROBE_API void parse_tokens(flag_state& st, const std::vector<std::string>& toks, int depth,
                             parse_result& r) {
  // Under --probe_strict_flags (anywhere in these tokens) a bad value stops the program: its
  // message says so rather than "keeping the default".
  bool strict = st.opts.strict_flags;
  for (const std::string& t : toks) {
    static const std::string k_strict = "--probe_strict_flags";
    if (t.compare(0, k_strict.size(), k_strict) != 0) continue;
    bool on = false;
    if (t.size() == k_strict.size() || (t[k_strict.size()] == '=' && parse_bool(t.substr(k_strict.size() + 1), &on) && on))
      strict = true;
  }
  for (size_t i = 0; i < toks.size(); ++i) {
    const std::string& t = toks[i];
    if (t.empty()) continue;
    if (t[0] != '-') {
      parse_file(st, t, depth, r);
      continue;
    }
    std::string body = t.substr(t.size() > 1 && t[1] == '-' ? 2 : 1);
    std::string name = body, value;
    bool has_value = false;
    const size_t eq = body.find('=');
    if (eq != std::string::npos) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
      has_value = true;
    }
    std::string bare = name.compare(0, 6, "probe_") == 0 ? name.substr(6) : std::string();
    int idx = bare.empty() ? -1 : find_flag(bare.c_str());
    bool negated = false;
    if (idx < 0 && bare.compare(0, 2, "no") == 0) {
      int j = find_flag(bare.c_str() + 2);
      if (j >= 0 && k_flags[j].kind == flag_kind::boolean && !has_value) {
        idx = j;
        negated = true;
      }
    }
    if (idx < 0) {
      const char* near = closest_flag(bare.empty() ? name.c_str() : bare.c_str());
      if (near)
        flag_log("unknown flag --%s (did you mean --probe_%s?)", name.c_str(), near);
      else
        flag_log("unknown flag --%s (--probe_help lists them all)", name.c_str());
      ++r.unknown;
      continue;
    }
    const flag_info& f = k_flags[idx];
    if (!has_value) {
      if (f.kind == flag_kind::boolean) {
        value = negated ? "false" : "true";
      } else if (i + 1 < toks.size() && toks[i + 1].compare(0, 2, "--") != 0) {
        value = toks[++i];
      } else {
        flag_log("flag --probe_%s needs a value (--probe_%s=VALUE)", f.name, f.name);
        ++r.bad;
        continue;
      }
    }
    std::string err;
    if (!set_flag(st.opts, idx, value, &err)) {
      // Filters and budgets narrow the dump: one that cannot be read (or a negative count)
      // selects nothing rather than falling back to "everything".
      if (narrows_dump(idx)) {
        st.opts.dump_narrowing_unread = true;
        flag_log("bad value '%s' for --probe_%s: %s; nothing is dumped (a dump is never wider than asked)",
                 value.c_str(), f.name, err.c_str());
      } else {
        if (strict)
          flag_log("bad value '%s' for --probe_%s: %s", value.c_str(), f.name, err.c_str());
        else
          flag_log("bad value '%s' for --probe_%s: %s; keeping the default (%s)", value.c_str(), f.name, err.c_str(),
                   f.default_text);
      }
      ++r.bad;
      continue;
    }
    st.given[idx] = true;
  }
}

PROBE_API void print_flag_help(FILE* out) {
  fprintf(out, "probe %s flags (PROBE_FLAGS=\"--probe_name=value ...\"):\n", PROBE_VERSION_STRING);
  for (const flag_info& f : k_flags) {
    std::string left = std::string("  --probe_") + f.name;
    if (f.kind != flag_kind::boolean) left += "=";
    switch (f.kind) {
      case flag_kind::string: left += "VALUE"; break;
      case flag_kind::size: left += "N[KMG]"; break;
      case flag_kind::integer: left += "N"; break;
      case flag_kind::choice: left += "MODE"; break;
      case flag_kind::boolean: break;
    }
    fprintf(out, "%-38s %s [default: %s]\n", left.c_str(), f.help,
            f.default_text[0] ? f.default_text : "none");
  }
}

PROBE_API bool given(const flag_state& st, const char* name) {
  int i = find_flag(name);
  return i >= 0 && st.given[i];
}

// Whether flag `index` is a boolean set to false (--probe_dump_as_npy=false, --probe_nodump_as_npy).
inline bool is_false_boolean(const options& o, int index) {
  int i = 0;
#define PROBE_FALSE_boolean(name) return !o.name;
#define PROBE_FALSE_string(name) return false;
#define PROBE_FALSE_size(name) return false;
#define PROBE_FALSE_integer(name) return false;
#define PROBE_FALSE_choice(name) return false;
#define PROBE_FALSE_FIELD(kind, name, def, help) \
  if (i++ == index) {                            \
    PROBE_FALSE_##kind(name)                     \
  }
  PROBE_FLAG_LIST(PROBE_FALSE_FIELD)
#undef PROBE_FALSE_FIELD
#undef PROBE_FALSE_boolean
#undef PROBE_FALSE_string
#undef PROBE_FALSE_size
#undef PROBE_FALSE_integer
#undef PROBE_FALSE_choice
  return false;
}

PROBE_API void derive_intent(flag_state& st) {
  options& o = st.opts;
  if (o.timing_summary || o.trace_to[0]) o.timing = true;
  bool any_dump = false;
  // Every dump flag turns dumping on, except those that only tune how it writes, and a
  // boolean one set to false (it asks for less, never for a dump).
  for (int i = 0; i < k_flag_count; ++i)
    if (st.given[i] && strncmp(k_flags[i].name, "dump_", 5) == 0 && strcmp(k_flags[i].name, "dump_threads") != 0 &&
        strcmp(k_flags[i].name, "dump_queue_bytes") != 0 && !is_false_boolean(o, i))
      any_dump = true;
  o.dump = any_dump;
  if (o.dump) {
    o.dump_to_stdout = o.dump_to[0] == '\0' || strcmp(o.dump_to, "-") == 0;
    const bool named = o.dump_as_text || o.dump_as_npy || o.dump_snapshots || o.dump_as_dot ||
                       o.dump_as_html || o.dump_stats_only;
    if (!named) o.dump_as_text = true;
    if (o.dump_to_stdout && (o.dump_as_npy || o.dump_snapshots || o.dump_as_dot || o.dump_as_html)) {
      flag_log("--probe_dump_as_npy/_snapshots/_as_dot/_as_html need --probe_dump_to=DIR; dumping "
          "text to stdout instead");
      o.dump_as_npy = o.dump_snapshots = o.dump_as_dot = o.dump_as_html = false;
      o.dump_as_text = true;
    }
  }
  const char* b = o.breakpoint;
  o.breakpoint_as = strcmp(b, "prompt") == 0  ? breakpoint_mode::prompt
                    : strcmp(b, "trap") == 0  ? breakpoint_mode::trap
                    : strcmp(b, "dump") == 0  ? breakpoint_mode::dump
                    : strcmp(b, "abort") == 0 ? breakpoint_mode::abort_
                    : strcmp(b, "off") == 0   ? breakpoint_mode::off
                                              : breakpoint_mode::auto_;
  // A breakpoint asked for by flag shows the open ops as frames, with their tensors.
  o.frames = (given(st, "breakpoint") || o.breakpoint_commands[0] || o.break_if[0]) &&
             o.breakpoint_as != breakpoint_mode::off;
  // Op frames are read at a stop only by the prompt (auto: on a terminal or from a commands
  // file) and by the dump mode; only then do ops copy what they record for them.
  const bool reads_frames =
      o.breakpoint_as == breakpoint_mode::prompt || o.breakpoint_as == breakpoint_mode::dump ||
      (o.breakpoint_as == breakpoint_mode::auto_ && (o.breakpoint_commands[0] || isatty(0)));
  o.frame_values = reads_frames && o.breakpoint_keep_bytes > 0;
}

PROBE_API unsigned compute_gate(const flag_state& st) {
  const options& o = st.opts;
  // Replay mode: every mark takes the slow path, where the first one replays and exits.
  if (o.replay[0]) return gate_unparsed;
  unsigned g = 0;
  // Op scopes become frames once breakpoints are asked for: a mode, a commands file or a
  // condition (o.frames).
  if (o.dump || o.timing || o.break_on_nonfinite || o.break_on_abs_above[0] || o.frames) g |= gate_ops;
  if (o.print) g |= gate_print;
  if (o.callback) g |= gate_callback;
  if (o.breakpoint_as != breakpoint_mode::off) g |= gate_breakpoint;
  if (o.timing) g |= gate_timing;
  // Scopes become breakpoint frames alongside op frames: only then do they link themselves.
  if ((g & gate_ops) && (g & gate_breakpoint)) g |= gate_scopes;
  if (o.dump && !o.dump_to_stdout) g |= gate_ir;  // IR files need a folder
  return g;
}

// Publishes st.opts as an immutable object (an equal one published before is reused).
// Under st.m.
inline void publish_locked(flag_state& st) {
  const unsigned gate = compute_gate(st);
  for (published_options* p = st.published; p; p = p->next)
    if (p->gate == gate && same_options(p->opts, st.opts)) {
      __atomic_store_n(&st.current, p, __ATOMIC_RELEASE);
      return;
    }
  published_options* p = new published_options();
  p->opts = st.opts;
  p->gate = gate;
  p->next = st.published;
  st.published = p;
  __atomic_store_n(&st.current, p, __ATOMIC_RELEASE);
}

PROBE_API void exit_for_help(const flag_state& st) noexcept {
  if (!st.help_exit) return;
  fflush(stdout);
  print_flag_help(stdout);
  fflush(stdout);
  _exit(0);  // before the program did anything: its exit handlers have nothing to finish
}

PROBE_API void stop_if_strict(const options& o) noexcept {
  if (!o.strict_flags) return;
  log("--probe_strict_flags: stopping because of the flag errors above");
  fflush(stdout);
  _exit(2);
}

PROBE_API void reparse_locked(flag_state& st, bool help_exits) {
  st.opts = options{};
  for (bool& g : st.given) g = false;
  parse_result r;
  parse_tokens(st, st.env_tokens, 0, r);
  parse_tokens(st, st.argv_tokens, 0, r);
  derive_intent(st);
  if (st.opts.help && help_exits) {
    st.help_exit = true;
  } else if (st.opts.help && !st.help_shown) {
    st.help_shown = true;
    print_flag_help(stderr);
  }
  if (r.unknown || r.bad) stop_if_strict(st.opts);
  publish_locked(st);
  __atomic_store_n(&st.parsed, true, __ATOMIC_RELEASE);
}

PROBE_API std::vector<std::string> flag_tokens() {
  flag_state& st = flags();
  lock_guard<mutex> g(st.m);
  std::vector<std::string> all = st.env_tokens;
  all.insert(all.end(), st.argv_tokens.begin(), st.argv_tokens.end());
  return all;
}

// Hands the published options to the effects, then opens the gate for them. Outside st.m
// (effects may read the flags); what is applied is the latest published set.
PROBE_API void publish(flag_state& st) {
  const published_options* p = __atomic_load_n(&st.current, __ATOMIC_ACQUIRE);
  if (!p) return;
  apply_options(p->opts);
  __atomic_store_n(&g_gate, p->gate, __ATOMIC_RELEASE);
}

// The first thread here reads the flags and hands them to the effects; every other thread
// waits for both, since an op begun before the effects are in place would be lost (it
// takes a sequence number and records nothing). The effects may ask for the options while
// they are handed over: that thread returns at once.
PROBE_API void ensure_parsed() noexcept {
  flag_state& st = flags();
  if (PROBE_LIKELY(__atomic_load_n(&st.applied, __ATOMIC_ACQUIRE))) return;
  static thread_local bool applying = false;
  if (applying) return;
  static fork_safe_mutex first;
  lock_guard<fork_safe_mutex> once(first);
  if (__atomic_load_n(&st.applied, __ATOMIC_ACQUIRE)) return;
  applying = true;
  bool now = false;
  {
    lock_guard<mutex> g(st.m);
    if (!st.parsed) {
      try {
        const char* env = getenv("PROBE_FLAGS");
        std::string err;
        if (env && !tokenize(env, st.env_tokens, &err)) log("PROBE_FLAGS: %s", err.c_str());
        reparse_locked(st, true);
      } catch (...) {
        log("could not parse PROBE_FLAGS (out of memory); every effect stays off");
        st.opts = options{};
        __atomic_store_n(&st.parsed, true, __ATOMIC_RELEASE);
      }
      now = true;
    }
  }
  if (now) exit_for_help(st);
  if (now) publish(st);
  applying = false;
  __atomic_store_n(&st.applied, true, __ATOMIC_RELEASE);
}

}  // namespace detail

PROBE_API const options& options_ref() noexcept {
  detail::ensure_parsed();
  // The published object, never the one being parsed: another thread may set flags now.
  const detail::published_options* p = __atomic_load_n(&detail::flags().current, __ATOMIC_ACQUIRE);
  static const options defaults{};
  return p ? p->opts : defaults;
}

PROBE_API void init(int& argc, char** argv) noexcept {
  detail::ensure_parsed();
  detail::flag_state& st = detail::flags();
  try {
    std::vector<std::string> toks;
    int out = 1;
    // argv as C gives it: a null entry ends it, whatever argc says (and a null argv is empty).
    int end = argv ? 1 : 0;
    while (argv && end < argc && argv[end]) ++end;
    for (int i = 1; i < end; ++i) {
      const char* a = argv[i];
      const char* body = a[0] == '-' ? (a[1] == '-' ? a + 2 : a + 1) : nullptr;
      if (body && strncmp(body, "probe_", 6) == 0) {
        toks.emplace_back(a);
        // "--probe_name value" takes the next argument for non-boolean flags.
        std::string name(body + 6);
        if (name.find('=') == std::string::npos) {
          int idx = detail::find_flag(name.c_str());
          if (idx >= 0 && detail::k_flags[idx].kind != detail::flag_kind::boolean && i + 1 < end &&
              strncmp(argv[i + 1], "--", 2) != 0)
            toks.emplace_back(argv[++i]);
        }
        continue;
      }
      argv[out++] = argv[i];
    }
    if (argv && out < end) {  // what follows argv's end moves down with it
      for (int i = end; i < argc; ++i) argv[out + i - end] = argv[i];
      argc = out + (argc - end);
      argv[out] = nullptr;
    }
    if (!toks.empty()) {
      {
        detail::lock_guard<detail::mutex> g(st.m);
        st.argv_tokens = toks;
        detail::reparse_locked(st, true);
      }
      detail::exit_for_help(st);
      detail::publish(st);
    }
  } catch (...) {
    detail::log("probe::init: out of memory while reading the command line");
  }
  // After the command line's flags joined those of PROBE_FLAGS.
  detail::replay_if_asked();
}

PROBE_API void set_flags(const char* text) noexcept {
  detail::ensure_parsed();
  detail::flag_state& st = detail::flags();
  try {
    {
      detail::lock_guard<detail::mutex> g(st.m);
      st.env_tokens.clear();
      std::string err;
      if (text && !detail::tokenize(text, st.env_tokens, &err)) detail::log("flags: %s", err.c_str());
      detail::reparse_locked(st);
    }
    detail::publish(st);
  } catch (...) {
    detail::log("probe::set_flags: out of memory");
  }
}

namespace detail {

PROBE_API void clear_argv_flags() noexcept {
  flag_state& st = flags();
  {
    lock_guard<mutex> g(st.m);
    st.argv_tokens.clear();
    try {
      reparse_locked(st);
    } catch (...) {  // out of memory: the options stay as they were
      log("could not read the flags again (out of memory); they stay as they were");
    }
  }
  publish(st);
}

PROBE_API unsigned gate_slow() noexcept {
  ensure_parsed();
  replay_if_asked();
  return gate_load();
}

}  // namespace detail
PROBE_END_NAMESPACE
