// probe.h, the C interface: a thin layer over the C++ API, compiled into the library once
// (src/c_api.cpp, or the TU that defines PROBE_IMPLEMENTATION). Never in plain header-only
// mode: C cannot include C++, so C callers always link a compiled probe.
#pragma once
#include <stddef.h>

#include <new>
#include <string>

#include "core/context.hpp"
#include "core/op.hpp"
#include "core/options.hpp"
#include "core/tensor_view.hpp"
#include "effects/breakpoint.hpp"
#include "effects/print.hpp"
#include "effects/timing.hpp"
#include "probe.h"

PROBE_BEGIN_NAMESPACE
namespace detail {

static_assert(static_cast<int>(dtype::complex128) == PROBE_COMPLEX128 && static_cast<int>(dtype::boolean) == PROBE_BOOL,
              "probe_dtype takes probe::dtype's values");
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

inline op_record* c_record(probe_op* op) noexcept { return reinterpret_cast<op_record*>(op); }

}  // namespace detail
PROBE_END_NAMESPACE

extern "C" {

void probe_init(int* argc, char** argv) {
  if (argc) probe::init(*argc, argv);
}
void probe_flush(void) { probe::flush(); }
void probe_set_step(int64_t step) { probe::set_step(step); }

probe_op* probe_op_begin(const char* name, const char* type, int64_t index) {
  using namespace probe::detail;
  if (!gate_on(gate_ops)) return nullptr;
  if (index < 0) return reinterpret_cast<probe_op*>(op_begin(name, type ? type : ""));
  return reinterpret_cast<probe_op*>(op_begin_indexed(name, type ? type : "", index));
}
void probe_op_input(probe_op* op, const char* slot, const void* data, probe_dtype type, int ndim,
                    const int64_t* shape) {
  using namespace probe::detail;
  if (op) op_tensor(c_record(op), io::in, slot, c_view(data, type, ndim, shape));
}
void probe_op_output(probe_op* op, const char* slot, const void* data, probe_dtype type, int ndim,
                     const int64_t* shape) {
  using namespace probe::detail;
  if (op) op_tensor(c_record(op), io::out, slot, c_view(data, type, ndim, shape));
}
void probe_op_inout(probe_op* op, const char* slot, const void* data, probe_dtype type, int ndim,
                    const int64_t* shape) {
  using namespace probe::detail;
  if (op) op_inout(c_record(op), slot, c_view(data, type, ndim, shape));
}
void probe_op_end(probe_op* op) {
  if (op) probe::detail::op_end(probe::detail::c_record(op));
}
int probe_op_records_tensors(const probe_op* op) {
  return op != nullptr && probe::detail::op_records_tensors(reinterpret_cast<const probe::detail::op_record*>(op));
}

probe_scope probe_scope_begin(const probe_scope_site* site) {
  probe_scope s{nullptr, 0};
  const auto* cpp = reinterpret_cast<const probe::detail::scope_site*>(site);
  if (site && probe::detail::scope_enter(cpp, &s.begin)) s.site = site;
  return s;
}
void probe_scope_end(probe_scope scope) {
  if (scope.site) probe::detail::scope_leave(reinterpret_cast<const probe::detail::scope_site*>(scope.site), scope.begin);
}

void probe_metric(const char* name, double value) { probe::metric(name ? name : "", value); }

void probe_print_tensor(const char* label, const void* data, probe_dtype type, int ndim, const int64_t* shape) {
  probe::print("{} = {}", label ? label : "", probe::detail::c_view(data, type, ndim, shape));
}

int probe_break_if_nonfinite(const char* name, const void* data, probe_dtype type, int ndim, const int64_t* shape) {
  if (!probe::detail::gate_on(probe::detail::gate_breakpoint)) return 0;
  const probe::tensor_view v = probe::detail::c_view(data, type, ndim, shape);
  const probe::health h = probe::compute_health(v);
  if (!h.valid || h.all_finite()) return 0;
  probe::detail::breakpoint_if_nonfinite_impl(name ? name : "", v, "", 0, "");
  return 1;
}

// ---- The engine's IR at compiler passes: the C form of probe::ir_module / ir_pass ----

}  // extern "C"

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

probe_ir_module* probe_ir_module_open(const char* name, int64_t op_count) {
  using namespace probe::detail;
  if (!gate_on(gate_ir)) return nullptr;
  if (!name) name = "";
  return reinterpret_cast<probe_ir_module*>(ir_module_open(name, strlen(name), op_count, false));
}
void probe_ir_pass_begin(probe_ir_module* m, const char* pass, probe_ir_print_fn fn, void* user) {
  using namespace probe::detail;
  if (!m) return;
  const c_ir_printer p{fn, user};
  if (!pass) pass = "";
  ir_pass_begin(c_ir(m), pass, strlen(pass), fn ? ir_printer{&p, &c_ir_call} : ir_printer{});
}
void probe_ir_pass_end(probe_ir_module* m, probe_ir_print_fn fn, void* user) {
  using namespace probe::detail;
  if (!m) return;
  const c_ir_printer p{fn, user};
  ir_pass_end(c_ir(m), fn ? ir_printer{&p, &c_ir_call} : ir_printer{});
}
void probe_ir_module_close(probe_ir_module* m, probe_ir_print_fn fn, void* user) {
  using namespace probe::detail;
  if (!m) return;
  const c_ir_printer p{fn, user};
  ir_module_close(c_ir(m), fn ? ir_printer{&p, &c_ir_call} : ir_printer{});
}
unsigned probe_ir_module_id(const probe_ir_module* m) {
  return probe::detail::ir_module_id(reinterpret_cast<const probe::detail::ir_module_state*>(m));
}
void probe_ir_write(probe_ir_text* out, const char* text, size_t len) {
  if (!out || !text) return;
  try {
    reinterpret_cast<probe::ir_out*>(out)->write(text, len);
  } catch (...) {  // out of memory: the stage is written short, the host goes on
  }
}
unsigned probe_ir_set_running(unsigned id) {
  const unsigned prev = probe::detail::t_ir_running;
  probe::detail::t_ir_running = id;
  return prev;
}

}  // extern "C"

