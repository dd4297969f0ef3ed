// flags: definitions (see flags.hpp).
#pragma once
#include "../util/immortal.hpp"
#include "flags.hpp"
#include "flags_parse_impl.hpp"

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
