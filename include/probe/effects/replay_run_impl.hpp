// replay_run: definitions (see replay_run.hpp).
#pragma once
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <exception>

#include "../core/context.hpp"
#include "../core/stats.hpp"
#include "../formats/npy.hpp"
#include "../util/fs.hpp"
#include "../util/log.hpp"
#include "../util/regex.hpp"
#include "replay_data.hpp"
#include "replay_kernel.hpp"
#include "replay_run.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {
namespace replay_impl {

inline bool parse_tolerance(const char* text, const char* flag, double* out, std::string* error) {
  if (!text || !*text) return true;
  char* end = nullptr;
  errno = 0;
  const double v = strtod(text, &end);
  if (end == text || *end || errno || !(v >= 0) || v > 1e300) {
    *error = std::string("bad value '") + text + "' for --probe_" + flag + ": expects a number >= 0, such as 1e-5";
    return false;
  }
  *out = v;
  return true;
}

// Runs the kernel once; false with *why when it threw.
inline bool run_kernel(kernel_fn fn, replay_context& ctx, std::string* why) noexcept {
  try {
    try {
      fn(ctx);
      return true;
    } catch (const replay_failure& f) {
      *why = f.message;
    } catch (const std::exception& e) {
      *why = std::string("the kernel threw: ") + e.what();
    } catch (...) {
      *why = "the kernel threw an exception that is not a std::exception";
    }
  } catch (...) {
    *why = "out of memory";
  }
  return false;
}

inline const char* signal_abbrev(int sig) noexcept {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGTRAP: return "SIGTRAP";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGPIPE: return "SIGPIPE";
    default: return "signal";
  }
}

inline std::string index_text(int64_t flat, const tensor_view& v, bool complex_parts) {
  int64_t shape[max_dims + 1];
  int n = v.ndim;
  for (int i = 0; i < n; ++i) shape[i] = v.shape[i];
  if (complex_parts) shape[n++] = 2;
  int64_t idx[max_dims + 1] = {};
  for (int d = n - 1; d >= 0; --d) {
    const int64_t s = shape[d] > 0 ? shape[d] : 1;
    idx[d] = flat % s;
    flat /= s;
  }
  std::string t = "[";
  for (int i = 0; i < n; ++i) {
    if (i) t += ',';
    t += std::to_string(idx[i]);  // appended: "," + to_string() trips GCC 12's -Wrestrict at -O3
  }
  return t + "]";
}

// An output the kernel wrote, judged: against the recorded one, or (fake inputs) for NaN/Inf.
inline bool judge_output(const snapshot::info& snap, replay_output_buffer& o, const replay_settings& s, replay_output_row* row,
                         std::string* error) {
  row->slot = o.slot;
  row->shape = dtype_name(o.view.type) + replay_names::shape(o.view.shape, o.view.ndim);
  if (s.fake_data) {
    const health h = compute_health(o.view);
    row->nan = h.nan;
    row->inf = h.pos_inf + h.neg_inf;
    row->min = h.min;
    row->max = h.max;
    row->mean = h.mean;
    row->result = h.nonfinite() ? "NONFINITE" : "finite";
    return true;
  }
  if (!o.recorded) {
    row->result = "new";
    return true;
  }
  tensor recorded;
  if (!read_recorded(snap.dir, *o.recorded, &recorded, error)) return false;
  row->compared = true;
  row->c = check_close(o.view, recorded.view(), s.tol);
  row->result = row->c.pass ? "ok" : "MISMATCH";
  if (row->c.worst_fail >= 0) row->worst_at = index_text(row->c.worst_fail, o.view, dtype_is_complex(o.view.type));
  if (!row->c.pass && s.write_mismatches) {
    const std::string path = join_path(snap.dir, "replay." + o.recorded->file);
    std::string why;
    if (npy::write(path, o.view, &why))
      row->written = path;
    else
      log("replay %s: cannot write the replayed output: %s", snap.key().c_str(), why.c_str());
  }
  return true;
}

}  // namespace replay_impl

