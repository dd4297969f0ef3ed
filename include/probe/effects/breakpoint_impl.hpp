// breakpoint: definitions (see breakpoint_stop.hpp).
#pragma once
#include "../util/immortal.hpp"
#include "breakpoint_stop.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API breakpoint_state& breakpoint_state_ref() noexcept {
  static immortal<breakpoint_state> s;  // never destroyed
  return s.get();
}

PROBE_API breakpoint_mode resolve_breakpoint_mode(const options& o) noexcept {
  if (o.breakpoint_as != breakpoint_mode::auto_) return o.breakpoint_as;
  if (o.breakpoint_commands && o.breakpoint_commands[0]) return breakpoint_mode::prompt;
  return isatty(0) ? breakpoint_mode::prompt : breakpoint_mode::auto_;
}

PROBE_API uint64_t breakpoint_count_hit(const char* file, int line) noexcept {
  breakpoint_state& st = breakpoint_state_ref();
  try {
    lock_guard<mutex> g(st.m);
    return ++st.hits[std::make_pair(std::string(file ? file : ""), line)];
  } catch (...) {
    return 0;
  }
}

PROBE_API void breakpoint_report(const stop_info& s) noexcept {
  breakpoint_state& st = breakpoint_state_ref();
  int n;
  {
    lock_guard<mutex> g(st.m);
    n = ++st.reports;
  }
  if (n > k_breakpoint_max_reports) return;
  effects_barrier_impl();  // in a log, prints made before the stop come before its line
  try {
    log("%s %s: not at a terminal; continuing (--probe_breakpoint=prompt stops here, --probe_breakpoint=dump "
        "writes its variables)%s",
        s.reason.c_str(), stop_where(s).c_str(),
        n == k_breakpoint_max_reports ? "; later breakpoints are not reported" : "");
  } catch (...) {
  }
}

PROBE_API bool debugger_attached() noexcept {
  FILE* f = fopen("/proc/self/status", "r");
  if (!f) return false;
  char line[256];
  long tracer = 0;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "TracerPid:", 10) == 0) {
      tracer = strtol(line + 10, nullptr, 10);
      break;
    }
  fclose(f);
  return tracer != 0;
}

PROBE_API std::string stop_header(const stop_info& s) { return s.reason + " " + stop_where(s); }

PROBE_API void prompt_write(void*, const char* text, size_t n) noexcept { write_all(2, text, n); }

PROBE_API bool commands_file(const options& o, std::string* commands_for_this_stop, const stop_info& s) noexcept {
  breakpoint_state& st = breakpoint_state_ref();
  const char* path = o.breakpoint_commands ? o.breakpoint_commands : "";
  lock_guard<mutex> g(st.m);
  try {
    if (st.commands_path != path) {
      st.commands_path = path;
      st.commands.clear();
      st.commands_failed = true;
      std::string text, why;
      const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);  // a FIFO is refused, not waited on
      struct stat sb;
      if (fd < 0 || fstat(fd, &sb) != 0) {
        why = strerror(errno);
      } else if (!S_ISREG(sb.st_mode) || sb.st_size > (1 << 20)) {
        why = S_ISREG(sb.st_mode) ? "larger than 1 MiB" : "not a regular file";
      } else {
        text.resize(static_cast<size_t>(sb.st_size));
        size_t got = 0;
        while (got < text.size()) {
          const ssize_t n = read(fd, &text[got], text.size() - got);
          if (n <= 0) break;
          got += static_cast<size_t>(n);
        }
        text.resize(got);
      }
      if (fd >= 0) close(fd);
      if (why.empty() && !parse_command_blocks(text, &st.commands, &why)) st.commands.clear();
      if (!why.empty())
        log("cannot read --probe_breakpoint_commands=%s: %s; breakpoints continue", path, why.c_str());
      else
        st.commands_failed = false;
    }
    if (st.commands_failed) return false;
    *commands_for_this_stop = commands_for_stop(st.commands, s);
    return true;
  } catch (...) {
    return false;
  }
}

