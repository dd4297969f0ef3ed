// probe.h, the C interface: a thin layer over the C++ API, compiled into the library once
// (src/c_api.cpp, or the TU that defines PROBE_IMPLEMENTATION). Never in plain header-only
// mode: C cannot include C++, so C callers always link a compiled probe. Every function is
// noexcept: what the C++ layer could throw (an allocation) is caught here, so no exception
// ever unwinds through a C caller's frames. This file: the library, ops, timing; the debug
// effects and replay kernels are in c/debug_impl.hpp and c/replay_impl.hpp.
#pragma once
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <new>
#include <string>

#include "core/context.hpp"
#include "core/flags.hpp"
#include "core/op.hpp"
#include "core/op_context.hpp"
#include "core/options.hpp"
#include "core/tensor_view.hpp"
#include "effects/breakpoint.hpp"
#include "effects/print.hpp"
#include "effects/timing.hpp"
#include "util/int_text.hpp"
#include "util/log.hpp"
#include "probe.h"

PROBE_BEGIN_NAMESPACE
namespace detail {

static_assert(static_cast<int>(dtype::complex128) == PROBE_COMPLEX128 && static_cast<int>(dtype::boolean) == PROBE_BOOL,
              "probe_dtype takes probe::dtype's values");
static_assert(max_dims == PROBE_MAX_DIMS, "PROBE_MAX_DIMS is probe::max_dims");
static_assert(sizeof(probe_scope_site) == sizeof(scope_site) && offsetof(probe_scope_site, name) == offsetof(scope_site, name) &&
                  offsetof(probe_scope_site, file) == offsetof(scope_site, file) &&
                  offsetof(probe_scope_site, function) == offsetof(scope_site, function) &&
                  offsetof(probe_scope_site, line) == offsetof(scope_site, line) &&
                  offsetof(probe_scope_site, id) == offsetof(scope_site, id),
              "probe_scope_site is laid out as detail::scope_site");

inline tensor_view c_view(const void* data, probe_dtype type, int ndim, const int64_t* shape) noexcept {
  if (ndim < 0 || ndim > max_dims || (ndim > 0 && !shape)) return tensor_view{};  // invalid: reported as such
  return view_raw(data, static_cast<dtype>(type), dims(shape, static_cast<size_t>(ndim)));
}

// A probe_tensor as the C++ layer's view: strided, or a batch of sample buffers.
inline tensor_view c_view(const probe_tensor& t) noexcept {
  const int n = t.ndim;
  if (n < 0 || n > max_dims || (n > 0 && !t.shape)) return tensor_view{};
  const size_t un = static_cast<size_t>(n);
  if (t.batch) {
    if (n < 1) return tensor_view{};
    const tensor_view sample = t.strides ? view_raw(nullptr, static_cast<dtype>(t.type), dims(t.shape + 1, un - 1),
                                                    dims(t.strides + 1, un - 1))
                                         : view_raw(nullptr, static_cast<dtype>(t.type), dims(t.shape + 1, un - 1));
    return batch_view(t.batch, t.shape[0], sample);
  }
  if (t.strides) return view_raw(t.data, static_cast<dtype>(t.type), dims(t.shape, un), dims(t.strides, un));
  return view_raw(t.data, static_cast<dtype>(t.type), dims(t.shape, un));
}

inline op_record* c_record(probe_op* op) noexcept { return reinterpret_cast<op_record*>(op); }
inline probe_op* c_handle(op_record* r) noexcept { return reinterpret_cast<probe_op*>(r); }

// "L<index>.<sub><sub_index>.<name>" in the caller's stack buffer when it fits (op_begin
// copies it into the op's reused record: no allocation in a steady state). index < 0: no
// layer, "<sub><sub_index>.<name>", as probe_op_begin names an op without one; "L0." would
// make it layer 0's.
inline op_record* c_begin_sub(const char* name, const char* type, int64_t index, const char* sub,
                              int64_t sub_index) noexcept {
  char head[64];
  char* e = head;
  if (index >= 0) {
    *e++ = 'L';
    e = put_int(e, index);
    *e++ = '.';
  }
  const char* s = sub ? sub : "";
  const size_t sub_len = strlen(s), name_len = strlen(name ? name : "");
  char buf[256];
  const size_t head_len = static_cast<size_t>(e - head);
  char num[24];
  const size_t num_len = static_cast<size_t>(put_int(num, sub_index) - num);
  const size_t total = head_len + sub_len + num_len + 1 + name_len;
  if (total < sizeof buf) {
    char* p = buf;
    memcpy(p, head, head_len), p += head_len;
    memcpy(p, s, sub_len), p += sub_len;
    memcpy(p, num, num_len), p += num_len;
    *p++ = '.';
    memcpy(p, name ? name : "", name_len), p += name_len;
    *p = '\0';
    return op_begin(buf, type);
  }
  try {
    std::string full(head, head_len);
    full.append(s, sub_len).append(num, num_len).append(1, '.').append(name ? name : "", name_len);
    return op_begin(full.c_str(), type);
  } catch (...) {
    return nullptr;  // out of memory: this op goes unrecorded
  }
}

inline void c_attr(probe_op* op, const char* name, const attr_arg& a) noexcept {
  if (op) op_attr(c_record(op), name, a);
}

}  // namespace detail
PROBE_END_NAMESPACE

