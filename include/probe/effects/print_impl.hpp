// print: definitions (see print_sink.hpp).
#pragma once
#include "../util/immortal.hpp"
#include "print_sink.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API print_sink& print_sink_ref() noexcept {
  static immortal<print_sink> s;  // never destroyed: written during exit
  return s.get();
}

PROBE_API void print_apply_options(const options& o) noexcept {
  print_sink& s = print_sink_ref();
  lock_guard<fork_safe_mutex> g(s.m);
  try {
    const char* want = o.print_to ? o.print_to : "";
    if (s.path != want) {
      s.path = want;
      s.reopen = true;
    }
  } catch (...) {
  }
}

PROBE_API int print_sink_fd(print_sink& s) noexcept {
  if (!s.reopen) return s.fd;
  s.reopen = false;
  if (s.fd != 2) ::close(s.fd);
  s.fd = 2;
  if (!s.path.empty()) {
    const int fd = ::open(s.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0666);
    if (fd >= 0) s.fd = fd;
    else
      log_once(&s.open_failed, "cannot open --probe_print_to=%s: %s; printing to stderr", s.path.c_str(),
               strerror(errno));
  }
  return s.fd;
}

PROBE_API void effect_output_flush(std::string& out) noexcept {
  if (out.empty()) return;
  print_sink& s = print_sink_ref();
  {
    lock_guard<fork_safe_mutex> g(s.m);
    const int fd = print_sink_fd(s);
    if (const int e = write_all(fd, out.data(), out.size()))
      log_once(&s.write_failed, "cannot write debug prints: %s", strerror(e));
  }
  out.clear();
}

PROBE_API void effect_run(effect_record* r, std::string& out) noexcept {
  if (r->is_callback) {
    if (!r->task) return;  // could not be built; reported when it was made
    if (r->failed) {
      log_once(&g_capture_failed, "a probe::callback was skipped: %s", r->error ? r->error : "out of memory");
      return;
    }
    effect_output_flush(out);  // what printed before the callback appears before its output
    try {
      r->task->run();
    } catch (const std::exception& e) {
      log_once(&g_callback_threw, "a probe::callback threw: %s (reported once; the program goes on)", e.what());
    } catch (...) {
      log_once(&g_callback_threw, "a probe::callback threw an exception (reported once; the program goes on)");
    }
    return;
  }
  const size_t start = out.size();
  try {
    vformat_to(out, r->fmt, r->fmt_len, r->args, r->nargs);
    if (out.size() == start || out.back() != '\n') out += '\n';
  } catch (...) {
    out.resize(start);
  }
  if (out.size() >= (size_t(64) << 10)) effect_output_flush(out);
}

PROBE_API void print_submit(bool ordered, const char* fmt, size_t fmt_len, const format_arg* args,
                             int nargs) noexcept {
  if (!fmt) fmt = "", fmt_len = 0;
  if (const print_check_fn check = __atomic_load_n(&g_print_check, __ATOMIC_ACQUIRE)) check(fmt, fmt_len, args, nargs);
  // One allocation: the record, the erased arguments, the format and the strings' bytes.
  size_t text = fmt_len;
  for (int i = 0; i < nargs; ++i)
    if (args[i].kind == arg_kind::string) text += args[i].len;
  const size_t arg_bytes = sizeof(format_arg) * static_cast<size_t>(nargs);
  effect_record* r = record_new(arg_bytes + text);
  if (!r) {
    static int said = 0;
    log_once(&said, "out of memory: a probe::print was dropped");
    return;
  }
  r->ordered = ordered;
  char* p = reinterpret_cast<char*>(r + 1);
  format_arg* a = reinterpret_cast<format_arg*>(p);
  for (int i = 0; i < nargs; ++i) new (a + i) format_arg(args[i]);
  char* bytes = p + arg_bytes;
  if (fmt_len) memcpy(bytes, fmt, fmt_len);
  r->fmt = bytes;
  r->fmt_len = fmt_len;
  bytes += fmt_len;
  for (int i = 0; i < nargs; ++i) {
    if (a[i].kind == arg_kind::string) {
      if (a[i].len) memcpy(bytes, a[i].str, a[i].len);
      a[i].str = bytes;
      bytes += a[i].len;
    } else if (a[i].kind == arg_kind::tensor) {
      tensor_view copy;
      if (record_capture(r, a[i].view, &copy)) {
        a[i].view = copy;
      } else {
        log_once(&g_capture_failed, "probe::print cannot copy a tensor argument: %s", r->error ? r->error : "out of memory");
        if (a[i].view.where.is_host()) a[i].view.data = nullptr;  // prints "<... with no data>"
      }
    }
  }
  r->args = a;
  r->nargs = nargs;
  effect_push(r);
}

PROBE_API effect_record* callback_begin(bool ordered) noexcept {
  effect_record* r = record_new(0);
  if (!r) {
    static int said = 0;
    log_once(&said, "out of memory: a probe::callback was dropped");
    return nullptr;
  }
  r->is_callback = true;
  r->ordered = ordered;
  return r;
}

PROBE_API const char* callback_capture_string(effect_record* r, const char* s, size_t n) noexcept {
  return record_copy_string(r, s, n);
}

PROBE_API tensor_view callback_capture_tensor(effect_record* r, const tensor_view& v) noexcept {
  tensor_view copy;
  if (record_capture(r, v, &copy)) return copy;
  tensor_view none = v.on_host();
  none.data = nullptr;
  return none;
}

PROBE_API void* callback_alloc(size_t bytes) noexcept { return malloc(bytes); }

PROBE_API void callback_free(void* p) noexcept { free(p); }

PROBE_API void callback_commit(effect_record* r, callback_task* task) noexcept {
  if (!task) {
    static int said = 0;
    log_once(&said, "a probe::callback was dropped: out of memory, or copying an argument threw");
  }
  r->task = task;
  // Queued even without a task: copies may still be in flight into memory the record owns.
  effect_push(r);
}

}  // namespace detail
PROBE_END_NAMESPACE