PROBE_API bool breakpoint_wanted(uint64_t hit) noexcept {
  const when_condition* c = __atomic_load_n(&breakpoint_state_ref().when, __ATOMIC_ACQUIRE);
  if (!c) return true;
  when_facts f;
  const op_record* r = current_op();
  f.op = r ? r->name.c_str() : nullptr;
  f.type = r ? r->type.c_str() : nullptr;
  f.step = current_step();
  f.hit = hit;
  try {
    return when_holds(*c, f);
  } catch (...) {
    return false;
  }
}

PROBE_API void breakpoint_prompt(stop_info& s, const options& o) noexcept {
  effects_barrier_impl();  // prints made before the breakpoint appear before the prompt
  breakpoint_state& st = breakpoint_state_ref();
  prompt_action action;
  {
    lock_guard<mutex> g(st.prompt);
    prompt_io io;
    io.write = &prompt_write;
    std::string commands, name;
    FILE* in = stdin;
    if (o.breakpoint_commands && o.breakpoint_commands[0]) {
      if (!commands_file(o, &commands, s)) return;
      // The stop's own commands, as a stream of their own: one stop never reads another's.
      in = commands.empty() ? fopen("/dev/null", "r") : fmemopen(&commands[0], commands.size(), "r");
      if (!in) return;
      try {
        name = std::string(o.breakpoint_commands) + " (the commands for this stop)";
      } catch (...) {
      }
      io.source_name = name.c_str();
    }
    io.in = in;
    io.echo = !isatty(fileno(in));
    action = run_prompt(s, io);
    if (in != stdin) fclose(in);
  }
  if (action == prompt_action::quit) {
    log("quit at the breakpoint prompt: ending the program (exit status %d)", breakpoint_quit_status);
    exit(breakpoint_quit_status);
  }
}

// root/breakpoints/leaf (in_dump) or root/leaf, created as needed and opened; root itself is
// the user's folder (or one mkdtemp made) and is followed, nothing below it is. Returns the
// descriptor, or -errno.
inline int open_stop_dir(const std::string& root, bool in_dump, const std::string& leaf) noexcept {
  if (const int e = make_dirs(root)) return -e;
  const int root_fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root_fd < 0) return -errno;
  int parent = root_fd, out = -1;
  int e = in_dump ? open_subdir(root_fd, "breakpoints", &parent) : 0;
  if (!e) e = open_subdir(parent, leaf.c_str(), &out);
  if (parent != root_fd) ::close(parent);
  ::close(root_fd);
  return e ? -e : out;
}