extern "C" {

int probe_version(void) PROBE_C_NOEXCEPT { return PROBE_C_API_VERSION; }
const char* probe_version_string(void) PROBE_C_NOEXCEPT { return PROBE_VERSION_STRING; }

void probe_init(int* argc, char** argv) PROBE_C_NOEXCEPT {
  if (argc) probe::init(*argc, argv);
}
void probe_set_flags(const char* flags) PROBE_C_NOEXCEPT { probe::set_flags(flags ? flags : ""); }
void probe_help(FILE* out) PROBE_C_NOEXCEPT {
  try {
    probe::detail::print_flag_help(out ? out : stdout);
  } catch (...) {
  }
}
int probe_reference_mode(void) PROBE_C_NOEXCEPT { return probe::reference_mode() ? 1 : 0; }
int probe_reproducible_mode(void) PROBE_C_NOEXCEPT { return probe::reproducible_mode() ? 1 : 0; }
void probe_set_log_sink(probe_log_fn sink, void* user) PROBE_C_NOEXCEPT { probe::set_log_sink(sink, user); }
void probe_flush(void) PROBE_C_NOEXCEPT { probe::flush(); }
void probe_set_step(int64_t step) PROBE_C_NOEXCEPT { probe::set_step(step); }

probe_op* probe_op_begin(const char* name, const char* type, int64_t index) PROBE_C_NOEXCEPT {
  using namespace probe::detail;
  if (!gate_on(gate_ops)) return nullptr;
  if (index < 0) return c_handle(op_begin(name, type ? type : ""));
  return c_handle(op_begin_indexed(name, type ? type : "", index));
}
probe_op* probe_op_begin_sub(const char* name, const char* type, int64_t index, const char* sub, int64_t sub_index) PROBE_C_NOEXCEPT {
  using namespace probe::detail;
  if (sub_index < 0) return probe_op_begin(name, type, index);
  if (!gate_on(gate_ops)) return nullptr;
  return c_handle(c_begin_sub(name, type ? type : "", index, sub, sub_index));
}
void probe_op_input(probe_op* op, const char* slot, const void* data, probe_dtype type, int ndim,
                    const int64_t* shape) PROBE_C_NOEXCEPT {
  using namespace probe::detail;
  if (op) op_tensor(c_record(op), io::in, slot, c_view(data, type, ndim, shape));
}
void probe_op_output(probe_op* op, const char* slot, const void* data, probe_dtype type, int ndim,
                     const int64_t* shape) PROBE_C_NOEXCEPT {
  using namespace probe::detail;
  if (op) op_tensor(c_record(op), io::out, slot, c_view(data, type, ndim, shape));
}
void probe_op_inout(probe_op* op, const char* slot, const void* data, probe_dtype type, int ndim,
                    const int64_t* shape) PROBE_C_NOEXCEPT {
  using namespace probe::detail;
  if (op) op_inout(c_record(op), slot, c_view(data, type, ndim, shape));
}
void probe_op_output_at_end(probe_op* op, const char* slot, const void* data, probe_dtype type, int ndim,
                            const int64_t* shape) PROBE_C_NOEXCEPT {
  using namespace probe::detail;
  if (op) op_defer_output(c_record(op), slot, c_view(data, type, ndim, shape));
}
void probe_op_tensor(probe_op* op, probe_io which, const char* slot, probe_tensor tensor) PROBE_C_NOEXCEPT {
  using namespace probe::detail;
  if (!op || !op_records_tensors(c_record(op))) return;
  const probe::tensor_view v = c_view(tensor);
  switch (which) {
    case PROBE_IN: op_tensor(c_record(op), io::in, slot, v); break;
    case PROBE_OUT: op_tensor(c_record(op), io::out, slot, v); break;
    case PROBE_INOUT: op_inout(c_record(op), slot, v); break;
    case PROBE_OUT_AT_END: op_defer_output(c_record(op), slot, v); break;
    default: log("probe_op_tensor(\"%s\"): %d is not a probe_io; not recorded", slot ? slot : "", static_cast<int>(which));
  }
}
void probe_op_attr_int(probe_op* op, const char* name, int64_t value) PROBE_C_NOEXCEPT {
  probe::detail::c_attr(op, name, probe::detail::make_attr(value));
}
void probe_op_attr_double(probe_op* op, const char* name, double value) PROBE_C_NOEXCEPT {
  probe::detail::c_attr(op, name, probe::detail::make_attr(value));
}
void probe_op_attr_bool(probe_op* op, const char* name, int value) PROBE_C_NOEXCEPT {
  probe::detail::c_attr(op, name, probe::detail::make_attr(value != 0));
}
void probe_op_attr_string(probe_op* op, const char* name, const char* value) PROBE_C_NOEXCEPT {
  probe::detail::c_attr(op, name, probe::detail::make_text_attr(value, value ? strlen(value) : 0));
}
void probe_op_attr_ints(probe_op* op, const char* name, const int64_t* values, size_t count) PROBE_C_NOEXCEPT {
  probe::detail::c_attr(op, name, probe::detail::make_int_list_attr(values, values ? count : 0));
}
void probe_op_link(probe_op* op, const char* slot, const char* producer_key) PROBE_C_NOEXCEPT {
  if (op) probe::detail::op_link(probe::detail::c_record(op), slot, producer_key);
}
void probe_op_end(probe_op* op) PROBE_C_NOEXCEPT {
  if (op) probe::detail::op_end(probe::detail::c_record(op));
}
int probe_op_records_tensors(const probe_op* op) PROBE_C_NOEXCEPT {
  return op != nullptr && probe::detail::op_records_tensors(reinterpret_cast<const probe::detail::op_record*>(op));
}
uint64_t probe_op_sequence(const probe_op* op) PROBE_C_NOEXCEPT {
  return op ? probe::detail::op_sequence(reinterpret_cast<const probe::detail::op_record*>(op)) : 0;
}

probe_op* probe_op_current(void) PROBE_C_NOEXCEPT {
  using namespace probe::detail;
  return gate_on(gate_ops) ? c_handle(op_current()) : nullptr;
}
probe_op* probe_op_adopt(probe_op* parent) PROBE_C_NOEXCEPT {
  return parent && probe::detail::op_adopt(probe::detail::c_record(parent)) ? parent : nullptr;
}
void probe_op_unadopt(probe_op* adopted) PROBE_C_NOEXCEPT {
  if (adopted) probe::detail::op_unadopt(probe::detail::c_record(adopted));
}

probe_scope probe_scope_begin(probe_scope_site* site) PROBE_C_NOEXCEPT {
  probe_scope s{nullptr, 0};
  const auto* cpp = reinterpret_cast<const probe::detail::scope_site*>(site);
  if (site && probe::detail::scope_enter(cpp, &s.begin)) s.site = site;
  return s;
}
void probe_scope_end(probe_scope scope) PROBE_C_NOEXCEPT {
  if (scope.site) probe::detail::scope_leave(reinterpret_cast<const probe::detail::scope_site*>(scope.site), scope.begin);
}

void probe_metric(const char* name, double value) PROBE_C_NOEXCEPT { probe::metric(name ? name : "", value); }

// ---- The engine's IR at compiler passes: the C form of probe::ir_module / ir_pass ----

}  // extern "C"

