/* probe.h, part 2: debug effects from C (prints, callbacks, breakpoints). Included by
 * <probe/probe.h>; include that. docs/c.md, "Debugging".
 *
 *   probe_print("step %d: mass %.6f, f = %s", step, mass, probe_tensor_text(f));
 *   probe_callback(on_step, &state, &f, 1);           // on probe's worker, with a copy of f
 *   probe_breakpoint(probe_var_of("rho", rho, PROBE_FLOAT64, 2, shape), probe_var_int("step", &step));
 *   probe_break_if_nonfinite("u", u, PROBE_FLOAT32, 1, shape);
 */
#ifndef PROBE_C_DEBUG_H
#define PROBE_C_DEBUG_H
#ifndef PROBE_PROBE_H
#error "include <probe/probe.h>, not probe/c/debug.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define PROBE_C_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PROBE_C_PRINTF(f, a)
#endif

/* A named value shown at a breakpoint: a tensor, or a number (a 0-d tensor of its storage).
 * It refers to the caller's memory, read while the caller waits at the breakpoint. */
typedef struct probe_var {
  const char* name;
  probe_tensor value;
} probe_var;

static inline probe_var probe_var_tensor(const char* name, probe_tensor value) {
  probe_var v;
  v.name = name;
  v.value = value;
  return v;
}
static inline probe_var probe_var_of(const char* name, const void* data, probe_dtype type, int ndim,
                                  const int64_t* shape) {
  return probe_var_tensor(name, probe_tensor_of(data, type, ndim, shape));
}
static inline probe_var probe_var_int(const char* name, const int* value) {
  return probe_var_tensor(name, probe_tensor_of(value, sizeof(int) == 8 ? PROBE_INT64 : PROBE_INT32, 0, NULL));
}
static inline probe_var probe_var_double(const char* name, const double* value) {
  return probe_var_tensor(name, probe_tensor_of(value, PROBE_FLOAT64, 0, NULL));
}

/* What a callback receives: the `user` pointer given with it and the tensors captured when
 * the callback was made, as host, contiguous copies valid while the callback runs. */
typedef void (*probe_callback_fn)(void* user, const probe_tensor* tensors, int ntensors);

#if !defined(PROBE_DISABLE)

/* printf's format and arguments, formatted now, written later as one line (a newline added
 * when missing) to stderr or --probe_print_to, off the calling thread; off with
 * --probe_print=off. _ordered keeps program order across threads. */
void probe_print(const char* format, ...) PROBE_C_NOEXCEPT PROBE_C_PRINTF(1, 2);
void probe_print_ordered(const char* format, ...) PROBE_C_NOEXCEPT PROBE_C_PRINTF(1, 2);
void probe_vprint(int ordered, const char* format, va_list args) PROBE_C_NOEXCEPT PROBE_C_PRINTF(2, 0);
/* A tensor as probe's prints show it ("[1. 0.5 ... 0.]", numpy-like, summarised when long),
 * for a "%s" of probe_print: text in the calling thread's own buffers, valid until its 8th
 * next call. "" while prints are off (--probe_print=off), so an unprinted tensor costs nothing. */
const char* probe_tensor_text(probe_tensor tensor) PROBE_C_NOEXCEPT;
/* "<label> = [...]": the tensor captured now, printed in order off-thread. */
void probe_print_tensor(const char* label, const void* data, probe_dtype type, int ndim, const int64_t* shape) PROBE_C_NOEXCEPT;

/* Runs fn(user, copies of tensors) on probe's worker thread (off with --probe_callback=off);
 * the tensors are copied now, `user` is passed as given. _ordered: program order across
 * threads. */
void probe_callback(probe_callback_fn fn, void* user, const probe_tensor* tensors, int ntensors) PROBE_C_NOEXCEPT;
void probe_callback_ordered(probe_callback_fn fn, void* user, const probe_tensor* tensors, int ntensors) PROBE_C_NOEXCEPT;
/* Waits until every print and callback made before it has run. */
void probe_effects_barrier(void) PROBE_C_NOEXCEPT;