PROBE_API void breakpoint_dump(const stop_info& s, const options& o) noexcept {
  breakpoint_state& st = breakpoint_state_ref();
  try {
    std::string dir, root, leaf;
    bool in_dump = false;
    {
      lock_guard<mutex> g(st.m);
      if (st.dumps == k_breakpoint_max_dumps) {
        ++st.dumps;
        log("%d breakpoints dumped; later ones only print their location", k_breakpoint_max_dumps);
      }
      if (st.dumps > k_breakpoint_max_dumps) {
        log("%s", stop_header(s).c_str());
        return;
      }
      const int n = ++st.dumps;
      if (o.dump && !o.dump_to_stdout && o.dump_to[0]) {
        root = o.dump_to;
        in_dump = true;
      } else {
        if (st.temp_dir.empty()) {
          const char* tmp = getenv("TMPDIR");
          std::string pattern = join_path(tmp && tmp[0] ? tmp : "/tmp", "probe_breakpoints_XXXXXX");
          if (!mkdtemp(&pattern[0])) {
            log("%s: cannot create a folder for its variables (%s)", stop_header(s).c_str(), strerror(errno));
            return;
          }
          st.temp_dir = pattern;
        }
        root = st.temp_dir;
      }
      const frame& f0 = s.frames[0];
      std::string where = f0.file.empty() ? std::string("op") : f0.file;
      const size_t slash = where.rfind('/');
      if (slash != std::string::npos) where = where.substr(slash + 1);
      char head[64];
      snprintf(head, sizeof head, "bp_%06d.p%ld.", n, static_cast<long>(getpid()));
      leaf = head + sanitize_name(where + "_" + std::to_string(f0.line), 120);
      dir = join_path(in_dump ? join_path(root, "breakpoints") : root, leaf);
    }
    // Below the folder the user named (or the one made here), every folder and file is made
    // relative to its parent's descriptor: a link planted in the dump folder leads nowhere.
    const int dir_fd = open_stop_dir(root, in_dump, leaf);
    if (dir_fd < 0) {
      log("%s: cannot create %s (%s)", stop_header(s).c_str(), dir.c_str(), strerror(-dir_fd));
      return;
    }
    const fd_guard close_dir(dir_fd);
    std::string index = stop_header(s) + "\n";
    int written = 0, failed = 0;
    for (size_t i = 0; i < s.frames.size(); ++i) {
      const frame& f = s.frames[i];
      index += frame_title(f, i) + "\n";
      for (const frame_var& v : f.vars) {
        // Appended piece by piece: GCC 12 at -O3 -std=c++20 reports -Wrestrict inside
        // libstdc++ for "f" + std::to_string(i).
        std::string file = "f";
        file += std::to_string(i);
        file += '.';
        file += sanitize_name(v.name, 120);
        file += ".npy";
        tensor storage;
        tensor_view host;
        std::string err;
        if (!v.unavailable.empty()) {
          index += "  " + v.name + " " + shape_text(v.view) + " " + device_text(v.view) + ": not written: " +
                   v.unavailable + "\n";
          ++failed;
        } else if (host_view_of(v.view, &storage, &host, &err) && npy::write_at(dir_fd, file.c_str(), host, &err)) {
          index += "  " + v.name + " " + shape_text(v.view) + " " + device_text(v.view) + " -> " + file + "\n";
          ++written;
        } else {
          index += "  " + v.name + " " + shape_text(v.view) + " " + device_text(v.view) + ": not written: " + err + "\n";
          ++failed;
        }
      }
    }
    write_file_atomic_at(dir_fd, "frames.txt", index.data(), index.size());
    log("%s: wrote %d variable%s to %s%s", stop_header(s).c_str(), written, written == 1 ? "" : "s", dir.c_str(),
        failed ? " (some could not be written: see frames.txt)" : "");
  } catch (...) {
    log("%s: out of memory writing its variables", stop_header(s).c_str());
  }
}

PROBE_API void breakpoint_stop_now(stop_info& s) noexcept {
  const options& o = options_ref();
  const breakpoint_mode mode = resolve_breakpoint_mode(o);
  // The dump's queued files first: what the op just recorded is on disk when it stops.
  if (mode != breakpoint_mode::off && mode != breakpoint_mode::auto_)
    if (dump_writers* w = dump_writers::existing()) w->drain();
  switch (mode) {
    case breakpoint_mode::off:
      return;
    case breakpoint_mode::auto_:
      breakpoint_report(s);
      return;
    case breakpoint_mode::prompt:
      breakpoint_prompt(s, o);
      return;
    case breakpoint_mode::dump:
      breakpoint_dump(s, o);
      return;
    case breakpoint_mode::trap:
      if (debugger_attached()) {
        effects_barrier_impl();
        log("%s: raising SIGTRAP for the debugger (--probe_breakpoint=trap)", stop_header(s).c_str());
        raise(SIGTRAP);  // the debugger stops in raise; bt shows the breakpoint's caller below probe's frames
      } else {
        effects_barrier_impl();
        log("%s: no debugger attached (--probe_breakpoint=trap); continuing", stop_header(s).c_str());
      }
      return;
    case breakpoint_mode::abort_:
      effects_barrier_impl();
      log("%s: aborting (--probe_breakpoint=abort)", stop_header(s).c_str());
      abort();
  }
}

