/* probe for C (C99 and later) and for C++ translation units older than C++17. docs/c.md is
 * the manual: every function below, in the order a C program needs them.
 *
 *   #include <probe/probe.h>
 *
 *   probe_op* op = probe_op_begin("attn", "Attention", layer);   // "L3.attn" when layer = 3
 *   probe_op_attr_int(op, "pos", pos);
 *   probe_op_input(op, "q", q, PROBE_FLOAT32, 2, (int64_t[]){seq, dim});
 *   attention(q, k, v, out);
 *   probe_op_output(op, "out", out, PROBE_FLOAT32, 2, (int64_t[]){seq, dim});
 *   probe_op_end(op);
 *
 * The same flags (PROBE_FLAGS) drive what happens. Every function is safe to call with a
 * NULL op (what probe_op_begin returns when nothing records ops), costs a call and a branch
 * when every flag is off, and never lets a C++ exception out. Link the compiled library
 * (CMake target probe::compiled, or libprobe.a with the C++ runtime: docs/c.md). With
 * PROBE_DISABLE defined, every function here is an empty inline function (or a macro that
 * evaluates nothing) but probe_metric, which still prints its line: a program's result does
 * not depend on whether probe is compiled in.
 */
#ifndef PROBE_PROBE_H
#define PROBE_PROBE_H

#if !defined(__cplusplus) && (!defined(__STDC_VERSION__) || __STDC_VERSION__ < 199901L)
#error "probe.h needs C99 or later (compile with -std=c99, -std=c11 or newer)"
#else /* the rest is C99: skipped under C89, so that the #error above is the one message */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#if defined(PROBE_DISABLE)
#include "util/metric_line.h"
#endif

/* The C interface this header declares. probe_version() says which one the linked library
 * implements: a prebuilt library older than the header returns less. (Interface 1, ops,
 * scopes, metrics and tensor prints alone, had no probe_version: such a library fails to
 * link instead.) */
#define PROBE_C_API_VERSION 2

/* C++ callers see that no exception leaves these functions (the library catches everything
 * inside); in C it is nothing. */
#if defined(__cplusplus) && __cplusplus >= 201103L
#define PROBE_C_NOEXCEPT noexcept
#elif defined(__cplusplus)
#define PROBE_C_NOEXCEPT throw()
#else
#define PROBE_C_NOEXCEPT
#endif

/* The most dimensions a tensor has. */
#define PROBE_MAX_DIMS 8

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

/* A tensor as probe reads it: plain data, filled by probe_tensor_of / _strided / _batch.
 * The shape, strides and batch arrays are read during the call that takes the tensor only. */
typedef struct probe_tensor {
  const void* data;          /* the first element (unused for a batch) */
  const void* const* batch;  /* NULL, or shape[0] pointers: sample k starts at batch[k] */
  const int64_t* shape;      /* ndim sizes (NULL when ndim is 0: a scalar) */
  const int64_t* strides;    /* NULL: contiguous row-major; else ndim strides, in elements */
  probe_dtype type;
  int ndim;
} probe_tensor;

/* Contiguous, row-major. */
static inline probe_tensor probe_tensor_of(const void* data, probe_dtype type, int ndim, const int64_t* shape) {
  probe_tensor t;
  t.data = data;
  t.batch = NULL;
  t.shape = shape;
  t.strides = NULL;
  t.type = type;
  t.ndim = ndim;
  return t;
}
/* Strided (a view into a larger array: one head of a KV cache); strides in elements. */
static inline probe_tensor probe_tensor_strided(const void* data, probe_dtype type, int ndim, const int64_t* shape,
                                                const int64_t* strides) {
  probe_tensor t = probe_tensor_of(data, type, ndim, shape);
  t.strides = strides;
  return t;
}
/* shape[0] equally shaped samples in separate buffers, as one tensor [shape[0], shape[1..]]:
 * samples[k] is where sample k starts, each laid out row-major by shape[1..]. A C array of
 * float pointers is passed as (const void* const*)ptrs. */
static inline probe_tensor probe_tensor_batch(const void* const* samples, probe_dtype type, int ndim,
                                              const int64_t* shape) {
  probe_tensor t = probe_tensor_of(NULL, type, ndim, shape);
  t.batch = samples;
  return t;
}