/* Stops here as --probe_breakpoint says (a prompt, npy files of the variables, SIGTRAP, abort),
 * with the variables and the enclosing ops as frames. Use the probe_breakpoint macro. */
void probe_breakpoint_at(const char* file, int line, const char* function, const probe_var* vars, int nvars) PROBE_C_NOEXCEPT;
/* Stops (as probe_breakpoint would, at the caller's line) when the tensor holds NaN or Inf.
 * Returns 1 when it did. Use the probe_break_if_nonfinite macro. */
int probe_break_if_nonfinite_at(const char* name, probe_tensor tensor, const char* file, int line,
                                const char* function) PROBE_C_NOEXCEPT;
/* The same without the caller's place (reported "at :0"); kept for programs built before. */
int(probe_break_if_nonfinite)(const char* name, const void* data, probe_dtype type, int ndim, const int64_t* shape) PROBE_C_NOEXCEPT;

#else /* PROBE_DISABLE */

/* The arguments are never evaluated, but still type-checked against the format and counted
 * as used. */
#define probe_print(...) ((void)(0 && printf(__VA_ARGS__)))
#define probe_print_ordered(...) ((void)(0 && printf(__VA_ARGS__)))
static inline void probe_vprint(int ordered, const char* format, va_list args) {
  (void)ordered, (void)format, (void)args;
}
static inline const char* probe_tensor_text(probe_tensor tensor) {
  (void)tensor;
  return "";
}
static inline void probe_print_tensor(const char* label, const void* data, probe_dtype type, int ndim,
                                      const int64_t* shape) {
  (void)label, (void)data, (void)type, (void)ndim, (void)shape;
}
static inline void probe_callback(probe_callback_fn fn, void* user, const probe_tensor* tensors, int ntensors) {
  (void)fn, (void)user, (void)tensors, (void)ntensors;
}
static inline void probe_callback_ordered(probe_callback_fn fn, void* user, const probe_tensor* tensors,
                                          int ntensors) {
  (void)fn, (void)user, (void)tensors, (void)ntensors;
}
static inline void probe_effects_barrier(void) {}
static inline void probe_breakpoint_at(const char* file, int line, const char* function, const probe_var* vars,
                                       int nvars) {
  (void)file, (void)line, (void)function, (void)vars, (void)nvars;
}
static inline int probe_break_if_nonfinite_at(const char* name, probe_tensor tensor, const char* file, int line,
                                              const char* function) {
  (void)name, (void)tensor, (void)file, (void)line, (void)function;
  return 0;
}
static inline int(probe_break_if_nonfinite)(const char* name, const void* data, probe_dtype type, int ndim,
                                            const int64_t* shape) {
  (void)name, (void)data, (void)type, (void)ndim, (void)shape;
  return 0;
}

#endif /* PROBE_DISABLE */

/* probe_breakpoint(probe_var_of(...), ...), or probe_breakpoint() with no variables: stops at
 * this line. Under PROBE_DISABLE the variables are built by an empty inline call, which the
 * compiler removes. */
#define PROBE_C_NO_VAR_ {NULL, {NULL, NULL, NULL, NULL, PROBE_BOOL, 0}}
#define probe_breakpoint(...)                                                                                   \
  probe_breakpoint_at(__FILE__, __LINE__, __func__, (const probe_var[]){PROBE_C_NO_VAR_, __VA_ARGS__} + 1,      \
                      (int)(sizeof((const probe_var[]){PROBE_C_NO_VAR_, __VA_ARGS__}) / sizeof(probe_var)) - 1)
/* As assert does: the caller's file, line and function go with the check. */
#define probe_break_if_nonfinite(name, data, type, ndim, shape) \
  probe_break_if_nonfinite_at(name, probe_tensor_of(data, type, ndim, shape), __FILE__, __LINE__, __func__)

#ifdef __cplusplus
}
#endif

#endif /* PROBE_C_DEBUG_H */
