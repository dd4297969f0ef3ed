// probe::print and probe::callback: capture on the caller's thread, run on the consumer
// (effect_queue_impl.hpp), output to stderr or --probe_print_to. Internal header.
#pragma once
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <exception>
#include <string>

#include "../core/format.hpp"
#include "../core/options.hpp"
#include "../util/fs.hpp"
#include "../util/log.hpp"
#include "../util/sync.hpp"
#include "effect_queue.hpp"
#include "print.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Where print output goes. Opened by the consumer when first written after the options named it.
struct print_sink {
  // Held only by the consumer while it writes. Fork-safe: a child forked while its parent's
  // worker was writing takes the lock over (that thread does not exist in the child), or the
  // child's first print, barrier or exit would wait forever.
  fork_safe_mutex m;
  std::string path;      // "" = stderr
  int fd = 2;
  bool reopen = false;
  int open_failed = 0;   // for log_once
  int write_failed = 0;
};
PROBE_API print_sink& print_sink_ref() noexcept;

// A check of every print's arguments on the caller's thread, before they are captured
// (--probe_break_on_abs_above installs one); null when none.
using print_check_fn = void (*)(const char* fmt, size_t fmt_len, const format_arg* args, int nargs) noexcept;
inline print_check_fn g_print_check = nullptr;

PROBE_API void print_apply_options(const options& o) noexcept;

PROBE_API int print_sink_fd(print_sink& s) noexcept;

// Writes the consumer's pending output in one system call (whole records: lines never
// interleave with other probe output).
PROBE_API void effect_output_flush(std::string& out) noexcept;

inline int g_callback_threw = 0;
inline int g_capture_failed = 0;

PROBE_API void effect_run(effect_record* r, std::string& out) noexcept;

// ---- the entry points print.hpp declares ----

PROBE_API void print_submit(bool ordered, const char* fmt, size_t fmt_len, const format_arg* args,
                             int nargs) noexcept;

PROBE_API effect_record* callback_begin(bool ordered) noexcept;

PROBE_API const char* callback_capture_string(effect_record* r, const char* s, size_t n) noexcept;

PROBE_API tensor_view callback_capture_tensor(effect_record* r, const tensor_view& v) noexcept;

PROBE_API void* callback_alloc(size_t bytes) noexcept;
PROBE_API void callback_free(void* p) noexcept;

PROBE_API void callback_commit(effect_record* r, callback_task* task) noexcept;

}  // namespace detail
PROBE_END_NAMESPACE
