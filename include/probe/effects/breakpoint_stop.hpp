// What a breakpoint does (--probe_breakpoint): the prompt, SIGTRAP for a debugger, npy files of
// the frames' variables, abort, or nothing; non-finite checks, for one tensor or (as an op
// listener) every op output. Internal header.
#pragma once
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <new>
#include <string>
#include <utility>

#include "../core/context.hpp"
#include "../core/options.hpp"
#include "../core/stats.hpp"
#include "../util/fs.hpp"
#include "../util/log.hpp"
#include "../util/sync.hpp"
#include "../formats/npy.hpp"
#include "breakpoint.hpp"
#include "breakpoint_frames.hpp"
#include "breakpoint_prompt.hpp"
#include "breakpoint_when.hpp"
#include "dump_names.hpp"
#include "dump_writer.hpp"
#include "effect_queue.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

struct breakpoint_state {
  mutex prompt;   // one thread at a time at the prompt
  mutex m;        // guards what follows
  std::string commands_path;
  std::vector<command_block> commands;  // the commands file, read once per path
  bool commands_failed = false;
  const when_condition* when = nullptr;  // --probe_break_if (atomic; never freed, as listener sets)
  std::string temp_dir;      // for dumps when no dump directory was given
  int dumps = 0;
  int reports = 0;           // one-line reports of stops that did not stop (not at a terminal)
  std::map<std::pair<std::string, int>, uint64_t> hits;  // (file, line) -> times reached
  int nonfinite_fired = 0;   // atomic: --probe_break_on_nonfinite stops once
};
PROBE_API breakpoint_state& breakpoint_state_ref() noexcept;

constexpr int k_breakpoint_max_dumps = 100;
constexpr int k_breakpoint_max_reports = 100;

// Counts one more arrival at file:line; returns the count (1 the first time).
PROBE_API uint64_t breakpoint_count_hit(const char* file, int line) noexcept;

// 'auto' becomes the prompt at a terminal or with a commands file; otherwise it stays 'auto',
// which reports the stop in one line and goes on (a leftover breakpoint in a batch job).
PROBE_API breakpoint_mode resolve_breakpoint_mode(const options& o) noexcept;

// 'auto' off a terminal: one line (where, step, hit count, which flag stops or dumps).
PROBE_API void breakpoint_report(const stop_info& s) noexcept;

// Linux: a debugger (or strace) is attached when /proc/self/status names a tracer.
PROBE_API bool debugger_attached() noexcept;

PROBE_API std::string stop_header(const stop_info& s);

PROBE_API void prompt_write(void*, const char* text, size_t n) noexcept;

// The commands file's blocks (read when its path changes); false when there is none or it
// cannot be read (said once).
PROBE_API bool commands_file(const options& o, std::string* commands_for_this_stop, const stop_info& s) noexcept;

// Whether --probe_break_if lets the calling thread's breakpoint at this hit count stop.
PROBE_API bool breakpoint_wanted(uint64_t hit) noexcept;

PROBE_API void breakpoint_prompt(stop_info& s, const options& o) noexcept;

// Writes every frame's variables as .npy, plus frames.txt, into a fresh folder.
PROBE_API void breakpoint_dump(const stop_info& s, const options& o) noexcept;

// Stops as --probe_breakpoint says.
PROBE_API void breakpoint_stop_now(stop_info& s) noexcept;

PROBE_API void breakpoint_hit(const char* file, int line, const char* function, const var_ref* vars,
                               int nvars) noexcept;

// Counts NaN and Inf in v (device views through a host copy). False when it cannot tell.
PROBE_API bool nonfinite_health(const tensor_view& v, health* h, std::string* err);

PROBE_API std::string nonfinite_counts(const health& h);

PROBE_API void breakpoint_if_nonfinite_impl(const char* name, const tensor_view& v, const char* file, int line,
                                             const char* function) noexcept;

// --probe_break_on_nonfinite: checks every op output; stops at the first one holding NaN or
// Inf (they usually spread to every later op, so later ones are not reported).
class nonfinite_listener final : public op_listener {
 public:
  void on_tensor(op_record& r, const recorded_tensor& t, uint64_t&) noexcept override {
    if (t.which != io::out || !(dtype_is_float(t.view.type) || dtype_is_complex(t.view.type))) return;
    breakpoint_state& st = breakpoint_state_ref();
    if (__atomic_load_n(&st.nonfinite_fired, __ATOMIC_ACQUIRE)) return;
    try {
      health h;
      std::string err;
      if (!nonfinite_health(t.view, &h, &err)) {
        static int said = 0;
        log_once(&said, "--probe_break_on_nonfinite cannot check output '%s' of op %s: %s", t.slot.c_str(),
                 r.name.c_str(), err.c_str());
        return;
      }
      if (h.nonfinite() == 0 || __atomic_exchange_n(&st.nonfinite_fired, 1, __ATOMIC_ACQ_REL)) return;
      stop_info s;
      set_stop_thread(s);
      s.step = r.step;
      frame f;
      f.kind = frame_kind::nonfinite;
      f.name = "output '" + printable(t.slot) + "' of op " + printable(r.name);
      add_var(f, t.slot, t.view);
      s.frames.push_back(static_cast<frame&&>(f));
      add_enclosing_frames(s, &r, current_scope());  // the op's own thread: its scopes are ours
      s.reason = "non-finite values in output '" + printable(t.slot) + "' of op " + printable(r.name) +
                 (r.type.empty() ? std::string() : " (" + printable(r.type) + ")") + " seq " + std::to_string(r.seq) +
                 ", step " + std::to_string(r.step) + ": " + nonfinite_counts(h) +
                 " (the first such output; later ones are not reported)";
      breakpoint_stop_now(s);
    } catch (...) {
    }
  }
};

PROBE_API nonfinite_listener& nonfinite_listener_ref() noexcept;

// Wiring: the non-finite listener joins the op listeners when asked for; re-applying the
// options re-arms it.
PROBE_API int breakpoint_apply_options(const options& o, op_listener** list, int n, int cap) noexcept;

}  // namespace detail
PROBE_END_NAMESPACE