/* How an op takes a tensor (probe_op_tensor). */
typedef enum probe_io {
  PROBE_IN = 0,         /* an input: read now ("before") */
  PROBE_OUT = 1,        /* an output: read now ("after") */
  PROBE_INOUT = 2,      /* read-modify-write: read now as input, again at probe_op_end as output */
  PROBE_OUT_AT_END = 3  /* an output described now, read at probe_op_end */
} probe_io;

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

/* Receives each of probe's own messages (no "probe: " prefix, no newline); see
 * probe_set_log_sink. */
typedef void (*probe_log_fn)(const char* message, void* user);

#if !defined(PROBE_DISABLE)

/* ---- the library and its flags ---- */

/* PROBE_C_API_VERSION of the library linked in; "0.1.0": its release. */
int probe_version(void) PROBE_C_NOEXCEPT;
const char* probe_version_string(void) PROBE_C_NOEXCEPT;
/* Also takes --probe_* flags from the command line (removed from argv). Optional. */
void probe_init(int* argc, char** argv) PROBE_C_NOEXCEPT;
/* Replaces the flags (the PROBE_FLAGS syntax); everything after runs under them. */
void probe_set_flags(const char* flags) PROBE_C_NOEXCEPT;
/* Writes every flag with its default and meaning to `out` (NULL: stdout). */
void probe_help(FILE* out) PROBE_C_NOEXCEPT;
/* --probe_reference: 1 when the engine should run its reference (naive) kernels. */
int probe_reference_mode(void) PROBE_C_NOEXCEPT;
/* 1 under --probe_reproducible: pick deterministic algorithms (probe jitter tells whether to). */
int probe_reproducible_mode(void) PROBE_C_NOEXCEPT;
/* Sends probe's messages to `sink` (called on any thread, never to call back into probe);
 * NULL: back to stderr. */
void probe_set_log_sink(probe_log_fn sink, void* user) PROBE_C_NOEXCEPT;
/* Writes out everything pending (also done at normal exit). */
void probe_flush(void) PROBE_C_NOEXCEPT;

/* The step recorded with every op (an iteration, a token). */
void probe_set_step(int64_t step) PROBE_C_NOEXCEPT;

/* ---- ops ---- */

/* Starts a marked computation. `type` may be NULL or "". `index` >= 0 names the op
 * "L<index>.<name>" (a layer index), built only when the op is recorded; pass -1 for none.
 * Returns NULL when nothing records ops: every probe_op_* accepts NULL. */
probe_op* probe_op_begin(const char* name, const char* type, int64_t index) PROBE_C_NOEXCEPT;
/* Two index levels: "L<index>.<sub><sub_index>.<name>" ("L3.h5.attn" for 3, "h", 5), built
 * in the library only when the op is recorded, without allocating. index < 0: no layer
 * ("h5.attn"); sub_index < 0: as probe_op_begin. */
probe_op* probe_op_begin_sub(const char* name, const char* type, int64_t index, const char* sub, int64_t sub_index) PROBE_C_NOEXCEPT;
/* A tensor of the op: contiguous, row-major, `ndim` dimensions of `shape` (ndim 0: a scalar). */
void probe_op_input(probe_op* op, const char* slot, const void* data, probe_dtype type, int ndim,
                    const int64_t* shape) PROBE_C_NOEXCEPT;
void probe_op_output(probe_op* op, const char* slot, const void* data, probe_dtype type, int ndim,
                     const int64_t* shape) PROBE_C_NOEXCEPT;
/* Read-modify-write: recorded now as input `slot` (before) and as output `slot` at probe_op_end (after). */
void probe_op_inout(probe_op* op, const char* slot, const void* data, probe_dtype type, int ndim,
                    const int64_t* shape) PROBE_C_NOEXCEPT;
/* An output described now and read at probe_op_end (after the computation wrote it). */
void probe_op_output_at_end(probe_op* op, const char* slot, const void* data, probe_dtype type, int ndim,
                            const int64_t* shape) PROBE_C_NOEXCEPT;
/* Any tensor (strided, a batch of buffers), taken as `io` says. */
void probe_op_tensor(probe_op* op, probe_io io, const char* slot, probe_tensor tensor) PROBE_C_NOEXCEPT;
/* Attributes of this execution (eps, a RoPE position, a mode): recorded in the manifest and
 * the snapshot, handed to the op's kernel on replay. Give them before the inputs. */
