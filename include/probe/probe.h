/* probe for C (C99 and later) and for C++ translation units older than C++17.
 *
 *   #include <probe/probe.h>
 *
 *   probe_op* op = probe_op_begin("attn", "Attention", layer);   // "L3.attn" when layer = 3
 *   probe_op_input(op, "q", q, PROBE_FLOAT32, 2, (int64_t[]){seq, dim});
 *   attention(q, k, v, out);
 *   probe_op_output(op, "out", out, PROBE_FLOAT32, 2, (int64_t[]){seq, dim});
 *   probe_op_end(op);
 *
 * The same flags (PROBE_FLAGS) drive what happens. Every function is safe to call with a
 * NULL op (what probe_op_begin returns when nothing records ops) and costs a call and a
 * branch when every flag is off. Link the compiled library (CMake target probe::compiled,
 * or the TU that defines PROBE_IMPLEMENTATION when vendoring). With PROBE_DISABLE defined,
 * every function here is an empty inline function but probe_metric, which still prints its
 * line: a program's result does not depend on whether probe is compiled in.
 */
#ifndef PROBE_PROBE_H
#define PROBE_PROBE_H

#include <stddef.h>
#include <stdint.h>
#if defined(PROBE_DISABLE)
#include "util/metric_line.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Element types; the values are probe::dtype's. */
typedef enum probe_dtype {
  PROBE_BOOL = 1,
  PROBE_INT8 = 2,
  PROBE_INT16 = 3,
  PROBE_INT32 = 4,
  PROBE_INT64 = 5,
  PROBE_UINT8 = 6,
  PROBE_UINT16 = 7,
  PROBE_UINT32 = 8,
  PROBE_UINT64 = 9,
  PROBE_FLOAT16 = 10,
  PROBE_BFLOAT16 = 11,
  PROBE_FLOAT32 = 12,
  PROBE_FLOAT64 = 13,
  PROBE_COMPLEX64 = 14,
  PROBE_COMPLEX128 = 15
} probe_dtype;

typedef struct probe_op probe_op; /* opaque: one marked computation */

/* Where a timed scope is: one static object per call site (PROBE_C_SCOPE makes it). */
typedef struct probe_scope_site {
  const char* name;
  const char* file;
  const char* function;
  int line;
  uint32_t id; /* probe's, zero-initialised */
} probe_scope_site;

typedef struct probe_scope {
  const probe_scope_site* site; /* NULL when timing was off at the start */
  uint64_t begin;
} probe_scope;

#if !defined(PROBE_DISABLE)

/* Also takes --probe_* flags from the command line (removed from argv). Optional. */
void probe_init(int* argc, char** argv);
/* Writes out everything pending (also done at normal exit). */
void probe_flush(void);

/* The step recorded with every op (an iteration, a token). */
void probe_set_step(int64_t step);

/* Starts a marked computation. `type` may be NULL or "". `index` >= 0 names the op
 * "L<index>.<name>" (a layer index), built only when the op is recorded; pass -1 for none.
 * Returns NULL when nothing records ops: every probe_op_* accepts NULL. */
probe_op* probe_op_begin(const char* name, const char* type, int64_t index);
/* A tensor of the op: contiguous, row-major, `ndim` dimensions of `shape` (ndim 0: a scalar). */
void probe_op_input(probe_op* op, const char* slot, const void* data, probe_dtype type, int ndim,
                    const int64_t* shape);
void probe_op_output(probe_op* op, const char* slot, const void* data, probe_dtype type, int ndim,
                     const int64_t* shape);
/* Read-modify-write: recorded now as input `slot` (before) and as output `slot` at probe_op_end (after). */
void probe_op_inout(probe_op* op, const char* slot, const void* data, probe_dtype type, int ndim,
                    const int64_t* shape);
/* Ends the op (its outputs are complete). */
void probe_op_end(probe_op* op);
/* Whether the op records tensors (skip building views when it does not). */
int probe_op_records_tensors(const probe_op* op);

/* Times the code between begin and end under the site's name (--probe_timing). */
probe_scope probe_scope_begin(const probe_scope_site* site);
void probe_scope_end(probe_scope scope);

/* Prints "<name>: <value>" on stdout, the line a nightly job greps; records it while timing. */
void probe_metric(const char* name, double value);

/* probe::print of a tensor: "<label> = [...]", captured now, printed in order off-thread. */
void probe_print_tensor(const char* label, const void* data, probe_dtype type, int ndim, const int64_t* shape);

/* Stops at a breakpoint when the tensor holds NaN or Inf (--probe_breakpoint says how).
 * Returns 1 when it did. */
int probe_break_if_nonfinite(const char* name, const void* data, probe_dtype type, int ndim,
                             const int64_t* shape);

#else /* PROBE_DISABLE */