PROBE_API bool replay_settings_from(const options& o, replay_settings* s, std::string* error) {
  s->paths = o.replay ? o.replay : "";
  s->op_re = o.replay_op_re ? o.replay_op_re : "";
  s->fake_data = o.replay_fake_data;
  s->seed = static_cast<uint64_t>(o.replay_seed);
  s->iterations = o.replay_iterations;
  s->write_mismatches = o.replay_write_mismatches;
  s->isolate = o.replay_isolate;
  s->require_kernels = o.replay_require_kernels;
  s->reference = o.reference;
  return replay_impl::parse_tolerance(o.replay_atol, "replay_atol", &s->tol.atol, error) &&
         replay_impl::parse_tolerance(o.replay_rtol, "replay_rtol", &s->tol.rtol, error);
}

PROBE_API replay_row replay_one(const snapshot::info& snap, const replay_settings& s) noexcept {
  replay_row row;
  try {
    row.dir = snap.dir;
    row.key = snap.key();
    row.type = snap.type;
    row.status = snap.status;
    auto failed = [&](const std::string& why) {
      row.outcome = replay_outcome::error;
      row.error = why;
      return row;
    };
    const kernel_entry* k = find_kernel(snap.op, snap.type, &row.kernel);
    if (!k)
      return failed("no kernel registered for op '" + snap.op + "' or type '" + snap.type + "' (PROBE_KERNEL(\"" +
                    (snap.type.empty() ? snap.op : snap.type) + "\", fn) registers one; " +
                    std::to_string(kernel_count()) + " registered)");
    const kernel_fn fn = s.reference && k->reference ? k->reference : k->fn;
    replay_state st;
    st.snap = &snap;
    st.load_attrs();
    st.inputs.reserve(snap.inputs.size());
    std::vector<std::string> zeroed;  // slots whose prior state could not be put together
    for (const snapshot::tensor_entry& t : snap.inputs) {
      if (s.fake_data) {
        st.inputs.push_back(fake_tensor(t, row.key, s.seed));
        continue;
      }
      tensor v;
      std::string why;
      if (!read_recorded(snap.dir, t, &v, &why)) {
        if (t.file.empty() && !t.prior.empty()) {
          // An implicit prior state that cannot be put together: zeros, said once per op.
          row.notes.push_back("input '" + t.slot + "': " + why + "; it, and output '" + t.slot + "', start from zeros");
          st.inputs.push_back(tensor(t.type, dims(t.shape, static_cast<size_t>(t.ndim))));
          zeroed.push_back(t.slot);
          continue;
        }
        return failed("input '" + t.slot + "': " + why);
      }
      st.inputs.push_back(std::move(v));
    }
    replay_context ctx(&st);
    std::string why;
    if (!replay_impl::run_kernel(fn, ctx, &why)) return failed(why);
    // A finished op's outputs must all be written again; one that crashed or threw recorded
    // what it got to, and those are compared.
    if (snap.status == "complete")
      for (const snapshot::tensor_entry& t : snap.outputs) {
        bool written = false;
        for (const replay_output_buffer& o : st.outputs) written = written || o.slot == t.slot;
        if (!written) return failed("the kernel wrote no output '" + t.slot + "' (ctx.output<T>(\"" + t.slot + "\"))");
      }
    for (replay_output_buffer& o : st.outputs) {
      replay_output_row out;
      if (!replay_impl::judge_output(snap, o, s, &out, &why)) return failed("output '" + o.slot + "': " + why);
      if (out.result == "MISMATCH" || out.result == "NONFINITE") row.outcome = replay_outcome::mismatch;
      // From zeros instead of the state it updates, an output that differs says nothing about
      // the kernel: not judged, rather than blamed.
      if (out.result == "MISMATCH" && std::find(zeroed.begin(), zeroed.end(), o.slot) != zeroed.end() &&
          row.error.empty())
        row.error = "output '" + o.slot + "' differs, but it started from zeros, not the state the op updates: not "
                    "judged (replay it from its whole dump, whose earlier snapshots hold that state)";
      row.outputs.push_back(std::move(out));
    }
    if (!row.error.empty()) row.outcome = replay_outcome::error;
    // The kernel alone, on the same memory: nothing else is timed.
    for (int64_t i = 0; i < s.iterations; ++i) {
      const int64_t t0 = mono_ns();
      if (!replay_impl::run_kernel(fn, ctx, &why)) return failed("timed run " + std::to_string(i + 1) + ": " + why);
      row.times_ns.push_back(mono_ns() - t0);
    }
  } catch (...) {
    row.outcome = replay_outcome::error;
    row.error = "out of memory";
  }
  return row;
}