void probe_op_attr_int(probe_op* op, const char* name, int64_t value) PROBE_C_NOEXCEPT;
void probe_op_attr_double(probe_op* op, const char* name, double value) PROBE_C_NOEXCEPT;
void probe_op_attr_bool(probe_op* op, const char* name, int value) PROBE_C_NOEXCEPT;
void probe_op_attr_string(probe_op* op, const char* name, const char* value) PROBE_C_NOEXCEPT;
void probe_op_attr_ints(probe_op* op, const char* name, const int64_t* values, size_t count) PROBE_C_NOEXCEPT;
/* Input `slot` came from `producer_key` ("<op>#<occurrence>/out/<slot>"), for buffers the
 * memory-range matching cannot follow. */
void probe_op_link(probe_op* op, const char* slot, const char* producer_key) PROBE_C_NOEXCEPT;
/* Ends the op (its outputs are complete). */
void probe_op_end(probe_op* op) PROBE_C_NOEXCEPT;
/* Whether the op records tensors (skip building views when it does not). */
int probe_op_records_tensors(const probe_op* op) PROBE_C_NOEXCEPT;
/* The op's sequence number in this process (0 for NULL). */
uint64_t probe_op_sequence(const probe_op* op) PROBE_C_NOEXCEPT;

/* ---- ops on worker threads (OpenMP, pthreads) ---- */

/* The innermost op open on the calling thread (NULL outside every op, or when nothing
 * records ops). */
probe_op* probe_op_current(void) PROBE_C_NOEXCEPT;
/* On a worker thread: makes `parent` (open on the spawning thread) the parent of the ops the
 * worker begins, until probe_op_unadopt. Returns what to give probe_op_unadopt: `parent`
 * when this thread adopted it, NULL when it did not need to (it has an op open: the OpenMP
 * master thread). Every worker must unadopt before the parent ends. */
probe_op* probe_op_adopt(probe_op* parent) PROBE_C_NOEXCEPT;
void probe_op_unadopt(probe_op* adopted) PROBE_C_NOEXCEPT;

/* ---- timing and metrics ---- */

/* Times the code between begin and end under the site's name (--probe_timing). The site is
 * static and writable (PROBE_C_SCOPE makes one): probe writes its id at first use and reads
 * its strings until the program exits. */
probe_scope probe_scope_begin(probe_scope_site* site) PROBE_C_NOEXCEPT;
void probe_scope_end(probe_scope scope) PROBE_C_NOEXCEPT;

/* Prints "<name>: <value>" on stdout, the line a nightly job greps; records it while timing. */
void probe_metric(const char* name, double value) PROBE_C_NOEXCEPT;

#else /* PROBE_DISABLE */