static inline void probe_init(int* argc, char** argv) { (void)argc, (void)argv; }
static inline void probe_flush(void) {}
static inline void probe_set_step(int64_t step) { (void)step; }
static inline probe_op* probe_op_begin(const char* name, const char* type, int64_t index) {
  (void)name, (void)type, (void)index;
  return NULL;
}
static inline void probe_op_input(probe_op* op, const char* slot, const void* data, probe_dtype type, int ndim,
                                  const int64_t* shape) {
  (void)op, (void)slot, (void)data, (void)type, (void)ndim, (void)shape;
}
static inline void probe_op_output(probe_op* op, const char* slot, const void* data, probe_dtype type, int ndim,
                                   const int64_t* shape) {
  (void)op, (void)slot, (void)data, (void)type, (void)ndim, (void)shape;
}
static inline void probe_op_inout(probe_op* op, const char* slot, const void* data, probe_dtype type, int ndim,
                                  const int64_t* shape) {
  (void)op, (void)slot, (void)data, (void)type, (void)ndim, (void)shape;
}
static inline void probe_op_end(probe_op* op) { (void)op; }
static inline int probe_op_records_tensors(const probe_op* op) {
  (void)op;
  return 0;
}
static inline probe_scope probe_scope_begin(const probe_scope_site* site) {
  probe_scope s;
  (void)site;
  s.site = NULL;
  s.begin = 0;
  return s;
}
static inline void probe_scope_end(probe_scope scope) { (void)scope; }
static inline void probe_metric(const char* name, double value) { probe_metric_line(name, value); }
static inline void probe_print_tensor(const char* label, const void* data, probe_dtype type, int ndim,
                                      const int64_t* shape) {
  (void)label, (void)data, (void)type, (void)ndim, (void)shape;
}
static inline int probe_break_if_nonfinite(const char* name, const void* data, probe_dtype type, int ndim,
                                           const int64_t* shape) {
  (void)name, (void)data, (void)type, (void)ndim, (void)shape;
  return 0;
}

#endif /* PROBE_DISABLE */

/* Times the rest of a block in C:  PROBE_C_SCOPE(step_timer, "lbm_step"); ... PROBE_C_SCOPE_END(step_timer); */
#define PROBE_C_SCOPE(var, name)                                                   \
  static probe_scope_site var##_site = {name, __FILE__, __func__, __LINE__, 0}; \
  probe_scope var = probe_scope_begin(&var##_site)
#define PROBE_C_SCOPE_END(var) probe_scope_end(var)

/* ---- The engine's IR at compiler passes (docs/ir.md) ------------------------------------
 * A compiled graph is a module, each rewrite of it a pass; the IR is printed by the engine's
 * own function, called only when --probe_dump_module_re / --probe_dump_pass_re select it:
 *   probe_ir_module* m = probe_ir_module_open("mlp", n_ops);      NULL when not dumped
 *   probe_ir_pass_begin(m, "fusion", print_fn, graph);  fuse(graph);  probe_ir_pass_end(m, print_fn, graph);
 *   probe_ir_module_close(m, print_fn, graph);                     the exit stage; frees m
 * print_fn(user, out) appends the IR with probe_ir_write. Every call takes a NULL module. */
typedef struct probe_ir_module probe_ir_module;
typedef struct probe_ir_text probe_ir_text;
typedef void (*probe_ir_print_fn)(void* user, probe_ir_text* out);

#if !defined(PROBE_DISABLE)
probe_ir_module* probe_ir_module_open(const char* name, int64_t op_count);
void probe_ir_pass_begin(probe_ir_module* m, const char* pass, probe_ir_print_fn fn, void* user);
void probe_ir_pass_end(probe_ir_module* m, probe_ir_print_fn fn, void* user);
/* fn may be NULL: the module leaves the pipeline as the last pass's printer showed it. */
void probe_ir_module_close(probe_ir_module* m, probe_ir_print_fn fn, void* user);
/* The id in file names and records (0: not dumped). */
unsigned probe_ir_module_id(const probe_ir_module* m);
void probe_ir_write(probe_ir_text* out, const char* text, size_t len);
/* Ops begun on this thread from now on record module `id` (0: none); returns the previous id. */
unsigned probe_ir_set_running(unsigned id);
#else
static inline probe_ir_module* probe_ir_module_open(const char* name, int64_t op_count) {
  (void)name, (void)op_count;
  return NULL;
}
static inline void probe_ir_pass_begin(probe_ir_module* m, const char* pass, probe_ir_print_fn fn, void* user) {
  (void)m, (void)pass, (void)fn, (void)user;
}
static inline void probe_ir_pass_end(probe_ir_module* m, probe_ir_print_fn fn, void* user) { (void)m, (void)fn, (void)user; }
static inline void probe_ir_module_close(probe_ir_module* m, probe_ir_print_fn fn, void* user) { (void)m, (void)fn, (void)user; }
static inline unsigned probe_ir_module_id(const probe_ir_module* m) {
  (void)m;
  return 0;
}
static inline void probe_ir_write(probe_ir_text* out, const char* text, size_t len) { (void)out, (void)text, (void)len; }
static inline unsigned probe_ir_set_running(unsigned id) {
  (void)id;
  return 0;
}
#endif

#ifdef __cplusplus
}
#endif

#endif /* PROBE_PROBE_H */