PROBE_API replay_row replay_isolated(const snapshot::info& snap, const replay_settings& s) noexcept {
  replay_row row;
  try {
    row.dir = snap.dir;
    row.key = snap.key();
    row.type = snap.type;
    row.status = snap.status;
    row.isolated = true;
    row.outcome = replay_outcome::error;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
      row.error = std::string("cannot start the replay process: pipe: ") + strerror(errno);
      return row;
    }
    fflush(nullptr);  // nothing buffered is written twice
    const pid_t pid = fork();
    if (pid < 0) {
      row.error = std::string("cannot start the replay process: fork: ") + strerror(errno);
      ::close(fds[0]);
      ::close(fds[1]);
      return row;
    }
    if (pid == 0) {
      ::close(fds[0]);
      const rlimit no_core{0, 0};  // a crash reproduced on purpose leaves no core file
      setrlimit(RLIMIT_CORE, &no_core);
      // The host's crash handlers (a test framework's, a backtrace printer) would turn the
      // crash into an exit status or a report of their own: the signal itself is the answer.
      for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP}) signal(sig, SIG_DFL);
      replay_row r = replay_one(snap, s);
      std::string line = replay_row_json(r) + "\n";
      write_all(fds[1], line.data(), line.size());
      fflush(nullptr);
      _exit(0);
    }
    ::close(fds[1]);
    std::string text;
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(fds[0], buf, sizeof buf);
      if (n > 0) text.append(buf, static_cast<size_t>(n));
      else if (n == 0 || errno != EINTR) break;
    }
    ::close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFSIGNALED(status)) {
      const int sig = WTERMSIG(status);
      row.error = "the kernel crashed: " + std::string(replay_impl::signal_abbrev(sig)) + " (signal " +
                  std::to_string(sig) + ", " + strsignal(sig) + ")";
      return row;
    }
    replay_row child;
    if (!replay_row_from_json(text, &child)) {
      row.error = "the replay process exited with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                  " before reporting";
      return row;
    }
    child.isolated = true;
    return child;
  } catch (...) {
    row.error = "out of memory";
    return row;
  }
}

PROBE_API replay_report replay_all(const replay_settings& s, std::string* error, replay_listener* l) noexcept {
  replay_report r;
  r.fake_data = s.fake_data;
  try {
    std::vector<std::string> dirs;
    if (!snapshot::find(s.paths, &dirs, error)) return r;
    regex re;
    std::string why;
    if (!s.op_re.empty() && !re.compile(s.op_re, &why)) {
      *error = "--probe_replay_op_re: " + why;
      return r;
    }
    // First what will run (for the columns of rows shown as they finish), then each.
    std::vector<snapshot::info> snaps;
    std::vector<replay_row> plan;
    for (const std::string& dir : dirs) {
      snapshot::info snap;
      replay_row row;
      if (!snapshot::read(dir, &snap, &why)) {
        const size_t slash = dir.rfind('/');
        const std::string folder = slash == std::string::npos ? dir : dir.substr(slash + 1);
        if (!re.search(folder)) continue;
        row.dir = dir;
        row.key = folder;
        row.type = "?";
        row.status = "?";
        row.outcome = replay_outcome::error;
        row.error = "unreadable snapshot: " + why;
      } else {
        if (!re.search(snap.key())) continue;
        row.dir = snap.dir;
        row.key = snap.key();
        row.type = snap.type;
        row.status = snap.status;
        std::string kernel;
        if (!s.require_kernels && !find_kernel(snap.op, snap.type, &kernel)) {
          r.no_kernel.push_back(std::move(row));  // said once, in the table's end
          continue;
        }
      }
      snaps.push_back(std::move(snap));
      plan.push_back(std::move(row));
    }
    if (l) l->planned(plan);
    for (size_t i = 0; i < plan.size(); ++i) {
      if (l) l->starting(plan[i]);
      if (plan[i].outcome != replay_outcome::error) {
        const snapshot::info& snap = snaps[i];
        const bool isolate = s.isolate || snap.status != "complete";
        plan[i] = isolate ? replay_isolated(snap, s) : replay_one(snap, s);
      }
      if (l) l->finished(plan[i]);
      r.rows.push_back(plan[i]);
    }
    if (r.rows.empty() && r.no_kernel.empty()) *error = "no snapshot's op#occurrence matches the pattern '" + s.op_re + "' (--op-re, --probe_replay_op_re)";
  } catch (...) {
    *error = "out of memory";
  }
  return r;
}