static inline int probe_version(void) { return PROBE_C_API_VERSION; }
static inline const char* probe_version_string(void) { return ""; }
static inline void probe_init(int* argc, char** argv) { (void)argc, (void)argv; }
static inline void probe_set_flags(const char* flags) { (void)flags; }
static inline void probe_help(FILE* out) { (void)out; }
static inline int probe_reference_mode(void) { return 0; }
static inline int probe_reproducible_mode(void) { return 0; }
static inline void probe_set_log_sink(probe_log_fn sink, void* user) { (void)sink, (void)user; }
static inline void probe_flush(void) {}
static inline void probe_set_step(int64_t step) { (void)step; }
static inline probe_op* probe_op_begin(const char* name, const char* type, int64_t index) {
  (void)name, (void)type, (void)index;
  return NULL;
}
static inline probe_op* probe_op_begin_sub(const char* name, const char* type, int64_t index, const char* sub,
                                           int64_t sub_index) {
  (void)name, (void)type, (void)index, (void)sub, (void)sub_index;
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
static inline void probe_op_output_at_end(probe_op* op, const char* slot, const void* data, probe_dtype type,
                                          int ndim, const int64_t* shape) {
  (void)op, (void)slot, (void)data, (void)type, (void)ndim, (void)shape;
}
static inline void probe_op_tensor(probe_op* op, probe_io io, const char* slot, probe_tensor tensor) {
  (void)op, (void)io, (void)slot, (void)tensor;
}
static inline void probe_op_attr_int(probe_op* op, const char* name, int64_t value) { (void)op, (void)name, (void)value; }
static inline void probe_op_attr_double(probe_op* op, const char* name, double value) {
  (void)op, (void)name, (void)value;
}
static inline void probe_op_attr_bool(probe_op* op, const char* name, int value) { (void)op, (void)name, (void)value; }
static inline void probe_op_attr_string(probe_op* op, const char* name, const char* value) {
  (void)op, (void)name, (void)value;
}
static inline void probe_op_attr_ints(probe_op* op, const char* name, const int64_t* values, size_t count) {
  (void)op, (void)name, (void)values, (void)count;
}
static inline void probe_op_link(probe_op* op, const char* slot, const char* producer_key) {
  (void)op, (void)slot, (void)producer_key;
}
static inline void probe_op_end(probe_op* op) { (void)op; }
static inline int probe_op_records_tensors(const probe_op* op) {
  (void)op;
  return 0;
}
static inline uint64_t probe_op_sequence(const probe_op* op) {
  (void)op;
  return 0;
}
static inline probe_op* probe_op_current(void) { return NULL; }
static inline probe_op* probe_op_adopt(probe_op* parent) {
  (void)parent;
  return NULL;
}
static inline void probe_op_unadopt(probe_op* adopted) { (void)adopted; }
static inline probe_scope probe_scope_begin(probe_scope_site* site) {
  probe_scope s;
  (void)site;
  s.site = NULL;
  s.begin = 0;
  return s;
}
static inline void probe_scope_end(probe_scope scope) { (void)scope; }
static inline void probe_metric(const char* name, double value) { probe_metric_line(name, value); }

#endif /* PROBE_DISABLE */

/* Times the rest of a block in C:  PROBE_C_SCOPE(step_timer, "lbm_step"); ... PROBE_C_SCOPE_END(step_timer); */
#define PROBE_C_SCOPE(var, name)                                                   \
  static probe_scope_site var##_site = {name, __FILE__, __func__, __LINE__, 0}; \
  probe_scope var = probe_scope_begin(&var##_site)
#define PROBE_C_SCOPE_END(var) probe_scope_end(var)

/* ---- The engine's IR at compiler passes (docs/ir.md) ------------------------------------
 * A compiled graph is a module, each rewrite of it a pass; the IR is printed by the engine's
 * own function, called only when the dump goes to a folder and --probe_dump_module_re /
 * --probe_dump_pass_re select it (without them every module, at its entry and exit):
 *   probe_ir_module* m = probe_ir_module_open("mlp", n_ops);      NULL when not dumped
 *   probe_ir_pass_begin(m, "fusion", print_fn, graph);  fuse(graph);  probe_ir_pass_end(m, print_fn, graph);
 *   probe_ir_module_close(m, print_fn, graph);                     the exit stage; frees m
 * print_fn(user, out) appends the IR with probe_ir_write. Every call takes a NULL module. */
typedef struct probe_ir_module probe_ir_module;
typedef struct probe_ir_text probe_ir_text;
typedef void (*probe_ir_print_fn)(void* user, probe_ir_text* out);

#if !defined(PROBE_DISABLE)
probe_ir_module* probe_ir_module_open(const char* name, int64_t op_count) PROBE_C_NOEXCEPT;
void probe_ir_pass_begin(probe_ir_module* m, const char* pass, probe_ir_print_fn fn, void* user) PROBE_C_NOEXCEPT;
void probe_ir_pass_end(probe_ir_module* m, probe_ir_print_fn fn, void* user) PROBE_C_NOEXCEPT;
/* fn may be NULL: the module leaves the pipeline as the last pass's printer showed it. */
void probe_ir_module_close(probe_ir_module* m, probe_ir_print_fn fn, void* user) PROBE_C_NOEXCEPT;
/* The id in file names and records (0: not dumped). */
unsigned probe_ir_module_id(const probe_ir_module* m) PROBE_C_NOEXCEPT;
void probe_ir_write(probe_ir_text* out, const char* text, size_t len) PROBE_C_NOEXCEPT;
/* Ops begun on this thread from now on record module `id` (0: none); returns the previous id. */
unsigned probe_ir_set_running(unsigned id) PROBE_C_NOEXCEPT;
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

#include "c/debug.h"
#include "c/replay.h"

#endif /* C99 */
#endif /* PROBE_PROBE_H */