PROBE_API void breakpoint_hit(const char* file, int line, const char* function, const var_ref* vars,
                               int nvars) noexcept {
  try {
    const uint64_t hit = breakpoint_count_hit(file, line);
    if (!breakpoint_wanted(hit)) return;
    stop_info s = breakpoint_stop(file, line, function, vars, nvars);
    s.hit = hit;
    s.reason = std::string("breakpoint at ") + (file ? file : "?") + ":" + std::to_string(line) +
               (function && function[0] ? std::string(" in ") + function + "()" : std::string());
    breakpoint_stop_now(s);
  } catch (...) {
    static int said = 0;
    log_once(&said, "a breakpoint was skipped: out of memory");
  }
}

PROBE_API bool nonfinite_health(const tensor_view& v, health* h, std::string* err) {
  tensor storage;
  tensor_view host;
  if (!host_view_of(v, &storage, &host, err)) return false;
  *h = compute_health(host);
  if (!h->valid) *err = "cannot read the tensor";
  return h->valid;
}

PROBE_API std::string nonfinite_counts(const health& h) {
  return std::to_string(h.nan) + " NaN, " + std::to_string(h.pos_inf) + " +Inf, " + std::to_string(h.neg_inf) +
         " -Inf among " + std::to_string(h.count) + " elements";
}

PROBE_API void breakpoint_if_nonfinite_impl(const char* name, const tensor_view& v, const char* file, int line,
                                             const char* function) noexcept {
  // Every arrival counts, as a PROBE_BREAKPOINT's do: 'hit N' is the Nth time the line ran,
  // whether or not it found NaN or Inf.
  const uint64_t hit = breakpoint_count_hit(file, line);
  if (!dtype_is_float(v.type) && !dtype_is_complex(v.type)) return;  // cannot hold NaN or Inf
  try {
    health h;
    std::string err;
    if (!nonfinite_health(v, &h, &err)) {
      static int said = 0;
      log_once(&said, "breakpoint_if_nonfinite(\"%s\") cannot check the tensor: %s", name ? name : "", err.c_str());
      return;
    }
    if (h.nonfinite() == 0) return;
    if (!breakpoint_wanted(hit)) return;
    stop_info s;
    set_stop_thread(s);
    s.hit = hit;
    frame f;
    f.kind = frame_kind::nonfinite;
    f.file = file ? file : "";
    f.line = line;
    f.name = function ? function : "";
    add_var(f, name ? name : "", v);
    s.frames.push_back(static_cast<frame&&>(f));
    add_enclosing_frames(s, current_op(), current_scope());
    s.reason = std::string("'") + (name ? name : "") + "' holds non-finite values (" + nonfinite_counts(h) +
               ") at " + s.frames[0].file + ":" + std::to_string(line) +
               (function && function[0] ? std::string(" in ") + function + "()" : std::string());
    breakpoint_stop_now(s);
  } catch (...) {
  }
}

PROBE_API nonfinite_listener& nonfinite_listener_ref() noexcept {
  static immortal<nonfinite_listener> l;  // never destroyed: ops may run during exit
  return l.get();
}

PROBE_API int breakpoint_apply_options(const options& o, op_listener** list, int n, int cap) noexcept {
  breakpoint_state& st = breakpoint_state_ref();
  __atomic_store_n(&st.nonfinite_fired, 0, __ATOMIC_RELEASE);
  {
    lock_guard<mutex> g(st.m);
    st.hits.clear();  // new options, a new run: hit counts start again
    st.commands_path.clear();  // the commands file is read again (it may have changed)
  }
  when_condition* when = nullptr;
  if (o.break_if[0]) {
    std::string err;
    when = new (std::nothrow) when_condition();
    try {
      if (when && !parse_when(o.break_if, when, &err)) {
        when->never = true;
        log("--probe_break_if='%s': %s; breakpoints will not stop", o.break_if, err.c_str());
        stop_if_strict(o);
      }
    } catch (...) {
      if (when) when->never = true;
    }
  }
  __atomic_store_n(&st.when, when, __ATOMIC_RELEASE);  // the old one stays: a breakpoint may be reading it
  if (o.break_on_nonfinite && o.breakpoint_as != breakpoint_mode::off && n < cap) list[n++] = &nonfinite_listener_ref();
  return n;
}

}  // namespace detail
PROBE_END_NAMESPACE