namespace replay_impl {
// Shows each row as it finishes, flushed: its first columns before the kernel runs, so that
// a crash leaves the op in flight named on the screen. `probe replay` learns the same through
// its status descriptor (PROBE_REPLAY_STATUS_FD), and replays what is left after a crash.
struct row_printer : replay_listener {
  replay_columns columns;
  bool fake_data = false;
  int status_fd = -1;
  void status(const char* what, const replay_row& row) noexcept {
    if (status_fd < 0) return;
    std::string line = std::string("probe-replay-") + what + " " + row.dir + "\n";
    for (size_t i = 0; i + 1 < line.size(); ++i)
      if (line[i] == '\n') line[i] = ' ';
    write_all(status_fd, line.data(), line.size());
  }
  void planned(const std::vector<replay_row>& rows) noexcept override {
    try {
      columns = replay_columns_for(rows, fake_data);
      fputs(replay_table_head(columns).c_str(), stdout);
      fflush(stdout);
    } catch (...) {
    }
  }
  void starting(const replay_row& row) noexcept override {
    status("running", row);
    try {
      fputs(replay_row_head(row, columns).c_str(), stdout);
      fflush(stdout);
    } catch (...) {
    }
  }
  void finished(const replay_row& row) noexcept override {
    try {
      fputs(replay_row_rest(row, columns).c_str(), stdout);
      fflush(stdout);
    } catch (...) {
    }
    status("done", row);
  }
};
}  // namespace replay_impl

PROBE_API int replay_main(const options& o) noexcept {
  try {
    replay_settings s;
    std::string error;
    if (!replay_settings_from(o, &s, &error)) {
      log("replay: %s", error.c_str());
      return 2;
    }
    std::string head = "probe replay: ";
    head += s.fake_data ? "fake inputs (seed " + std::to_string(s.seed) + ")" : "recorded inputs";
    if (s.reference) head += ", reference kernels";
    if (s.tol.atol >= 0 || s.tol.rtol >= 0)
      head += ", atol " + (s.tol.atol >= 0 ? shortest_text(s.tol.atol) : std::string("by dtype")) + ", rtol " +
              (s.tol.rtol >= 0 ? shortest_text(s.tol.rtol) : std::string("by dtype"));
    fputs((head + "\n").c_str(), stdout);
    fflush(stdout);
    replay_impl::row_printer printer;
    printer.fake_data = s.fake_data;
    if (const char* fd = getenv("PROBE_REPLAY_STATUS_FD")) printer.status_fd = atoi(fd) > 2 ? atoi(fd) : -1;
    const replay_report r = replay_all(s, &error, &printer);
    if (r.rows.empty() && r.no_kernel.empty()) {
      log("replay: %s", error.c_str());
      return 2;
    }
    // An op that could not be replayed: its row, and one line through the log (stderr), for
    // scripts; ops without a kernel are one line of the table's end instead.
    for (const replay_row& row : r.rows)
      if (row.outcome == replay_outcome::error) log("replay %s: %s", row.key.c_str(), row.error.c_str());
    fputs(replay_table_end(r).c_str(), stdout);
    fflush(stdout);
    return r.exit_code();
  } catch (...) {
    log("replay: out of memory");
    return 2;
  }
}

}  // namespace detail
PROBE_END_NAMESPACE