#include "c/debug_impl.hpp"
#include "c/replay_impl.hpp"
namespace probe {
namespace detail {
struct c_ir_printer {
  probe_ir_print_fn fn;
  void* user;
};
inline void c_ir_call(const void* self, ir_out& out) {
  const c_ir_printer* p = static_cast<const c_ir_printer*>(self);
  p->fn(p->user, reinterpret_cast<probe_ir_text*>(&out));
}
inline ir_module_state* c_ir(probe_ir_module* m) { return reinterpret_cast<ir_module_state*>(m); }
}  // namespace detail
}  // namespace probe

extern "C" {

probe_ir_module* probe_ir_module_open(const char* name, int64_t op_count) PROBE_C_NOEXCEPT {
  using namespace probe::detail;
  if (!gate_on(gate_ir)) return nullptr;
  if (!name) name = "";
  return reinterpret_cast<probe_ir_module*>(ir_module_open(name, strlen(name), op_count, false));
}
void probe_ir_pass_begin(probe_ir_module* m, const char* pass, probe_ir_print_fn fn, void* user) PROBE_C_NOEXCEPT {
  using namespace probe::detail;
  if (!m) return;
  const c_ir_printer p{fn, user};
  if (!pass) pass = "";
  ir_pass_begin(c_ir(m), pass, strlen(pass), fn ? ir_printer{&p, &c_ir_call} : ir_printer{});
}
void probe_ir_pass_end(probe_ir_module* m, probe_ir_print_fn fn, void* user) PROBE_C_NOEXCEPT {
  using namespace probe::detail;
  if (!m) return;
  const c_ir_printer p{fn, user};
  ir_pass_end(c_ir(m), fn ? ir_printer{&p, &c_ir_call} : ir_printer{});
}
void probe_ir_module_close(probe_ir_module* m, probe_ir_print_fn fn, void* user) PROBE_C_NOEXCEPT {
  using namespace probe::detail;
  if (!m) return;
  const c_ir_printer p{fn, user};
  ir_module_close(c_ir(m), fn ? ir_printer{&p, &c_ir_call} : ir_printer{});
}
unsigned probe_ir_module_id(const probe_ir_module* m) PROBE_C_NOEXCEPT {
  return probe::detail::ir_module_id(reinterpret_cast<const probe::detail::ir_module_state*>(m));
}
void probe_ir_write(probe_ir_text* out, const char* text, size_t len) PROBE_C_NOEXCEPT {
  if (!out || !text) return;
  try {
    reinterpret_cast<probe::ir_out*>(out)->write(text, len);
  } catch (...) {  // out of memory: the stage is written short, the host goes on
  }
}
unsigned probe_ir_set_running(unsigned id) PROBE_C_NOEXCEPT {
  const unsigned prev = probe::detail::t_ir_running;
  probe::detail::t_ir_running = id;
  return prev;
}

}  // extern "C"

